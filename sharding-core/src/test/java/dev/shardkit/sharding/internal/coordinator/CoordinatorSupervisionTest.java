package dev.shardkit.sharding.internal.coordinator;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class CoordinatorSupervisionTest {
  private static final long SECOND = 1_000_000_000L;

  @Test
  void theBackOffDoublesForFailuresInARowUpToTheMaximum() {
    CoordinatorSupervision s = new CoordinatorSupervision(Duration.ofMillis(100), Duration.ofMillis(500), 0.2);
    assertEquals(Duration.ofMillis(100), s.failed(0, 0));
    s.restarted(0);
    assertEquals(Duration.ofMillis(200), s.failed(1, 0));
    s.restarted(1);
    assertEquals(Duration.ofMillis(400), s.failed(2, 0));
    s.restarted(2);
    assertEquals(Duration.ofMillis(500), s.failed(3, 0), "capped");
    assertEquals(4, s.failuresInARow());
  }

  @Test
  void theRandomDrawStretchesItByUpToTheRandomFactor() {
    CoordinatorSupervision s = new CoordinatorSupervision(Duration.ofMillis(100), Duration.ofMillis(500), 0.2);
    assertEquals(Duration.ofMillis(110), s.failed(0, 0.5));
  }

  @Test
  void aCoordinatorThatRanLongEnoughWithoutFailingStartsOverFromTheMinimum() {
    CoordinatorSupervision s = new CoordinatorSupervision(Duration.ofMillis(100), Duration.ofSeconds(1), 0);
    s.failed(0, 0);
    s.restarted(0);
    assertEquals(Duration.ofMillis(200), s.failed(SECOND / 2 - 1, 0), "within (min + max) / 2: in a row");
    s.restarted(SECOND);
    assertEquals(Duration.ofMillis(100), s.failed(2 * SECOND, 0), "after it: the count starts over");
  }
}
