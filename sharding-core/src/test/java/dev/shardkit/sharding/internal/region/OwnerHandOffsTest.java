package dev.shardkit.sharding.internal.region;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.internal.region.OwnerHandOffs.Cancelled;
import dev.shardkit.sharding.internal.region.OwnerHandOffs.Step;
import dev.shardkit.sharding.internal.region.OwnerHandOffs.StopShard;
import dev.shardkit.sharding.internal.region.OwnerHandOffs.Stopped;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The owner side of a hand-off, with regions and shards as plain names. */
class OwnerHandOffsTest {
  private static final String SELF = "self";

  private final OwnerHandOffs<String, String> handOffs = new OwnerHandOffs<>();

  @Test
  void theShardStopsOnlyOnceEveryMarkerIsInAndTheOwnRouteIsClosed() {
    Set<String> awaited = handOffs.begin("s1", 1, "shard-s1", Set.of(SELF, "r1", "r2"), SELF);
    assertEquals(Set.of("r1", "r2"), awaited, "the owner awaits no marker from itself");
    assertTrue(handOffs.isHandingOff("s1"));
    assertEquals(Set.of("s1"), handOffs.shardIds(), "a shard being handed off still lives here");

    assertEquals(Optional.empty(), handOffs.marker("s1", 1, "r1"));
    assertEquals(Optional.empty(), handOffs.ownRouteClosed("s1", 1), "r2 may still send");
    assertEquals(Optional.of(new StopShard<>("s1", "shard-s1")), handOffs.marker("s1", 1, "r2"));
    assertTrue(handOffs.isHandingOff("s1"), "the move ends when the shard has terminated");
  }

  @Test
  void aShardStartedForMessagesBeforeTheMarkersIsWaitedForAndThenStopped() {
    handOffs.begin("s1", 2, null, Set.of("r1"), SELF);
    assertEquals(Optional.empty(), handOffs.stillRunning("s1"));
    assertTrue(handOffs.startFor("s1"), "a message came before r1's marker and no shard runs here");
    assertFalse(handOffs.startFor("s1"), "it starts once");
    assertTrue(handOffs.awaitsStart("s1"));
    assertEquals(Optional.empty(), handOffs.ownRouteClosed("s1", 2));
    assertEquals(Optional.empty(), handOffs.marker("s1", 2, "r1"), "every route is closed, but the shard is starting");
    assertEquals(Optional.of(new StopShard<>("s1", "shard-s1")), handOffs.started("s1", "shard-s1"));
    assertFalse(handOffs.awaitsStart("s1"));
    assertEquals(Optional.of(new Stopped<>("s1", 2)), handOffs.shardTerminated("s1"));
    assertThrows(IllegalStateException.class, () -> handOffs.started("s1", "shard-s1"), "no move awaits it");
  }

  @Test
  void aShardStartedForAMoveTakesMessagesUntilItsMarkersAreIn() {
    handOffs.begin("s1", 2, null, Set.of("r1"), SELF);
    handOffs.startFor("s1");
    assertEquals(Optional.empty(), handOffs.started("s1", "shard-s1"), "r1's marker is still awaited");
    assertEquals(Optional.of("shard-s1"), handOffs.stillRunning("s1"));
    assertFalse(handOffs.startFor("s1"), "it runs");
  }

  @Test
  void noShardStartsForAMoveIfUnstartedOrOneThatRuns() {
    handOffs.begin("s1", 1, null, Set.of("r1"), SELF, true);
    assertFalse(handOffs.startFor("s1"), "a message declines a move if unstarted instead");
    handOffs.begin("s2", 1, "shard-s2", Set.of("r1"), SELF);
    assertFalse(handOffs.startFor("s2"));
    assertFalse(handOffs.startFor("s3"), "no move");
  }

  @Test
  void theOwnRouteClosingLastStopsTheShard() {
    handOffs.begin("s1", 1, "shard-s1", Set.of("r1"), SELF);
    assertEquals(Optional.empty(), handOffs.marker("s1", 1, "r1"));
    assertEquals(Optional.of(new StopShard<>("s1", "shard-s1")), handOffs.ownRouteClosed("s1", 1));
  }

  @Test
  void theShardTerminatingAfterItWasToldToStopCompletesTheMove() {
    handOffs.begin("s1", 4, "shard-s1", Set.of(), SELF);
    handOffs.ownRouteClosed("s1", 4);

    assertEquals(Optional.of(new Stopped<>("s1", 4)), handOffs.shardTerminated("s1"));
    assertFalse(handOffs.isHandingOff("s1"));
    assertTrue(handOffs.isEmpty());
    assertEquals(Optional.empty(), handOffs.shardTerminated("s1"), "a move completes once");
  }

  @Test
  void aShardThatStopsBeforeEveryRouteIsClosedStoppedUnexpectedly() {
    handOffs.begin("s1", 1, "shard-s1", Set.of("r1"), SELF);
    handOffs.ownRouteClosed("s1", 1);
    assertEquals(Optional.empty(), handOffs.shardTerminated("s1"));
    assertTrue(handOffs.isHandingOff("s1"), "the move still waits for r1's marker");
  }

