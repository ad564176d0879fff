package dev.shardkit.sharding.internal.region;

import static dev.shardkit.sharding.internal.region.HomeBelief.Told.ANSWER;
import static dev.shardkit.sharding.internal.region.HomeBelief.Told.UP_FRONT;
import static dev.shardkit.sharding.internal.region.HomeBelief.decide;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import dev.shardkit.sharding.internal.region.HomeBelief.CannotHost;
import dev.shardkit.sharding.internal.region.HomeBelief.HostHere;
import dev.shardkit.sharding.internal.region.HomeBelief.HostedHereAlready;
import dev.shardkit.sharding.internal.region.HomeBelief.Ignore;
import dev.shardkit.sharding.internal.region.HomeBelief.LivesThere;
import org.junit.jupiter.api.Test;

/** Arguments: how told, known, region dead, old home closing, handing off, names this region, proxy-only, hosted here. */
class HomeBeliefTest {

  @Test
  void aRegionSeenDeadIsNotBelievedWhateverElseHolds() {
    assertInstanceOf(Ignore.class, decide(ANSWER, false, true, false, false, false, false, false));
    assertInstanceOf(Ignore.class, decide(ANSWER, false, true, false, true, true, false, true));
  }

  @Test
  void whileTheOldHomesLinkHandsBackNoNewHomeIsBelieved() {
    assertEquals(new Ignore("the old home's link is not closed yet"), decide(ANSWER, false, false, true, false, false, false, false));
    assertInstanceOf(Ignore.class, decide(ANSWER, false, false, true, false, true, false, false));
  }

  @Test
  void aShardBeingHandedOffGoesNowhereElseUntilItsMoveCompletes() {
    assertEquals(new Ignore("the shard is being handed off"), decide(ANSWER, false, false, false, true, false, false, true));
  }

  @Test
  void anAnswerNamingThisRegionDuringAHandOffResumesTheShardHere() {
    assertEquals(new HostHere(true), decide(ANSWER, false, false, false, true, true, false, true));
  }

  @Test
  void anAnswerNamingThisRegionHostsTheShardHere() {
    assertEquals(new HostHere(false), decide(ANSWER, false, false, false, false, true, false, false));
    assertEquals(new HostHere(false), decide(ANSWER, false, false, false, false, true, false, true), "already running: kept");
  }

  @Test
  void aProxyOnlyRegionNeverHosts() {
    assertEquals(new CannotHost(), decide(ANSWER, false, false, false, false, true, true, false));
  }

  @Test
  void aShardHostedHereStaysWhenAnotherRegionIsNamed() {
    assertEquals(new HostedHereAlready(), decide(ANSWER, false, false, false, false, false, false, true));
  }

  @Test
  void otherwiseTheShardLivesInTheNamedRegion() {
    assertEquals(new LivesThere(), decide(ANSWER, false, false, false, false, false, false, false));
    assertEquals(new LivesThere(), decide(ANSWER, false, false, false, false, false, true, false), "a proxy routes there too");
  }

  @Test
  void aHomePlacedUpFrontOnlyFillsInWhatIsNotKnown() {
    assertInstanceOf(Ignore.class, decide(UP_FRONT, true, false, false, false, false, false, false));
    assertInstanceOf(Ignore.class, decide(UP_FRONT, false, false, false, true, true, false, false),
        "it never ends a hand-off");
    assertInstanceOf(Ignore.class, decide(UP_FRONT, false, false, false, false, true, true, false),
        "a proxy-only region named: silently not believed");
    assertInstanceOf(Ignore.class, decide(UP_FRONT, false, true, false, false, false, false, false));
    assertEquals(new HostHere(false), decide(UP_FRONT, false, false, false, false, true, false, false));
    assertEquals(new LivesThere(), decide(UP_FRONT, false, false, false, false, false, false, false));
  }

  @Test
  void anAnswerReplacesAKnownHome() {
    assertEquals(new LivesThere(), decide(ANSWER, true, false, false, false, false, false, false));
  }
}
