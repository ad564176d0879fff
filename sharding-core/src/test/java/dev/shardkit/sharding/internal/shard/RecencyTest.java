package dev.shardkit.sharding.internal.shard;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class RecencyTest {

  @Test
  void idleEntitiesAreLookedForFourTimesPerTimeout() {
    assertEquals(Duration.ofMillis(500), Recency.checkInterval(Duration.ofSeconds(2)));
  }

  @Test
  void aShortTimeoutIsLookedAtNoMoreOftenThanEvery10Ms() {
    assertEquals(Duration.ofMillis(10), Recency.checkInterval(Duration.ofMillis(20)));
  }

  @Test
  void aLongTimeoutIsLookedAtAtLeastEverySecond() {
    assertEquals(Duration.ofSeconds(1), Recency.checkInterval(Duration.ofMinutes(2)));
  }

  @Test
  void automaticPassivationOffFindsNothingIdleOrBeyondALimit() {
    Recency.OFF.touch("a", 0);
    assertEquals(0, Recency.OFF.idle(0, 1).size());
    assertEquals(0, Recency.OFF.beyond(0).size());
  }
}
