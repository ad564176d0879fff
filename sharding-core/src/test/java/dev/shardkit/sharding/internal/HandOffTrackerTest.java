package dev.shardkit.sharding.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.internal.HandOffTracker.InProgress;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class HandOffTrackerTest {
  private static ActorTestKit testKit;
  private static ActorRef<Object> r1;
  private static ActorRef<Object> r2;
  private static ActorRef<Object> r3;

  @BeforeAll
  static void start() {
    testKit = TestRefs.remotingTestKit();
    r1 = TestRefs.region(testKit, 1);
    r2 = TestRefs.region(testKit, 2);
    r3 = TestRefs.region(testKit, 3);
  }

  @AfterAll
  static void stop() {
    testKit.shutdownTestKit();
  }

  /** Ids 1, 2, 3, ... */
  private static HandOffTracker tracker() {
    return new HandOffTracker(new AtomicInteger()::incrementAndGet);
  }

  @Test
  void aHandOffTakesItsIdFromTheSourceAndIsInProgressUntilItEnds() {
    HandOffTracker t = tracker();
    assertTrue(t.isEmpty());
    assertEquals(1, t.start("a", r1));
    assertEquals(2, t.start("b", r2));
    assertEquals(new InProgress(r1, 1), t.get("a"));
    assertEquals(Set.of("a", "b"), t.shards());
    assertEquals(List.of("a"), t.ownedBy(r1));
    assertThrows(IllegalStateException.class, () -> t.start("a", r1), "one hand-off of a shard at a time");
    t.ended("a");
    assertFalse(t.inProgress("a"));
    assertEquals(Set.of("b"), t.shards());
  }

  @Test
  void ourHandOffEndsOnlyWithItsOwnRegionAndId() {
    HandOffTracker t = tracker();
    int id = t.start("a", r1);
    assertTrue(t.accepts("a", r1, id, r1));
    assertFalse(t.accepts("a", r1, id + 7, r1), "an older hand-off of the shard");
    assertFalse(t.accepts("a", r2, id, r1), "another region");
  }

  @Test
  void aHandOffInheritedFromAPreviousCoordinatorEndsWhereTheShardLives() {
    HandOffTracker t = tracker();
    // The previous coordinator's id is unknown here: any id not given up is accepted.
    assertTrue(t.accepts("a", r1, 4242, r1), "stopped at its recorded home");
    assertFalse(t.accepts("a", r2, 4242, r1), "stopped at a region that is not its home");
    assertFalse(t.accepts("a", r1, 4242, null), "a shard with no home has nothing to end");
    // Once we hand it off ourselves, only our hand-off ends it.
    int ours = t.start("a", r1);
    assertFalse(t.accepts("a", r1, 4242, r1));
    assertTrue(t.accepts("a", r1, ours, r1));
  }

  @Test
  void aGivenUpHandOffIsNotEndedByALateReport() {
    HandOffTracker t = tracker();
    int id = t.start("a", r1);
    t.waitForHome("a", r2);
    assertEquals(new InProgress(r1, id), t.giveUp("a"));
    assertFalse(t.inProgress("a"));
    assertFalse(t.accepts("a", r1, id, r1), "the late report of the given-up hand-off");
    assertTrue(t.waitingFor("a").isEmpty(), "the waiting regions ask again");
    assertNull(t.giveUp("a"), "nothing left to give up");
  }

  @Test
  void onlyTheNewestGivenUpIdsAreKept() {
    HandOffTracker t = tracker();
    for (int i = 0; i <= HandOffTracker.GIVEN_UP_KEPT; i++) {
      t.start("s" + i, r1);
      t.giveUp("s" + i);
    }
    assertTrue(t.accepts("s0", r1, 1, r1), "the oldest given-up id is forgotten");
    assertFalse(t.accepts("s1", r1, 2, r1));
  }

  @Test
  void regionsWaitingForAHomeHearItWhenTheHandOffEndsFirstAskerFirst() {
    HandOffTracker t = tracker();
    t.start("a", r1);
    t.waitForHome("a", r3);
    t.waitForHome("a", r2);
    t.waitForHome("a", r3);
    assertEquals(List.of(r3, r2), List.copyOf(t.waitingFor("a")));
    assertEquals(List.of(r3, r2), List.copyOf(t.ended("a")));
    assertTrue(t.waitingFor("a").isEmpty());
    assertTrue(t.ended("a").isEmpty(), "ending twice is harmless");
  }

  @Test
  void aRegionShuttingDownIsTrackedUntilItIsGone() {
    HandOffTracker t = tracker();
    assertTrue(t.shutDown(r1));
    assertFalse(t.shutDown(r1), "already shutting down");
    assertEquals(Set.of(r1), t.shuttingDown());
    t.regionGone(r1);
    assertTrue(t.shuttingDown().isEmpty());
  }
}
