package dev.shardkit.sharding.persistence.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * When a loaded coordinator's store writes a keep-alive: once a whole interval passed since its
 * last write, never beside a write in flight, checked every half interval.
 */
class KeepAlivePaceTest {
  static final KeepAlivePace PACE = new KeepAlivePace(Duration.ofSeconds(15));

  @Test
  void dueOnceTheIntervalHasPassedSinceTheLastWrite() {
    assertFalse(PACE.due(Duration.ZERO, false));
    assertFalse(PACE.due(Duration.ofSeconds(15).minusMillis(1), false));
    assertTrue(PACE.due(Duration.ofSeconds(15), false));
    assertTrue(PACE.due(Duration.ofHours(1), false));
  }

  @Test
  void neverWhileAWriteIsInFlight() {
    assertFalse(PACE.due(Duration.ofSeconds(15), true));
    assertFalse(PACE.due(Duration.ofHours(1), true));
  }

  @Test
  void checkedEveryHalfInterval() {
    assertEquals(Duration.ofMillis(7500), PACE.checkEvery());
  }

  @Test
  void anIntervalThatIsNotPositiveIsRefusedNamingTheSetting() {
    IllegalArgumentException zero = assertThrows(IllegalArgumentException.class,
        () -> new KeepAlivePace(Duration.ZERO));
    assertTrue(zero.getMessage().contains("shardkit.sharding.persistence.keep-alive-interval must be positive"),
        zero.getMessage());
    assertThrows(IllegalArgumentException.class, () -> new KeepAlivePace(Duration.ofSeconds(-1)));
    assertThrows(IllegalArgumentException.class, () -> new KeepAlivePace(null));
  }
}
