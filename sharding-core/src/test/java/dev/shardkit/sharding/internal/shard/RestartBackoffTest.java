package dev.shardkit.sharding.internal.shard;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class RestartBackoffTest {
  private static final long MS = 1_000_000L;

  @Test
  void delaysDoubleFromTheFirstUpToTheMaximum() {
    RestartBackoff b = new RestartBackoff(Duration.ofMillis(100), Duration.ofMillis(1000));
    assertEquals(Duration.ZERO, b.delay(0));
    assertEquals(Duration.ofMillis(100), b.delay(1));
    assertEquals(Duration.ofMillis(200), b.delay(2));
    assertEquals(Duration.ofMillis(400), b.delay(3));
    assertEquals(Duration.ofMillis(800), b.delay(4));
    assertEquals(Duration.ofMillis(1000), b.delay(5));
    assertEquals(Duration.ofMillis(1000), b.delay(500));
  }

  @Test
  void failuresSoonAfterTheRestartCountInARow() {
    RestartBackoff b = new RestartBackoff(Duration.ofMillis(100), Duration.ofMillis(1000));
    assertEquals(1, b.failed("a", 0));
    // Restarted at 100 ms, failed right after.
    assertEquals(2, b.failed("a", 110 * MS));
    // Restarted at 310 ms, failed 900 ms later: still within the maximum.
    assertEquals(3, b.failed("a", 1210 * MS));
    // Other entities count on their own.
    assertEquals(1, b.failed("b", 1210 * MS));
  }

  @Test
  void anEntityThatRunsLongerThanTheMaximumStartsOver() {
    RestartBackoff b = new RestartBackoff(Duration.ofMillis(100), Duration.ofMillis(1000));
    assertEquals(1, b.failed("a", 0));
    assertEquals(2, b.failed("a", 150 * MS));
    // Restarted at 350 ms and ran for over a second.
    assertEquals(1, b.failed("a", 1400 * MS));
  }

  @Test
  void longOverFailuresAreForgotten() {
    RestartBackoff b = new RestartBackoff(Duration.ofMillis(1), Duration.ofMillis(10));
    for (int i = 0; i < 2000; i++) {
      b.failed("e" + i, 0);
    }
    b.failed("late", 1000 * MS);
    assertEquals(1, b.tracked());
  }

  @Test
  void aZeroFirstBackoffRestartsAtOnce() {
    RestartBackoff b = new RestartBackoff(Duration.ZERO, Duration.ofMillis(100));
    assertEquals(Duration.ZERO, b.delay(1));
    assertEquals(Duration.ZERO, b.delay(3));
  }
}
