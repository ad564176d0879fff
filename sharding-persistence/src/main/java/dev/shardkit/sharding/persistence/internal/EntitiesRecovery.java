package dev.shardkit.sharding.persistence.internal;

import java.util.List;

/**
 * What a recovery of one shard's {@link EntitiesJournal} yields, computed from its stored rows
 * read directly (by {@link EntitiesLoadBatch}) instead of by a running journal: the latest
 * snapshot, then every event after it in sequence-number order, exactly as Pekko Persistence
 * replays them. Pure.
 */
public final class EntitiesRecovery {
  private EntitiesRecovery() {}

  /** One stored event, already deserialized. */
  public record Event(long sequenceNr, Object payload) {}

  /** The latest stored snapshot, already deserialized. */
  public record Snapshot(long sequenceNr, Object payload) {}

  /**
   * The remembered entities after {@code snapshot} (null: none) and the {@code events} after it.
   * Events at or before the snapshot's sequence number (history kept behind it) are skipped, as
   * a recovery skips them.
   *
   * @param events in ascending sequence-number order
   * @param subject whose entities, for errors: {@code "entity type [T], shard [S]"}
   * @throws IllegalStateException if the snapshot or an event is not a remembered-entities record
   *     or cannot be applied; the message names the event and the way out
   */
  public static RememberedEntities recovered(Snapshot snapshot, List<Event> events, String subject) {
    RememberedEntities state = RememberedEntities.empty();
    long from = 0;
    if (snapshot != null) {
      if (!(snapshot.payload() instanceof StoredEntitiesSnapshot s)) {
        throw new IllegalStateException("Unexpected remembered-entities snapshot of "
            + snapshot.payload().getClass().getName() + " of " + subject + "; expected "
            + StoredEntitiesSnapshot.class.getName());
      }
      state = RememberedEntities.fromStored(s);
      from = snapshot.sequenceNr();
    }
    for (Event e : events) {
      if (e.sequenceNr() <= from) {
        continue;
      }
      if (!(e.payload() instanceof StoredEntitiesChange change)) {
        throw cannotApply(e.sequenceNr(), subject, new IllegalStateException("it is a "
            + e.payload().getClass().getName() + ", not a " + StoredEntitiesChange.class.getName()));
      }
      try {
        state = state.applied(change);
      } catch (IllegalStateException failure) {
        throw cannotApply(e.sequenceNr(), subject, failure);
      }
    }
    return state;
  }

  /** The failure of a stored event that cannot be applied, naming it and the way out. */
  static IllegalStateException cannotApply(long sequenceNr, String subject, IllegalStateException cause) {
    return new IllegalStateException("Stored remembered-entities event #" + sequenceNr + " of " + subject
        + " cannot be applied: " + cause.getMessage() + ". With the whole cluster stopped, "
        + "dev.shardkit.sharding.persistence.RemoveShardingData deletes the entity type's stored data", cause);
  }
}
