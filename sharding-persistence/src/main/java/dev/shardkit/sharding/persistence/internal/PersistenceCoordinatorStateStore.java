package dev.shardkit.sharding.persistence.internal;

import dev.shardkit.sharding.persistence.ShardingPersistenceIds;
import dev.shardkit.sharding.spi.CoordinatorEvent;
import dev.shardkit.sharding.spi.CoordinatorState;
import dev.shardkit.sharding.spi.CoordinatorStateStore;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * The coordinator state of one entity type, event-sourced with Pekko Persistence in a
 * {@link CoordinatorJournal}. Each instance runs a {@link JournalStoreActor} as a system actor on
 * the coordinator's node, until {@link #close()}.
 *
 * <p>{@link #load()} completes with the recovered state; {@link #store} completes once the
 * journal confirmed the write. Either fails with a {@link PersistenceStoreException} naming the
 * cause when the database cannot be reached (or after {@code store-timeout}); the store stays
 * usable, and a retry after the database is back succeeds.
 */
public final class PersistenceCoordinatorStateStore implements CoordinatorStateStore {
  /** Actor names must be unique; a successor on the same node may start before this one stopped. */
  private static final AtomicLong INSTANCES = new AtomicLong();

  private final String persistenceId;
  private final PersistenceStoreSettings settings;
  private final JournalStore<CoordinatorJournal.Command> store;

  public PersistenceCoordinatorStateStore(ActorSystem<?> system, String typeName, PersistenceStoreSettings settings) {
    this.persistenceId = ShardingPersistenceIds.coordinator(typeName);
    this.settings = settings;
    this.store = new JournalStore<>(system, settings, new JournalStoreActor.Spec<>(
            "Coordinator state store of entity type [" + typeName + "]", "Entity type [" + typeName + "]",
            "the coordinator", persistenceId, () -> CoordinatorJournal.create(persistenceId, typeName, settings)),
        "shardkit-coordinator-store-" + typeName + "-" + INSTANCES.incrementAndGet());
  }

  @Override
  public CompletionStage<CoordinatorState> load() {
    return store.ask(CoordinatorJournal.GetState::new, state -> (CoordinatorState) state,
        "could not load the coordinator state");
  }

  /** All the events in one atomic journal write, however many there are. */
  @Override
  public CompletionStage<Void> store(List<CoordinatorEvent> events, CoordinatorState stateAfter) {
    return store.ask((id, replyTo) -> new CoordinatorJournal.Persist(id, events, stateAfter, replyTo), done -> null,
        "could not store " + (events.size() == 1 ? events.get(0) : events.size() + " events"));
  }

  @Override
  public String describe() {
    return "event-sourced (persistenceId [" + persistenceId + "], journal [" + settings.journalPluginId()
        + "], snapshots in [" + settings.snapshotPluginId() + "] every " + settings.coordinator().snapshotAfter()
        + " events)";
  }

  /** Stops the store's actor, so the coordinator's successor is the only writer. */
  @Override
  public void close() {
    store.close();
  }
}
