package dev.shardkit.sharding.internal.coordinator;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Set;
import org.junit.jupiter.api.Test;

class HandOffAudienceTest {
  private static final Set<String> EVERYONE = Set.of("a", "b", "leaving", "done", "proxy");
  private static final Set<String> SHUTTING_DOWN = Set.of("leaving", "done");

  @Test
  void aRegionShuttingDownTakesPartWhileItHasShardsAndNotOnceItHasNone() {
    Set<String> withShards = Set.of("a", "b", "leaving");
    assertEquals(Set.of("a", "b", "leaving", "proxy"),
        HandOffAudience.participants(EVERYONE, SHUTTING_DOWN, withShards::contains));
  }

  @Test
  void regionsAndProxiesThatAreNotShuttingDownTakePartWithOrWithoutShards() {
    assertEquals(EVERYONE, HandOffAudience.participants(EVERYONE, Set.of(), r -> false));
  }

  @Test
  void aMovedShardsNextHomeGoesToEveryoneButTheRegionsShuttingDown() {
    assertEquals(Set.of("a", "b", "proxy"), HandOffAudience.toldNewHome(EVERYONE, SHUTTING_DOWN, Set.of()));
  }

  @Test
  void aRegionShuttingDownThatAskedForTheHomeHearsIt() {
    assertEquals(Set.of("a", "b", "proxy", "done"), HandOffAudience.toldNewHome(EVERYONE, SHUTTING_DOWN, Set.of("done")));
  }

  @Test
  void anAskerThatIsNoLongerRegisteredIsNotTold() {
    // A region that asked and is gone since (its end stored) is not one to tell.
    assertEquals(Set.of("a", "b", "proxy"), HandOffAudience.toldNewHome(EVERYONE, SHUTTING_DOWN, Set.of("gone")));
  }
}
