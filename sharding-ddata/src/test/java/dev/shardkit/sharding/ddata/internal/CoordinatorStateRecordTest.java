package dev.shardkit.sharding.ddata.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.ddata.internal.CoordinatorStateRecord.Version;
import dev.shardkit.sharding.spi.CoordinatorEvent.RegionRegistered;
import dev.shardkit.sharding.spi.CoordinatorEvent.ShardHomeAllocated;
import dev.shardkit.sharding.spi.CoordinatorEvent.ShardHomeDeallocated;
import dev.shardkit.sharding.spi.CoordinatorState;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The order and merge of replicated coordinator states, and the coordinator-move scenarios that
 * the order must get right: without actors, replicas are just merges of records.
 */
class CoordinatorStateRecordTest {
  private static ActorTestKit testKit;
  private static ActorRef<Object> r1;
  private static ActorRef<Object> r2;

  // Three coordinators, one after another.
  private static final String A = "node-a#1/1";
  private static final String B = "node-b#2/1";
  private static final String C = "node-c#3/1";

  @BeforeAll
  static void start() {
    testKit = ActorTestKit.create();
    // Probes only provide distinct, real ActorRef identities.
    r1 = testKit.createTestProbe(Object.class).ref().unsafeUpcast();
    r2 = testKit.createTestProbe(Object.class).ref().unsafeUpcast();
  }

  @AfterAll
  static void stop() {
    testKit.shutdownTestKit();
  }

  private static final CoordinatorState S0 = CoordinatorState.empty();

  private static CoordinatorState withShards(String... shards) {
    CoordinatorState s = S0.applied(new RegionRegistered(r1)).applied(new RegionRegistered(r2));
    for (int i = 0; i < shards.length; i++) {
      s = s.applied(new ShardHomeAllocated(shards[i], i % 2 == 0 ? r1 : r2));
    }
    return s;
  }

  /** What a replica holds after receiving these records in this order. */
  private static CoordinatorStateRecord replica(CoordinatorStateRecord... received) {
    CoordinatorStateRecord held = received[0];
    for (int i = 1; i < received.length; i++) {
      held = held.mergeData(received[i]);
    }
    return held;
  }

  @Test
  void aFirstTakeOverStartsEmptyAtTermOne() {
    CoordinatorStateRecord first = CoordinatorStateRecord.takeOver(Optional.empty(), 0, A);
    assertEquals(new Version(1, 0, A), first.version());
    assertEquals(Version.NONE, first.basis());
    assertSame(CoordinatorState.empty(), first.state());
  }

  @Test
  void aTakeOverKeepsTheLoadedStateUnderATermAboveEverySeenOne() {
    CoordinatorStateRecord loaded = new CoordinatorStateRecord(new Version(3, 7, A), new Version(3, 6, A),
        withShards("s1", "s2"));
    CoordinatorStateRecord claim = CoordinatorStateRecord.takeOver(Optional.of(loaded), 0, B);
    assertEquals(new Version(4, 0, B), claim.version());
    assertEquals(loaded.version(), claim.basis());
    assertEquals(loaded.state(), claim.state());

    // A take-over tried again after its write timed out uses a term it has not used yet.
    CoordinatorStateRecord again = CoordinatorStateRecord.takeOver(Optional.of(loaded), claim.version().term(), B);
    assertEquals(5, again.version().term());
  }

  @Test
  void aWriteFollowsInTheSameTermWithAGreaterSeq() {
    CoordinatorStateRecord claim = CoordinatorStateRecord.takeOver(Optional.empty(), 0, A);
    CoordinatorStateRecord next = claim.followedBy(1, withShards("s1"));
    assertEquals(new Version(1, 1, A), next.version());
    assertEquals(claim.version(), next.basis());
    assertTrue(next.compareTo(claim) > 0);
    assertThrows(IllegalArgumentException.class, () -> next.followedBy(1, withShards("s1", "s2")));
    assertThrows(IllegalArgumentException.class, () -> new Version(-1, 0, A));
    assertThrows(IllegalArgumentException.class, () -> new CoordinatorStateRecord(claim.version(), null, S0));
  }

  @Test
  void mergeIsCommutativeAssociativeAndIdempotent() {
    List<CoordinatorStateRecord> records = new ArrayList<>();
    String[] writers = {A, B, C};
    for (long term = 0; term < 3; term++) {
      for (long seq = 0; seq < 3; seq++) {
        for (String writer : writers) {
          for (long basisSeq = 0; basisSeq < 2; basisSeq++) {
            records.add(new CoordinatorStateRecord(new Version(term, seq, writer), new Version(term, basisSeq, writer),
                withShards("s" + term + seq)));
          }
        }
      }
    }
    for (CoordinatorStateRecord x : records) {
      assertSame(x, x.mergeData(x));
      for (CoordinatorStateRecord y : records) {
        assertEquals(x.mergeData(y), y.mergeData(x));
        // A total order: two records compare equal only if they are the same record.
        assertEquals(x.equals(y), x.compareTo(y) == 0, x + " vs " + y);
        for (CoordinatorStateRecord z : List.of(records.get(0), records.get(17), records.get(records.size() - 1))) {
          assertEquals(x.mergeData(y).mergeData(z), x.mergeData(y.mergeData(z)));
        }
      }
    }
  }

