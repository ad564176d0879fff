package dev.shardkit.sharding.persistence.internal;

import dev.shardkit.sharding.persistence.ShardingPersistenceIds;
import dev.shardkit.sharding.spi.CoordinatorEvent;
import dev.shardkit.sharding.spi.CoordinatorState;
import dev.shardkit.sharding.spi.CoordinatorStateStore;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.apache.pekko.Done;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.javadsl.AskPattern;

/**
 * The coordinator state of one entity type, event-sourced with Pekko Persistence. Each instance
 * runs a {@link CoordinatorStoreActor} as a system actor on the coordinator's node, until
 * {@link #close()}.
 *
 * <p>{@link #load()} completes with the recovered state; {@link #store} completes once the
 * journal confirmed the write. Either fails with a {@link CoordinatorStoreException} naming the
 * cause when the database cannot be reached (or after {@code store-timeout}); the store stays
 * usable, and a retry after the database is back succeeds.
 */
public final class PersistenceCoordinatorStateStore implements CoordinatorStateStore {
  /** Actor names must be unique; a successor on the same node may start before this one stopped. */
  private static final AtomicLong INSTANCES = new AtomicLong();

  private final ActorSystem<?> system;
  private final String typeName;
  private final String persistenceId;
  private final PersistenceStoreSettings settings;
  private final ActorRef<CoordinatorStoreActor.Command> actor;

  public PersistenceCoordinatorStateStore(ActorSystem<?> system, String typeName, PersistenceStoreSettings settings) {
    this.system = system;
    this.typeName = typeName;
    this.persistenceId = ShardingPersistenceIds.coordinator(typeName);
    this.settings = settings;
    boolean createSchema = settings.createSchema() && settings.journalIsJdbc(system.settings().config());
    if (settings.createSchema() && !createSchema) {
      system.log().info("shardkit.sharding.persistence.create-schema is on, but journal [{}] is not "
          + "pekko-persistence-jdbc's: its tables are not created by shardkit", settings.journalPluginId());
    }
    this.actor = system.systemActorOf(
        CoordinatorStoreActor.create(typeName, persistenceId, settings,
            () -> createSchema ? SchemaCreation.get(system).ensure(settings.journalPluginId())
                : CompletableFuture.completedFuture(Done.getInstance())),
        "shardkit-coordinator-store-" + typeName + "-" + INSTANCES.incrementAndGet(), Props.empty());
  }

  @Override
  public CompletionStage<CoordinatorState> load() {
    return ask(CoordinatorStoreActor.Load::new, state -> state, "could not load the coordinator state");
  }

  @Override
  public CompletionStage<Void> store(CoordinatorEvent event, CoordinatorState stateAfter) {
    return this.<Done, Void>ask(replyTo -> new CoordinatorStoreActor.Store(event, stateAfter, replyTo), done -> null,
        "could not store " + event);
  }

  /**
   * Asks the store's actor; the result fails with the {@link CoordinatorStoreException} itself
   * (not wrapped), so the coordinator's log names it.
   */
  private <T, R> CompletionStage<R> ask(
      Function<ActorRef<CoordinatorStoreActor.Reply<T>>, CoordinatorStoreActor.Command> request,
      Function<T, R> result, String what) {
    CompletableFuture<R> future = new CompletableFuture<>();
    AskPattern.ask(actor, request::apply, settings.storeTimeout(), system.scheduler())
        .whenComplete((reply, error) -> {
          if (error != null) {
            Throwable cause = error instanceof TimeoutException ? new TimeoutException("no answer within "
                + "shardkit.sharding.persistence.store-timeout (" + settings.storeTimeout().toMillis() + " ms)")
                : error;
            future.completeExceptionally(CoordinatorStoreException.of(what, typeName, cause));
          } else if (reply.failure() != null) {
            future.completeExceptionally(reply.failure());
          } else {
            future.complete(result.apply(reply.value()));
          }
        });
    return future;
  }

  @Override
  public String describe() {
    return "event-sourced (persistenceId [" + persistenceId + "], journal [" + settings.journalPluginId()
        + "], snapshots in [" + settings.snapshotPluginId() + "] every " + settings.snapshotAfter() + " events)";
  }

  /** Stops the store's actor, so the coordinator's successor is the only writer. */
  @Override
  public void close() {
    actor.tell(CoordinatorStoreActor.Close.INSTANCE);
  }
}
