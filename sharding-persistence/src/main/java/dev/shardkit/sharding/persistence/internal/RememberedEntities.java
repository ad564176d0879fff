package dev.shardkit.sharding.persistence.internal;

import java.util.Collections;
import java.util.HashSet;
import java.util.Set;

/**
 * The state of {@link EntitiesJournal}: the ids of a shard's remembered entities. Immutable;
 * {@link #applied} gives the state after a stored change, and the snapshot form converts both
 * ways. Applying a change is idempotent, so a change written twice (after a write whose
 * confirmation was lost) is harmless on replay; the journal does not even write a change the
 * state already {@link #reflects}.
 */
public final class RememberedEntities {
  private static final RememberedEntities EMPTY = new RememberedEntities(new HashSet<>());

  /** Owned by this instance and never changed after construction. */
  private final Set<String> ids;

  private RememberedEntities(HashSet<String> ids) {
    this.ids = Collections.unmodifiableSet(ids);
  }

  public static RememberedEntities empty() {
    return EMPTY;
  }

  /** The remembered ids (unmodifiable). */
  public Set<String> ids() {
    return ids;
  }

  /**
   * The state after {@code change}: its started ids added, its stopped ids removed.
   *
   * @throws IllegalStateException if the stored change lacks its started or stopped ids, or
   *     holds a null or empty id
   */
  public RememberedEntities applied(StoredEntitiesChange change) {
    if (change.started() == null || change.stopped() == null) {
      throw new IllegalStateException("Stored remembered-entities change " + change + " lacks its started or "
          + "stopped ids");
    }
    if (change.started().stream().anyMatch(RememberedEntities::invalid)
        || change.stopped().stream().anyMatch(RememberedEntities::invalid)) {
      throw new IllegalStateException("Stored remembered-entities change " + change + " holds a null or empty "
          + "entity id");
    }
    if (reflects(change)) {
      return this;
    }
    HashSet<String> after = new HashSet<>(ids);
    after.addAll(change.started());
    change.stopped().forEach(after::remove);
    return new RememberedEntities(after);
  }

  /**
   * Whether the state already looks as if {@code change} had been applied: every started id is
   * remembered and no stopped one is. A retried write whose first attempt was stored is such a
   * change, and so is an empty one.
   */
  public boolean reflects(StoredEntitiesChange change) {
    return ids.containsAll(change.started()) && change.stopped().stream().noneMatch(ids::contains);
  }

  public StoredEntitiesSnapshot toStored() {
    return new StoredEntitiesSnapshot(ids.stream().sorted().toList());
  }

  /** @throws IllegalStateException if the snapshot lacks its ids or holds a null or empty one */
  public static RememberedEntities fromStored(StoredEntitiesSnapshot stored) {
    if (stored.entityIds() == null) {
      throw new IllegalStateException("Stored remembered-entities snapshot " + stored + " lacks its entity ids");
    }
    HashSet<String> ids = new HashSet<>(stored.entityIds().size() * 2);
    for (String id : stored.entityIds()) {
      if (invalid(id)) {
        throw new IllegalStateException("Stored remembered-entities snapshot holds a null or empty entity id");
      }
      ids.add(id);
    }
    return new RememberedEntities(ids);
  }

  private static boolean invalid(String id) {
    return id == null || id.isEmpty();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RememberedEntities other && ids.equals(other.ids);
  }

  @Override
  public int hashCode() {
    return ids.hashCode();
  }

  /** At most the first ten ids (a shard may remember many). */
  @Override
  public String toString() {
    return "RememberedEntities(" + ids.size() + " ids" + (ids.isEmpty() ? ")"
        : ": " + ids.stream().sorted().limit(10).toList() + (ids.size() > 10 ? " ...)" : ")"));
  }
}