  @Test
  void withoutAShardRunningHereTheMoveCompletesWhenEveryRouteIsClosed() {
    handOffs.begin("s1", 2, null, Set.of("r1"), SELF);
    handOffs.ownRouteClosed("s1", 2);
    assertEquals(Optional.of(new Stopped<>("s1", 2)), handOffs.marker("s1", 2, "r1"));
    assertTrue(handOffs.isEmpty());
  }

  @Test
  void aMoveIfUnstartedCompletesWithoutAShardOrIsDeclinableUntilThen() {
    assertThrows(IllegalArgumentException.class,
        () -> handOffs.begin("s0", 1, "shard-s0", Set.of("r1"), SELF, true), "a running shard is declined at once");
    assertFalse(handOffs.isHandingOff("s0"));
    handOffs.begin("s1", 3, null, Set.of("r1"), SELF, true);
    handOffs.begin("s2", 4, null, Set.of("r1"), SELF);
    assertEquals(OptionalInt.of(3), handOffs.declinable("s1"));
    assertEquals(OptionalInt.empty(), handOffs.declinable("s2"), "a plain move is never declined");
    handOffs.cancel("s1");
    assertEquals(OptionalInt.empty(), handOffs.declinable("s1"), "declined once");
    assertEquals(Optional.empty(), handOffs.marker("s1", 3, "r1"), "a late marker of the declined move counts for nothing");

    handOffs.begin("s3", 5, null, Set.of("r1"), SELF, true);
    handOffs.ownRouteClosed("s3", 5);
    assertEquals(Optional.of(new Stopped<>("s3", 5)), handOffs.marker("s3", 5, "r1"), "nothing ran: nothing to stop");
    assertEquals(OptionalInt.empty(), handOffs.declinable("s3"), "completed: no longer declinable");
  }

  @Test
  void messagesFromRegionsWhoseMarkerIsNotInGoToTheRunningShardUntilItIsToldToStop() {
    assertEquals(Optional.empty(), handOffs.stillRunning("s1"), "not being handed off");
    handOffs.begin("s1", 1, "shard-s1", Set.of("r1"), SELF);
    handOffs.ownRouteClosed("s1", 1);
    assertEquals(Optional.of("shard-s1"), handOffs.stillRunning("s1"));

    handOffs.marker("s1", 1, "r1");
    assertEquals(Optional.empty(), handOffs.stillRunning("s1"), "stopping: the next home takes them");
  }

  @Test
  void aMarkerThatComesBeforeItsMoveBeganCountsWhenItBegins() {
    assertEquals(Optional.empty(), handOffs.marker("s1", 3, "r1"));
    assertFalse(handOffs.isHandingOff("s1"), "an early marker begins nothing");

    assertEquals(Set.of("r2"), handOffs.begin("s1", 3, "shard-s1", Set.of("r1", "r2"), SELF));
  }

  @Test
  void anEarlyMarkerOfAnotherMoveDoesNotCount() {
    handOffs.marker("s1", 2, "r1");
    assertEquals(Set.of("r1"), handOffs.begin("s1", 3, "shard-s1", Set.of("r1"), SELF));
  }

  @Test
  void earlyMarkersOfOtherMovesAreForgottenWhenAMoveBegins() {
    handOffs.marker("s1", 2, "r1");
    handOffs.begin("s1", 3, "shard-s1", Set.of("r1"), SELF);
    handOffs.cancel("s1");
    // Move 2 never began here; its marker must not count if it did begin after all.
    assertEquals(Set.of("r1"), handOffs.begin("s1", 2, "shard-s1", Set.of("r1"), SELF));
  }

  @Test
  void aMarkerOfAMoveThatWasGivenUpDoesNotCountForTheNext() {
    handOffs.begin("s1", 1, "shard-s1", Set.of("r1"), SELF);
    handOffs.cancel("s1");
    handOffs.begin("s1", 2, "shard-s1", Set.of("r1"), SELF);
    handOffs.ownRouteClosed("s1", 2);

    assertEquals(Optional.empty(), handOffs.marker("s1", 1, "r1"));
    assertEquals(Optional.empty(), handOffs.ownRouteClosed("s1", 1), "nor does the old move's route closing");
    assertEquals(Optional.of(new StopShard<>("s1", "shard-s1")), handOffs.marker("s1", 2, "r1"));
  }

  @Test
  void aRepeatedMarkerCountsOnce() {
    handOffs.begin("s1", 1, "shard-s1", Set.of("r1", "r2"), SELF);
    handOffs.ownRouteClosed("s1", 1);
    handOffs.marker("s1", 1, "r1");
    assertEquals(Optional.empty(), handOffs.marker("s1", 1, "r1"));
    assertTrue(handOffs.stillRunning("s1").isPresent());
  }

