package dev.shardkit.sharding.persistence.internal;

import dev.shardkit.sharding.persistence.ShardingPersistenceIds;
import dev.shardkit.sharding.spi.RememberEntitiesStore;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * The remembered entities of one shard, event-sourced with Pekko Persistence in an
 * {@link EntitiesJournal} under {@link ShardingPersistenceIds#entities}. Each instance runs a
 * {@link JournalStoreActor} as a system actor on the shard's node, until {@link #close()}.
 *
 * <p>{@link #load()} completes with the recovered ids; {@link #update} writes one event for the
 * whole batch and completes once the journal confirmed it. Either fails with a
 * {@link PersistenceStoreException} naming the cause when the database cannot be reached (or
 * after {@code store-timeout}); the store stays usable, and the shard's retry after the database
 * is back succeeds.
 */
public final class PersistenceRememberEntitiesStore implements RememberEntitiesStore {
  /** Actor names must be unique; the shard may start again here before this store stopped. */
  private static final AtomicLong INSTANCES = new AtomicLong();

  private final String persistenceId;
  private final PersistenceStoreSettings settings;
  private final JournalStore<EntitiesJournal.Command> store;

  /** @throws IllegalArgumentException if the type name or shard id cannot make a persistence id */
  public PersistenceRememberEntitiesStore(ActorSystem<?> system, String typeName, String shardId,
      PersistenceStoreSettings settings) {
    this.persistenceId = ShardingPersistenceIds.entities(typeName, shardId);
    this.settings = settings;
    String subject = "entity type [" + typeName + "], shard [" + shardId + "]";
    this.store = new JournalStore<>(system, settings, new JournalStoreActor.Spec<>(
            "Remember-entities store of " + subject, "Entity type [" + typeName + "], shard [" + shardId + "]",
            "the shard", persistenceId, () -> EntitiesJournal.create(persistenceId, subject, settings)),
        // Shard ids may hold any character; encoded, they make a valid actor name.
        "shardkit-entities-store-" + typeName + "-" + URLEncoder.encode(shardId, StandardCharsets.UTF_8) + "-"
            + INSTANCES.incrementAndGet());
  }

  @SuppressWarnings("unchecked")
  @Override
  public CompletionStage<Set<String>> load() {
    return store.ask(EntitiesJournal.GetIds::new, ids -> (Set<String>) ids,
        "could not load the remembered entities");
  }

  /**
   * Writes {@code started} and {@code stopped} as one event. An update that would change nothing
   * (every started id is remembered already and no stopped one is: an empty update, or the retry
   * of a write whose confirmation was lost) is confirmed without a write.
   *
   * @throws IllegalArgumentException if a set is null, holds a null or empty id, or an id is in
   *     both sets
   */
  @Override
  public CompletionStage<Void> update(Set<String> started, Set<String> stopped) {
    StoredEntitiesChange change = StoredEntitiesChange.of(started, stopped);
    return store.ask((id, replyTo) -> new EntitiesJournal.Update(id, change, replyTo), done -> null,
        "could not store the update of " + started.size() + " started and " + stopped.size() + " stopped "
            + "entities");
  }

  @Override
  public String describe() {
    return "event-sourced (persistenceId [" + persistenceId + "], journal [" + settings.journalPluginId()
        + "], snapshots in [" + settings.snapshotPluginId() + "] every "
        + settings.rememberEntities().snapshotAfter() + " updates)";
  }

  /** Stops the store's actor and its journal, so that the shard's next home is the only writer. */
  @Override
  public void close() {
    store.close();
  }
}
