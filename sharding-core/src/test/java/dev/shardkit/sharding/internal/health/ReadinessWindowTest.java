package dev.shardkit.sharding.internal.health;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** When the readiness check stops counting registration and the gate; on a clock the test moves. */
class ReadinessWindowTest {
  final AtomicLong clock = new AtomicLong(1_000);

  ReadinessWindow window(Duration disabledAfter) {
    return new ReadinessWindow(clock::get, Optional.of(disabledAfter));
  }

  @Test
  void registrationCountsUntilTheNodeIsUpAndForTheWindowAfter() {
    ReadinessWindow window = window(Duration.ofSeconds(30));
    clock.addAndGet(Duration.ofHours(1).toNanos());
    assertTrue(window.registrationChecked(false), "however long the node has not been Up");
    assertTrue(window.registrationChecked(true), "the first check that sees it Up starts the window");
    clock.addAndGet(Duration.ofSeconds(30).toNanos() - 1);
    assertTrue(window.registrationChecked(true));
    clock.addAndGet(1);
    assertFalse(window.registrationChecked(true));
    assertFalse(window.registrationChecked(false), "once closed, the window stays closed");
  }

  @Test
  void zeroCountsRegistrationOnlyBeforeTheNodeIsUp() {
    ReadinessWindow window = window(Duration.ZERO);
    assertTrue(window.registrationChecked(false));
    assertFalse(window.registrationChecked(true));
  }

  @Test
  void offCountsRegistrationForEver() {
    ReadinessWindow window = new ReadinessWindow(clock::get, Optional.empty());
    window.registrationChecked(true);
    clock.addAndGet(Duration.ofDays(365).toNanos());
    assertTrue(window.registrationChecked(true));
  }

  @Test
  void theDefaultIsThirtySecondsAndOffIsAccepted() {
    ReadinessWindow fromDefaults = ReadinessWindow.fromConfig(
        ConfigFactory.defaultReference().getConfig("shardkit.sharding"), clock::get);
    fromDefaults.registrationChecked(true);
    clock.addAndGet(Duration.ofSeconds(30).toNanos() - 1);
    assertTrue(fromDefaults.registrationChecked(true));
    clock.addAndGet(1);
    assertFalse(fromDefaults.registrationChecked(true));

    ReadinessWindow off = ReadinessWindow.fromConfig(
        ConfigFactory.parseString("health-check.readiness.disabled-after = off"), clock::get);
    off.registrationChecked(true);
    clock.addAndGet(Duration.ofDays(1).toNanos());
    assertTrue(off.registrationChecked(true));
  }

  @Test
  void aBadValueIsRefusedNamingTheKey() {
    for (String bad : new String[] {"-1s", "soon", "on"}) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ReadinessWindow.fromConfig(
          ConfigFactory.parseString("health-check.readiness.disabled-after = " + bad), clock::get), bad);
      assertTrue(e.getMessage().contains("shardkit.sharding.health-check.readiness.disabled-after"), e.getMessage());
    }
    IllegalArgumentException missing = assertThrows(IllegalArgumentException.class,
        () -> ReadinessWindow.fromConfig(ConfigFactory.empty(), clock::get));
    assertTrue(missing.getMessage().contains("health-check.readiness.disabled-after"), missing.getMessage());
  }

  @Test
  void nullArgumentsAreRefused() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new ReadinessWindow(null, Optional.empty()));
    assertEquals("ReadinessWindow needs a clock and an optional duration, got a null clock", e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> new ReadinessWindow(clock::get, null));
  }
}