  @Test
  void aRegionThatIsGoneSendsNothingMoreToAnyShard() {
    handOffs.begin("s1", 1, "shard-s1", Set.of("r1"), SELF);
    handOffs.begin("s2", 1, null, Set.of("r1", "r2"), SELF);
    handOffs.begin("s3", 1, "shard-s3", Set.of("r2"), SELF);
    handOffs.ownRouteClosed("s1", 1);
    handOffs.ownRouteClosed("s2", 1);
    handOffs.ownRouteClosed("s3", 1);

    List<Step<String>> steps = handOffs.regionGone("r1");
    assertEquals(List.of(new StopShard<>("s1", "shard-s1")), steps);
    assertEquals(List.of(new Stopped<String>("s2", 1)), handOffs.regionGone("r2").stream()
        .filter(s -> s.shardId().equals("s2")).toList());
  }

  @Test
  void aRegionGoneWhileTheOwnRouteIsOpenDoesNotStopTheShardYet() {
    handOffs.begin("s1", 1, "shard-s1", Set.of("r1"), SELF);
    assertEquals(List.of(), handOffs.regionGone("r1"));
    assertEquals(Optional.of(new StopShard<>("s1", "shard-s1")), handOffs.ownRouteClosed("s1", 1));
  }

  @Test
  void aMoveGivenUpBeforeTheShardWasToldToStopLeavesItRunning() {
    handOffs.begin("s1", 1, "shard-s1", Set.of("r1"), SELF);
    assertEquals(new Cancelled<>(Optional.of("shard-s1"), false), handOffs.cancel("s1"));
    assertFalse(handOffs.isHandingOff("s1"));
    assertEquals(Optional.empty(), handOffs.ownRouteClosed("s1", 1), "its route closing afterwards does nothing");
  }

  @Test
  void aMoveGivenUpAfterTheShardWasToldToStopTellsItToGoOn() {
    handOffs.begin("s1", 1, "shard-s1", Set.of(), SELF);
    handOffs.ownRouteClosed("s1", 1);
    assertEquals(new Cancelled<>(Optional.of("shard-s1"), true), handOffs.cancel("s1"));
    assertEquals(Optional.empty(), handOffs.shardTerminated("s1"), "its termination is unexpected now");
  }

  @Test
  void aMoveGivenUpWithoutAShardHereHasNothingToResume() {
    handOffs.begin("s1", 1, null, Set.of("r1"), SELF);
    assertEquals(new Cancelled<String>(Optional.empty(), false), handOffs.cancel("s1"));
  }

  @Test
  void oneMoveOfAShardAtATime() {
    handOffs.begin("s1", 1, "shard-s1", Set.of(), SELF);
    assertThrows(IllegalStateException.class, () -> handOffs.begin("s1", 2, "shard-s1", Set.of(), SELF));
    assertThrows(IllegalStateException.class, () -> handOffs.cancel("s2"));
  }

  @Test
  void anEarlyMarkerOfAMoveThatNeverBeginsHereIsForgottenAtTheSecondSweep() {
    assertEquals(Optional.empty(), handOffs.marker("s1", 7, "r1"));
    assertEquals(0, handOffs.sweepEarly(), "kept at least one hand-off timeout");
    assertEquals(1, handOffs.earlyMoves());
    assertEquals(1, handOffs.sweepEarly());
    assertEquals(0, handOffs.earlyMoves());
    assertEquals(Set.of("r1"), handOffs.begin("s1", 7, "shard-s1", Set.of("r1"), SELF),
        "a move beginning that late was given up by the coordinator; its marker no longer counts");
  }

  @Test
  void anEarlyMarkerCountsIfItsMoveBeginsBeforeTheSecondSweep() {
    handOffs.marker("s1", 7, "r1");
    handOffs.sweepEarly();
    assertEquals(Set.of("r2"), handOffs.begin("s1", 7, "shard-s1", Set.of("r1", "r2"), SELF));
    assertEquals(0, handOffs.earlyMoves(), "it was used up by its move");
  }

  @Test
  void aLateMarkerOfACancelledMoveIsForgottenByTheSweeps() {
    handOffs.begin("s1", 1, "shard-s1", Set.of("r1", "r2"), SELF);
    handOffs.marker("s1", 1, "r1");
    handOffs.cancel("s1");
    assertEquals(Optional.empty(), handOffs.marker("s1", 1, "r2"), "it arrives after the move was given up");
    assertEquals(1, handOffs.earlyMoves());
    handOffs.sweepEarly();
    handOffs.sweepEarly();
    assertEquals(0, handOffs.earlyMoves());
  }

  @Test
  void earlyMarkersOfASupersededMoveAreForgottenWhenTheNextMoveBegins() {
    handOffs.marker("s1", 1, "r1");
    handOffs.marker("s2", 1, "r1");
    handOffs.begin("s1", 2, "shard-s1", Set.of("r1"), SELF);
    assertEquals(1, handOffs.earlyMoves(), "only the other shard's move is still kept");
  }
}
