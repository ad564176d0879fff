package dev.shardkit.sharding.persistence.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.persistence.internal.LastCoordinatorWrite.Written;
import dev.shardkit.sharding.persistence.internal.StoredEvent.Kind;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * What {@code RemoveShardingData} reads from a coordinator's events: the last one's write time,
 * the node of the last take-over or keep-alive before it, and whether the coordinator has been quiet long
 * enough; an unknown or future time never counts as quiet.
 */
class LastCoordinatorWriteTest {
  static final String A = "pekko://Cluster@10.0.0.1:25520";
  static final String B = "pekko://Cluster@10.0.0.2:25520";
  static final String REGION = "pekko://Cluster@10.0.0.2:25520/system/sharding/Cart#1";
  static final Instant T = Instant.parse("2026-11-24T06:00:00Z");
  static final Duration QUIET = Duration.ofSeconds(60);
  /** No snapshot, or one that names no node. */
  static final Optional<String> NONE = Optional.empty();

  static Written at(long seqNr, Instant time, Object event) {
    return new Written(seqNr, time.toEpochMilli(), event);
  }

  @Test
  void theLastEventsTimeAndTheNodeOfTheLastTakeOverBeforeIt() {
    Optional<LastCoordinatorWrite> last = LastCoordinatorWrite.of(List.of(
        at(1, T, StoredEvent.takenOver(A)),
        at(2, T.plusSeconds(1), new StoredEvent(Kind.REGION_REGISTERED, REGION, null)),
        at(3, T.plusSeconds(5), StoredEvent.takenOver(B)),
        at(4, T.plusSeconds(9), new StoredEvent(Kind.SHARD_HOME_ALLOCATED, REGION, "7"))), NONE);
    assertEquals(Optional.of(new LastCoordinatorWrite(4, Optional.of(T.plusSeconds(9)), Optional.of(B))), last);
    String described = last.get().describe(T.plusSeconds(19));
    assertTrue(described.contains("at 2026-11-24T06:00:09Z (10.0 s ago)"), described);
    assertTrue(described.contains("by node " + B), described);
    assertTrue(described.contains("event #4"), described);
  }

  @Test
  void anIdleCoordinatorsLastWriteIsItsKeepAliveNamingItsNodeAfterItsTakeOverIsDeleted() {
    // Behind a snapshot of an earlier coordinator's node (B), only A's keep-alives are left.
    Optional<LastCoordinatorWrite> last = LastCoordinatorWrite.of(List.of(
        at(1001, T, StoredEvent.keptAlive(A)), at(1002, T.plusSeconds(15), StoredEvent.keptAlive(A))),
        Optional.of(B));
    assertEquals(Optional.of(new LastCoordinatorWrite(1002, Optional.of(T.plusSeconds(15)), Optional.of(A))), last);
    // After a take-over, the keep-alives are the new coordinator's.
    LastCoordinatorWrite afterTakeOver = LastCoordinatorWrite.of(List.of(at(1, T, StoredEvent.keptAlive(A)),
        at(2, T, StoredEvent.takenOver(B)), at(3, T, StoredEvent.keptAlive(B))), NONE).orElseThrow();
    assertEquals(Optional.of(B), afterTakeOver.node());
  }

  @Test
  void nothingStoredIsNoWrite() {
    assertEquals(Optional.empty(), LastCoordinatorWrite.of(List.of(), NONE));
  }

  @Test
  void aTakeOverDeletedBehindASnapshotIsNamedByTheSnapshot() {
    List<Written> later = List.of(at(1001, T, new StoredEvent(Kind.SHARD_HOME_DEALLOCATED, null, "3")));
    assertEquals(Optional.of(B), LastCoordinatorWrite.of(later, Optional.of(B)).orElseThrow().node());
    // A take-over among the events is later than the snapshot's, or the same.
    List<Written> withTakeOver = List.of(at(1001, T, StoredEvent.takenOver(A)),
        at(1002, T, new StoredEvent(Kind.SHARD_HOME_DEALLOCATED, null, "3")));
    assertEquals(Optional.of(A), LastCoordinatorWrite.of(withTakeOver, Optional.of(B)).orElseThrow().node());
    assertEquals(Optional.empty(), LastCoordinatorWrite.of(List.of(), Optional.of(B)), "no event: nothing stored");
  }

  @Test
  void aTakeOverThatIsGoneOrStoredNoNodeLeavesTheNodeUnknown() {
    // Deleted behind a snapshot that names no node: only later events remain.
    LastCoordinatorWrite deleted = LastCoordinatorWrite.of(List.of(
        at(1001, T, new StoredEvent(Kind.SHARD_HOME_DEALLOCATED, null, "3"))), NONE).orElseThrow();
    assertEquals(Optional.empty(), deleted.node());
    assertTrue(deleted.describe(T).contains("by an unknown node"), deleted.describe(T));
    // A take-over as written before the node was stored.
    LastCoordinatorWrite old = LastCoordinatorWrite.of(List.of(
        at(1, T, StoredEvent.takenOver(A)), at(2, T, new StoredEvent(Kind.TAKEN_OVER, null, null))), NONE)
        .orElseThrow();
    assertEquals(Optional.empty(), old.node(), "the last take-over's node, not an earlier one's");
  }

  @Test
  void quietOnlyOnceTheWholePeriodHasPassedSinceAKnownWriteTime() {
    LastCoordinatorWrite last = LastCoordinatorWrite.of(List.of(at(3, T, StoredEvent.takenOver(A))), NONE)
        .orElseThrow();
    assertFalse(last.quietFor(QUIET, T));
    assertFalse(last.quietFor(QUIET, T.plus(QUIET).minusMillis(1)));
    assertTrue(last.quietFor(QUIET, T.plus(QUIET)));
    assertTrue(last.quietFor(QUIET, T.plus(Duration.ofDays(3))));
    // The writer's clock is ahead of this one: nothing shows that the coordinator stopped.
    assertFalse(last.quietFor(QUIET, T.minusSeconds(1)));
    assertTrue(last.describe(T.minusSeconds(1)).contains("1000 ms ahead of this machine's clock"),
        last.describe(T.minusSeconds(1)));
  }

  @Test
  void aJournalWithoutWriteTimesIsNeverQuiet() {
    LastCoordinatorWrite last = LastCoordinatorWrite.of(List.of(new Written(5, 0, StoredEvent.takenOver(A))), NONE)
        .orElseThrow();
    assertEquals(Optional.empty(), last.writtenAt());
    assertFalse(last.quietFor(QUIET, T.plus(Duration.ofDays(365))));
    assertTrue(last.describe(T).contains("at an unknown time (the journal keeps no write times)"), last.describe(T));
  }
}
