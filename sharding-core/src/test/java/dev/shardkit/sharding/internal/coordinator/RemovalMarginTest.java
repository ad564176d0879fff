package dev.shardkit.sharding.internal.coordinator;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class RemovalMarginTest {
  private static final Duration MARGIN = Duration.ofSeconds(7);

  @Test
  void theShardsOfARemovedNodeWaitForTheMargin() {
    assertEquals(MARGIN, RemovalMargin.before(MARGIN, false, 25));
  }

  @Test
  void aRegionThatStoppedOnALiveNodeOrHostedNothingDoesNotWait() {
    assertEquals(Duration.ZERO, RemovalMargin.before(MARGIN, true, 25));
    assertEquals(Duration.ZERO, RemovalMargin.before(MARGIN, false, 0));
  }

  @Test
  void withoutADowningProviderThereIsNoMargin() {
    assertEquals(Duration.ZERO, RemovalMargin.before(Duration.ZERO, false, 25));
  }
}
