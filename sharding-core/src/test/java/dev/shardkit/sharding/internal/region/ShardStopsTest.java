package dev.shardkit.sharding.internal.region;

import static dev.shardkit.sharding.internal.region.ShardStops.decide;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.shardkit.sharding.internal.region.ShardStops.HandedOff;
import dev.shardkit.sharding.internal.region.ShardStops.NotHosted;
import dev.shardkit.sharding.internal.region.ShardStops.Unexpected;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ShardStopsTest {

  private static final Duration BACKOFF = Duration.ofMillis(250);
  private static final OwnerHandOffs.Stopped<String> STOPPED = new OwnerHandOffs.Stopped<>("7", 3);

  @Test
  void aShardStoppingAtTheEndOfItsHandOffCompletesTheMove() {
    assertEquals(new HandedOff<>(STOPPED), decide(Optional.of(STOPPED), false, true, BACKOFF));
    assertEquals(new HandedOff<>(STOPPED), decide(Optional.of(STOPPED), true, false, BACKOFF));
  }

  @Test
  void aShardWithRememberedEntitiesStartsAgainAfterTheBackOff() {
    Unexpected<String> outcome = (Unexpected<String>) decide(Optional.<OwnerHandOffs.Stopped<String>>empty(), true, true, BACKOFF);
    assertEquals(Optional.of(BACKOFF), outcome.restartAfter());
    assertEquals("in 250 ms with its remembered entities", outcome.when());
  }

  @Test
  void anyOtherShardStartsAgainWithItsNextMessage() {
    Unexpected<String> outcome = (Unexpected<String>) decide(Optional.<OwnerHandOffs.Stopped<String>>empty(), true, false, BACKOFF);
    assertEquals(Optional.empty(), outcome.restartAfter());
    assertEquals("with its next message", outcome.when());
  }

  @Test
  void aShardNoLongerHostedHereNeedsNothing() {
    assertEquals(new NotHosted<>(), decide(Optional.<OwnerHandOffs.Stopped<String>>empty(), false, true, BACKOFF));
  }
}
