package dev.shardkit.sharding.internal;

import static dev.shardkit.sharding.internal.ShardHomeAnswer.decide;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import dev.shardkit.sharding.internal.ShardHomeAnswer.CannotHost;
import dev.shardkit.sharding.internal.ShardHomeAnswer.HostHere;
import dev.shardkit.sharding.internal.ShardHomeAnswer.HostedHereAlready;
import dev.shardkit.sharding.internal.ShardHomeAnswer.Ignore;
import dev.shardkit.sharding.internal.ShardHomeAnswer.LivesThere;
import org.junit.jupiter.api.Test;

/** Arguments: region dead, old home closing, handing off, names this region, proxy-only, hosted here. */
class ShardHomeAnswerTest {

  @Test
  void aRegionSeenDeadIsNotBelievedWhateverElseHolds() {
    assertInstanceOf(Ignore.class, decide(true, false, false, false, false, false));
    assertInstanceOf(Ignore.class, decide(true, false, true, true, false, true));
  }

  @Test
  void whileTheOldHomesLinkHandsBackNoNewHomeIsBelieved() {
    assertEquals(new Ignore("the old home's link is not closed yet"), decide(false, true, false, false, false, false));
    assertInstanceOf(Ignore.class, decide(false, true, false, true, false, false));
  }

  @Test
  void aShardBeingHandedOffGoesNowhereElseUntilItsMoveCompletes() {
    assertEquals(new Ignore("the shard is being handed off"), decide(false, false, true, false, false, true));
  }

  @Test
  void anAnswerNamingThisRegionDuringAHandOffResumesTheShardHere() {
    assertEquals(new HostHere(true), decide(false, false, true, true, false, true));
  }

  @Test
  void anAnswerNamingThisRegionHostsTheShardHere() {
    assertEquals(new HostHere(false), decide(false, false, false, true, false, false));
    assertEquals(new HostHere(false), decide(false, false, false, true, false, true), "already running: kept");
  }

  @Test
  void aProxyOnlyRegionNeverHosts() {
    assertEquals(new CannotHost(), decide(false, false, false, true, true, false));
  }

  @Test
  void aShardHostedHereStaysWhenAnotherRegionIsNamed() {
    assertEquals(new HostedHereAlready(), decide(false, false, false, false, false, true));
  }

  @Test
  void otherwiseTheShardLivesInTheNamedRegion() {
    assertEquals(new LivesThere(), decide(false, false, false, false, false, false));
    assertEquals(new LivesThere(), decide(false, false, false, false, true, false), "a proxy routes there too");
  }
}
