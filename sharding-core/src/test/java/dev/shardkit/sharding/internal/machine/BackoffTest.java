package dev.shardkit.sharding.internal.machine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.internal.machine.Backoff.Retries;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class BackoffTest {
  private static final long MS = 1_000_000L;

  @Test
  void theWaitGrowsByTheFactorFromTheFirstUpToTheMaximum() {
    Backoff b = new Backoff(Duration.ofMillis(200), Duration.ofSeconds(5), 2);
    assertEquals(Duration.ZERO, b.delay(0));
    assertEquals(Duration.ZERO, b.delay(-3));
    assertEquals(Duration.ofMillis(200), b.delay(1));
    assertEquals(Duration.ofMillis(400), b.delay(2));
    assertEquals(Duration.ofMillis(3200), b.delay(5));
    assertEquals(Duration.ofSeconds(5), b.delay(6));
    assertEquals(Duration.ofSeconds(5), b.delay(Integer.MAX_VALUE));

    Backoff tripling = new Backoff(Duration.ofMillis(10), Duration.ofSeconds(1), 3);
    assertEquals(Duration.ofMillis(90), tripling.delay(3));
    assertEquals(Duration.ofSeconds(1), tripling.delay(6));
  }

  @Test
  void aFactorOfOneAndAZeroFirstWaitAreConstant() {
    Backoff constant = new Backoff(Duration.ofMillis(50), Duration.ofSeconds(1), 1);
    assertEquals(Duration.ofMillis(50), constant.delay(1));
    assertEquals(Duration.ofMillis(50), constant.delay(40));
    Backoff atOnce = new Backoff(Duration.ZERO, Duration.ofSeconds(1), 2);
    assertEquals(Duration.ZERO, atOnce.delay(1));
    assertEquals(Duration.ZERO, atOnce.delay(1000));
  }

  @Test
  void badBoundsAreRefused() {
    assertThrows(IllegalArgumentException.class, () -> new Backoff(Duration.ofMillis(-1), Duration.ZERO, 2));
    assertThrows(IllegalArgumentException.class, () -> new Backoff(Duration.ofSeconds(2), Duration.ofSeconds(1), 2));
    assertThrows(IllegalArgumentException.class, () -> new Backoff(Duration.ZERO, Duration.ofSeconds(1), 0.5));
    assertThrows(IllegalArgumentException.class, () -> new Backoff(Duration.ZERO, Duration.ofSeconds(1), Double.NaN));
  }

  @Test
  void retriesCountFailuresInARowUntilASuccess() {
    Retries r = new Backoff(Duration.ofMillis(100), Duration.ofSeconds(10), 2).retries();
    assertEquals(0, r.failures());
    assertEquals(Duration.ofMillis(100), r.failed());
    assertEquals(Duration.ofMillis(200), r.failed());
    assertEquals(Duration.ofMillis(400), r.failed());
    assertEquals(3, r.failures());
    r.succeeded();
    assertEquals(0, r.failures());
    assertEquals(Duration.ofMillis(100), r.failed());
  }

  @Test
  void retriesOfDifferentOperationsCountApart() {
    Backoff b = new Backoff(Duration.ofMillis(100), Duration.ofSeconds(10), 2);
    Retries loads = b.retries();
    Retries writes = b.retries();
    loads.failed();
    loads.failed();
    assertEquals(Duration.ofMillis(100), writes.failed());
    assertEquals(Duration.ofMillis(400), loads.failed());
  }

  @Test
  void aRunOfFailuresEndsAfterQuietLongerThanTheMaximum() {
    Backoff b = new Backoff(Duration.ofMillis(100), Duration.ofMillis(1000), 2);
    assertTrue(b.continues(0, 0));
    assertTrue(b.continues(0, 1000 * MS));
    assertFalse(b.continues(0, 1000 * MS + 1));
    // nanoTime values may be negative; only their difference counts.
    assertTrue(b.continues(Long.MIN_VALUE + 5, Long.MIN_VALUE + 5 + 999 * MS));
  }
}
