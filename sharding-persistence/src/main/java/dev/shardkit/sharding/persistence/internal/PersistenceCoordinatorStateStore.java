package dev.shardkit.sharding.persistence.internal;

import dev.shardkit.sharding.persistence.ShardingPersistenceIds;
import dev.shardkit.sharding.spi.CoordinatorEvent;
import dev.shardkit.sharding.spi.CoordinatorState;
import dev.shardkit.sharding.spi.CoordinatorStateStore;
import dev.shardkit.sharding.spi.CoordinatorStateSupersededException;
import dev.shardkit.sharding.spi.LoadedCoordinatorState;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.pekko.actor.typed.ActorSystem;
import org.jspecify.annotations.Nullable;

/**
 * The coordinator state of one entity type, event-sourced with Pekko Persistence in a
 * {@link CoordinatorJournal}. Each instance runs a {@link JournalStoreActor} as a system actor on
 * the coordinator's node, until {@link #close()}.
 *
 * <p>{@link #load()} completes with the recovered state once the journal holds this coordinator's
 * take-over, whose sequence number is its term; {@link #store} completes once the journal
 * confirmed the write, and fails with {@code CoordinatorStateSupersededException} once another
 * coordinator took over (see {@link CoordinatorJournal}). Either fails with a {@link PersistenceStoreException} naming the
 * cause when the database cannot be reached (or after {@code store-timeout}); the store stays
 * usable, and a retry after the database is back succeeds.
 *
 * <p>From a completed load until {@link #close()}, or until another coordinator took over, it
 * writes a keep-alive at that load's term whenever the coordinator has written nothing for
 * {@code keep-alive-interval} ({@link KeepAlivePace}), so that the journal shows a running
 * coordinator as running even while it has nothing to decide.
 */
public final class PersistenceCoordinatorStateStore implements CoordinatorStateStore {
  /** Actor names must be unique; a successor on the same node may start before this one stopped. */
  private static final AtomicLong INSTANCES = new AtomicLong();

  private final String persistenceId;
  private final PersistenceStoreSettings settings;
  private final JournalStore<CoordinatorJournal.Command> store;
  /** The term of the last completed load; written on the load's thread, read by the coordinator's. */
  private volatile long term;

  public PersistenceCoordinatorStateStore(ActorSystem<?> system, String typeName, PersistenceStoreSettings settings) {
    this.persistenceId = ShardingPersistenceIds.coordinator(typeName);
    this.settings = settings;
    this.store = new JournalStore<>(system, settings, new JournalStoreActor.Spec<>(
            "Coordinator state store of entity type [" + typeName + "]", "Entity type [" + typeName + "]",
            "the coordinator", persistenceId, () -> CoordinatorJournal.create(persistenceId, typeName, settings)),
        "shardkit-coordinator-store-" + typeName + "-" + INSTANCES.incrementAndGet());
  }

  /** Recovers the state and writes a take-over, whose sequence number is the term. */
  @Override
  public CompletionStage<LoadedCoordinatorState> load() {
    return store.<LoadedCoordinatorState>ask(CoordinatorJournal.TakeOver::new, loaded -> (LoadedCoordinatorState) loaded,
        "could not load the coordinator state").thenApply(loaded -> {
          term = loaded.term();
          long keepAliveTerm = loaded.term();
          store.keepAlive((id, replyTo) -> new CoordinatorJournal.KeepAlive(id, keepAliveTerm, replyTo),
              new KeepAlivePace(settings.keepAliveInterval()), failure -> supersededIn(failure) != null);
          return loaded;
        });
  }

  /** All the events in one atomic journal write, however many there are, at the term of the last load. */
  @Override
  public CompletionStage<Void> store(List<CoordinatorEvent> events, CoordinatorState stateAfter) {
    long asTerm = term;
    return store.<Void>ask((id, replyTo) -> new CoordinatorJournal.Persist(id, events, stateAfter, asTerm, replyTo),
        done -> null,
        "could not store " + (events.size() == 1 ? events.get(0) : events.size() + " events"))
        .exceptionallyCompose(PersistenceCoordinatorStateStore::supersededUnwrapped);
  }

  /** A write refused as superseded fails with that refusal itself, which the coordinator does not retry. */
  private static CompletionStage<Void> supersededUnwrapped(Throwable failure) {
    CoordinatorStateSupersededException superseded = supersededIn(failure);
    return CompletableFuture.failedFuture(superseded != null ? superseded : failure);
  }

  /** The refusal as superseded that caused {@code failure}, null if it has none. */
  private static @Nullable CoordinatorStateSupersededException supersededIn(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof CoordinatorStateSupersededException superseded) {
        return superseded;
      }
    }
    return null;
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
