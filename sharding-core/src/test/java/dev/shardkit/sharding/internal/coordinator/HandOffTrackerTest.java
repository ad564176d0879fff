package dev.shardkit.sharding.internal.coordinator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.internal.TestRefs;
import dev.shardkit.sharding.internal.coordinator.HandOffTracker.InProgress;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class HandOffTrackerTest {
  @RegisterExtension static final TestRefs refs = new TestRefs();

  private static ActorRef<Object> r(int n) {
    return refs.region(n);
  }

  /** Ids 1, 2, 3, ... */
  private static HandOffTracker tracker() {
    return new HandOffTracker(new AtomicInteger()::incrementAndGet);
  }

  @Test
  void aHandOffTakesItsIdFromTheSourceAndIsInProgressUntilItEnds() {
    HandOffTracker t = tracker();
    assertTrue(t.isEmpty());
    assertEquals(1, t.start("a", r(1)));
    assertEquals(2, t.start("b", r(2)));
    assertEquals(new InProgress(r(1), 1), t.get("a"));
    assertEquals(Set.of("a", "b"), t.shards());
    assertEquals(List.of("a"), t.ownedBy(r(1)));
    assertThrows(IllegalStateException.class, () -> t.start("a", r(1)), "one hand-off of a shard at a time");
    t.ended("a");
    assertFalse(t.inProgress("a"));
    assertEquals(Set.of("b"), t.shards());
  }

  @Test
  void ourHandOffEndsOnlyWithAReportFromItsOwner() {
    HandOffTracker t = tracker();
    int id = t.start("a", r(1));
    assertTrue(t.accepts("a", r(1), id, r(1)));
    assertTrue(t.accepts("a", r(1), id + 7, r(1)), "a hand-off the owner ran for a previous coordinator");
    assertFalse(t.accepts("a", r(2), id, r(1)), "another region");
  }

  @Test
  void onlyTheOwnerOfAHandOffIfUnstartedInProgressCanDeclineIt() {
    HandOffTracker t = tracker();
    int plain = t.start("a", r(1));
    assertFalse(t.acceptsDecline("a", r(1), plain), "a plain hand-off moves the shard, started or not");
    int ifUnstarted = t.startIfUnstarted("b", r(1));
    assertTrue(t.isIfUnstarted("b"));
    assertFalse(t.isIfUnstarted("a"));
    assertFalse(t.acceptsDecline("b", r(2), ifUnstarted), "another region");
    assertFalse(t.acceptsDecline("b", r(1), ifUnstarted + 1), "another hand-off of the shard");
    assertTrue(t.acceptsDecline("b", r(1), ifUnstarted));
    assertTrue(t.accepts("b", r(1), ifUnstarted, r(1)), "it may end by its shard stopping as well");
    t.ended("b");
    assertFalse(t.acceptsDecline("b", r(1), ifUnstarted), "over");
    assertFalse(t.isIfUnstarted("b"));
    int again = t.start("b", r(1));
    assertFalse(t.isIfUnstarted("b"), "the next hand-off of the shard is a plain one");
    assertFalse(t.acceptsDecline("b", r(1), again));
    t.giveUp("b");
    t.startIfUnstarted("c", r(1));
    t.giveUp("c");
    assertFalse(t.isIfUnstarted("c"), "given up");
  }

  @Test
  void aHandOffInheritedFromAPreviousCoordinatorEndsWhereTheShardLives() {
    HandOffTracker t = tracker();
    // The previous coordinator's id is unknown here: any id not given up is accepted.
    assertTrue(t.accepts("a", r(1), 4242, r(1)), "stopped at its recorded home");
    assertFalse(t.accepts("a", r(2), 4242, r(1)), "stopped at a region that is not its home");
    assertFalse(t.accepts("a", r(1), 4242, null), "a shard with no home has nothing to end");
    // Once we hand it off ourselves, only a report from the region we move it from ends it.
    int ours = t.start("a", r(1));
    assertFalse(t.accepts("a", r(2), 4242, r(1)));
    assertTrue(t.accepts("a", r(1), 4242, r(1)));
    assertTrue(t.accepts("a", r(1), ours, r(1)));
  }

  @Test
  void aGivenUpHandOffIsNotEndedByALateReport() {
    HandOffTracker t = tracker();
    int id = t.start("a", r(1));
    t.waitForHome("a", r(2));
    assertEquals(new InProgress(r(1), id), t.giveUp("a"));
    assertFalse(t.inProgress("a"));
    assertFalse(t.accepts("a", r(1), id, r(1)), "the late report of the given-up hand-off");
    assertTrue(t.waitingFor("a").isEmpty(), "the waiting regions ask again");
    assertNull(t.giveUp("a"), "nothing left to give up");
  }

  @Test
  void onlyTheNewestGivenUpIdsAreKept() {
    HandOffTracker t = tracker();
    for (int i = 0; i <= HandOffTracker.GIVEN_UP_KEPT; i++) {
      t.start("s" + i, r(1));
      t.giveUp("s" + i);
    }
    assertTrue(t.accepts("s0", r(1), 1, r(1)), "the oldest given-up id is forgotten");
    assertFalse(t.accepts("s1", r(1), 2, r(1)));
  }

  @Test
  void regionsWaitingForAHomeHearItWhenTheHandOffEndsFirstAskerFirst() {
    HandOffTracker t = tracker();
    t.start("a", r(1));
    t.waitForHome("a", r(3));
    t.waitForHome("a", r(2));
    t.waitForHome("a", r(3));
    assertEquals(List.of(r(3), r(2)), List.copyOf(t.waitingFor("a")));
    assertEquals(List.of(r(3), r(2)), List.copyOf(t.ended("a")));
    assertTrue(t.waitingFor("a").isEmpty());
    assertTrue(t.ended("a").isEmpty(), "ending twice is harmless");
  }

  @Test
  void aRegionShuttingDownIsTrackedUntilItIsGone() {
    HandOffTracker t = tracker();
    assertTrue(t.shutDown(r(1)));
    assertFalse(t.shutDown(r(1)), "already shutting down");
    assertEquals(Set.of(r(1)), t.shuttingDown());
    t.regionGone(r(1));
    assertTrue(t.shuttingDown().isEmpty());
  }

  @Test
  void theOwnerFinishingAPreviousCoordinatorsHandOffEndsOursFromIt() {
    HandOffTracker t = tracker();
    int ours = t.start("a", r(1));
    assertTrue(t.accepts("a", r(1), 4242, r(1)), "the shard stopped where ours moves it from");
    assertFalse(t.accepts("a", r(2), 4242, r(1)), "not from another region");
    assertFalse(t.accepts("a", r(1), 4242, r(2)), "not where the shard does not live");
    t.giveUp("a");
    t.start("a", r(1));
    assertFalse(t.accepts("a", r(1), ours, r(1)), "not a hand-off we gave up");
  }
}
