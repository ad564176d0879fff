package dev.shardkit.sharding.internal.shard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.internal.shard.RememberedUpdates.Batch;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RememberedUpdatesTest {

  @Test
  void nothingPendingMeansNoWrite() {
    RememberedUpdates u = new RememberedUpdates();
    assertNull(u.nextBatch());
    assertTrue(u.settled());
    assertFalse(u.writing());
  }

  @Test
  void changesMadeDuringAWriteGoIntoOneNextWrite() {
    RememberedUpdates u = new RememberedUpdates();
    u.started("a");
    Batch first = u.nextBatch();
    assertEquals(new Batch(Set.of("a"), Set.of()), first);
    assertTrue(u.writing());
    u.started("b");
    u.started("c");
    u.stopped("d");
    // One write at a time.
    assertNull(u.nextBatch());
    assertFalse(u.settled());
    assertEquals(first, u.written());
    assertEquals(new Batch(Set.of("b", "c"), Set.of("d")), u.nextBatch());
    u.written();
    assertTrue(u.settled());
  }

  @Test
  void theLatestChangeOfAnIdWins() {
    RememberedUpdates u = new RememberedUpdates();
    u.started("a");
    u.stopped("a");
    u.stopped("b");
    u.started("b");
    Batch b = u.nextBatch();
    assertEquals(Set.of("b"), b.started());
    assertEquals(Set.of("a"), b.stopped());
  }

  @Test
  void aFailedWriteIsRetriedTogetherWithNewerChangesAndNewerOnesWin() {
    RememberedUpdates u = new RememberedUpdates();
    u.started("a");
    u.started("b");
    u.nextBatch();
    u.stopped("b");
    u.started("c");
    u.failed();
    assertFalse(u.writing());
    assertFalse(u.settled());
    Batch retry = u.nextBatch();
    assertEquals(Set.of("a", "c"), retry.started());
    assertEquals(Set.of("b"), retry.stopped());
  }

  @Test
  void confirmingWithoutAWriteIsABug() {
    RememberedUpdates u = new RememberedUpdates();
    assertThrows(IllegalStateException.class, u::written);
    assertThrows(IllegalStateException.class, u::failed);
  }

  @Test
  void aBatchIteratesInTheOrderItsIdsChanged() {
    RememberedUpdates u = new RememberedUpdates();
    List<String> ids = List.of("m", "c", "x", "a", "q", "b", "z", "k");
    ids.forEach(u::started);
    u.stopped("y");
    u.stopped("d");
    Batch b = u.nextBatch();
    assertEquals(ids, List.copyOf(b.started()));
    assertEquals(List.of("y", "d"), List.copyOf(b.stopped()));
  }

  @Test
  void batchesAreImmutableCopies() {
    Set<String> started = new java.util.HashSet<>(Set.of("a"));
    Batch b = new Batch(started, Set.of());
    started.add("b");
    assertEquals(Set.of("a"), b.started());
    assertEquals(1, b.size());
    assertThrows(UnsupportedOperationException.class, () -> b.started().add("c"));
    assertThrows(UnsupportedOperationException.class, () -> b.stopped().add("c"));
  }

  @Test
  void theWriteInFlightIsKnown() {
    RememberedUpdates u = new RememberedUpdates();
    assertThrows(IllegalStateException.class, u::inFlight);
    u.started("a");
    Batch current = u.nextBatch();
    assertSame(current, u.inFlight());
    u.written();
    assertThrows(IllegalStateException.class, u::inFlight);
  }
}
