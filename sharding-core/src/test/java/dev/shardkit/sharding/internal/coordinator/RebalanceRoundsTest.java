package dev.shardkit.sharding.internal.coordinator;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class RebalanceRoundsTest {
  private static final Duration INTERVAL = Duration.ofSeconds(10);

  @Test
  void theFirstRoundComesOneIntervalAfterSettling() {
    assertEquals(INTERVAL, new RebalanceRounds(INTERVAL).first());
  }

  @Test
  void idleRoundsWaitTwiceAsLongEachTimeUpToEightIntervals() {
    RebalanceRounds rounds = new RebalanceRounds(INTERVAL);
    assertEquals(INTERVAL.multipliedBy(2), rounds.foundNothing());
    assertEquals(INTERVAL.multipliedBy(4), rounds.foundNothing());
    assertEquals(INTERVAL.multipliedBy(8), rounds.foundNothing());
    assertEquals(INTERVAL.multipliedBy(8), rounds.foundNothing(), "never longer than eight intervals");
  }

  @Test
  void aMoveOrAJoiningRegionEndsTheIdleBackOff() {
    RebalanceRounds rounds = new RebalanceRounds(INTERVAL);
    rounds.foundNothing();
    rounds.foundNothing();
    assertEquals(INTERVAL, rounds.moved());
    assertEquals(INTERVAL.multipliedBy(2), rounds.foundNothing(), "idle rounds count again from the first");
  }
}