  @Test
  void aStrayWriteOfThePredecessorLosesToEverythingTheSuccessorWrites() {
    CoordinatorStateRecord aClaim = CoordinatorStateRecord.takeOver(Optional.empty(), 0, A);
    CoordinatorStateRecord aConfirmed = aClaim.followedBy(1, withShards("s1"));
    // A's next write reached one node, then A's node went away: a stray with a greater seq.
    CoordinatorStateRecord aStray = aConfirmed.followedBy(2, withShards("s1", "s2"));

    // B's majority read did not include the stray.
    CoordinatorStateRecord bClaim = CoordinatorStateRecord.takeOver(Optional.of(aConfirmed), 0, B);
    CoordinatorStateRecord bWrite = bClaim.followedBy(1,
        withShards("s1").applied(new ShardHomeAllocated("s3", r2)));

    // Whenever gossip brings the stray along, replicas keep B's records.
    assertSame(bClaim, replica(bClaim, aStray));
    assertSame(bClaim, replica(aStray, bClaim));
    assertSame(bWrite, replica(aStray, bWrite, aConfirmed));
    assertSame(bWrite, replica(bWrite, aStray));
  }

  @Test
  void aRetriedWriteWinsOverTheAttemptThatTimedOut() {
    CoordinatorStateRecord claim = CoordinatorStateRecord.takeOver(Optional.empty(), 0, A);
    CoordinatorState next = withShards("s1");
    CoordinatorStateRecord timedOut = claim.followedBy(1, next);
    CoordinatorStateRecord retry = claim.followedBy(2, next);
    assertSame(retry, replica(retry, timedOut));
    assertSame(retry, replica(timedOut, retry));
  }

  @Test
  void aSuccessorThatSawAStrayTakeOverTakesOverAboveIt() {
    CoordinatorStateRecord aConfirmed = CoordinatorStateRecord.takeOver(Optional.empty(), 0, A).followedBy(1,
        withShards("s1"));
    // B took over, but its take-over write timed out: B never served.
    CoordinatorStateRecord bStray = CoordinatorStateRecord.takeOver(Optional.of(aConfirmed), 0, B);
    CoordinatorStateRecord loadedByC = replica(aConfirmed, bStray);
    CoordinatorStateRecord cClaim = CoordinatorStateRecord.takeOver(Optional.of(loadedByC), 0, C);
    assertEquals(3, cClaim.version().term());
    assertEquals(aConfirmed.state(), cClaim.state());
  }

  @Test
  void ofTwoTakeOversInOneTermTheOneFromTheLaterStateWins() {
    CoordinatorStateRecord aConfirmed = CoordinatorStateRecord.takeOver(Optional.empty(), 0, A).followedBy(1,
        withShards("s1", "s2"));
    // A's last write, a hand-off's deallocation, reached only some nodes.
    CoordinatorStateRecord aStray = aConfirmed.followedBy(2,
        aConfirmed.state().applied(new ShardHomeDeallocated("s2")));

    // B read the stray; its take-over timed out and B never served. C did not see B's take-over
    // nor the stray, took over in the same term and served from A's confirmed state.
    CoordinatorStateRecord bStray = CoordinatorStateRecord.takeOver(Optional.of(aStray), 0, B);
    CoordinatorStateRecord cClaim = CoordinatorStateRecord.takeOver(Optional.of(aConfirmed), 0, C);
    assertEquals(bStray.version().term(), cClaim.version().term());
    // The later state wins, whichever writer's name sorts first: never a step back.
    assertSame(bStray, replica(cClaim, bStray));
    assertSame(bStray, replica(bStray, cClaim));

    // The other way round, C's take-over from the later state wins over B's from the earlier.
    CoordinatorStateRecord bStray2 = CoordinatorStateRecord.takeOver(Optional.of(aConfirmed), 0, B);
    CoordinatorStateRecord cClaim2 = CoordinatorStateRecord.takeOver(Optional.of(aStray), 0, C);
    assertSame(cClaim2, replica(bStray2, cClaim2));

    // And any write C stores after its take-over wins over B's stray take-over.
    CoordinatorStateRecord cWrite = cClaim.followedBy(1, withShards("s1", "s2", "s3"));
    assertSame(cWrite, replica(bStray, cWrite));
    assertSame(cWrite, replica(cWrite, bStray));
  }
}
