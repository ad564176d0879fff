package dev.shardkit.sharding.persistence.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** A shard's remembered ids as a pure value: changes, snapshots, and what is refused. */
class RememberedEntitiesTest {

  private static RememberedEntities apply(RememberedEntities state, Set<String> started, Set<String> stopped) {
    return state.applied(StoredEntitiesChange.of(started, stopped));
  }

  @Test
  void aChangeAddsTheStartedAndRemovesTheStopped() {
    RememberedEntities s = apply(RememberedEntities.empty(), Set.of("a", "b", "c"), Set.of());
    assertEquals(Set.of("a", "b", "c"), s.ids());
    s = apply(s, Set.of("d"), Set.of("b", "never-started"));
    assertEquals(Set.of("a", "c", "d"), s.ids());
    assertEquals(Set.of(), RememberedEntities.empty().ids());
    assertThrows(UnsupportedOperationException.class, () -> RememberedEntities.empty().ids().add("x"));
  }

  @Test
  void applyingAChangeTwiceIsApplyingItOnce() {
    StoredEntitiesChange change = StoredEntitiesChange.of(Set.of("a", "b"), Set.of("c"));
    RememberedEntities once = apply(RememberedEntities.empty(), Set.of("c", "d"), Set.of()).applied(change);
    RememberedEntities twice = once.applied(change);
    assertEquals(Set.of("a", "b", "d"), once.ids());
    // A change that changes nothing (a retried write) gives the same state without a copy.
    assertSame(once, twice);
  }

  @Test
  void theStateBeforeAChangeIsUnchanged() {
    RememberedEntities before = apply(RememberedEntities.empty(), Set.of("a"), Set.of());
    RememberedEntities after = apply(before, Set.of("b"), Set.of("a"));
    assertEquals(Set.of("a"), before.ids());
    assertEquals(Set.of("b"), after.ids());
  }

  @Test
  void aChangeIsStoredSortedSoTheSameBatchIsStoredTheSameWay() {
    StoredEntitiesChange change = StoredEntitiesChange.of(new HashSet<>(List.of("z", "a", "m")), Set.of("q", "b"));
    assertEquals(List.of("a", "m", "z"), change.started());
    assertEquals(List.of("b", "q"), change.stopped());
  }

  @Test
  void aStateReflectsAChangeThatWouldLeaveItAsItIs() {
    RememberedEntities s = apply(RememberedEntities.empty(), Set.of("a", "b"), Set.of());
    assertTrue(s.reflects(StoredEntitiesChange.of(Set.of(), Set.of())));
    assertTrue(s.reflects(StoredEntitiesChange.of(Set.of("a"), Set.of("c"))));
    assertFalse(s.reflects(StoredEntitiesChange.of(Set.of("a", "c"), Set.of())));
    assertFalse(s.reflects(StoredEntitiesChange.of(Set.of(), Set.of("b"))));
  }

  @Test
  void theSnapshotRoundTripsSorted() {
    RememberedEntities s = apply(RememberedEntities.empty(), Set.of("e-2", "e-10", "e-1"), Set.of());
    StoredEntitiesSnapshot stored = s.toStored();
    assertEquals(List.of("e-1", "e-10", "e-2"), stored.entityIds());
    assertEquals(s, RememberedEntities.fromStored(stored));
    assertEquals(RememberedEntities.empty(), RememberedEntities.fromStored(new StoredEntitiesSnapshot(List.of())));
  }

  @Test
  void badUpdatesAreRefusedNamingWhatIsWrong() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> StoredEntitiesChange.of(Set.of("a", "b"), Set.of("b")));
    assertEquals("Entity id [b] is both started and stopped in one update", e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> StoredEntitiesChange.of(null, Set.of()));
    assertTrue(e.getMessage().contains("started entity ids of an update must not be null"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> StoredEntitiesChange.of(Set.of(), Set.of("")));
    assertTrue(e.getMessage().contains("stopped entity ids of an update hold a null or empty id"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> StoredEntitiesChange.of(new HashSet<>(Arrays.asList("a", null)), Set.of()));
    assertTrue(e.getMessage().contains("started entity ids of an update hold a null or empty id"), e.getMessage());
  }

  @Test
  void incompleteStoredRecordsAreRefusedNamingWhatIsWrong() {
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> RememberedEntities.empty().applied(new StoredEntitiesChange(List.of("a"), null)));
    assertTrue(e.getMessage().contains("lacks its started or stopped ids"), e.getMessage());
    e = assertThrows(IllegalStateException.class,
        () -> RememberedEntities.empty().applied(new StoredEntitiesChange(Arrays.asList("a", null), List.of())));
    assertTrue(e.getMessage().contains("holds a null or empty entity id"), e.getMessage());
    e = assertThrows(IllegalStateException.class,
        () -> RememberedEntities.fromStored(new StoredEntitiesSnapshot(null)));
    assertTrue(e.getMessage().contains("lacks its entity ids"), e.getMessage());
    e = assertThrows(IllegalStateException.class,
        () -> RememberedEntities.fromStored(new StoredEntitiesSnapshot(List.of("a", ""))));
    assertTrue(e.getMessage().contains("holds a null or empty entity id"), e.getMessage());
  }

  @Test
  void aLargeStateShowsOnlyAFewIds() {
    Set<String> many = new HashSet<>();
    for (int i = 0; i < 1000; i++) {
      many.add("entity-" + i);
    }
    String text = apply(RememberedEntities.empty(), many, Set.of()).toString();
    assertTrue(text.startsWith("RememberedEntities(1000 ids: [entity-0, entity-1, "), text);
    assertTrue(text.endsWith(" ...)") && text.length() < 300, text);
  }
}
