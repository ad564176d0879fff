package dev.shardkit.sharding.persistence.internal;

import dev.shardkit.sharding.internal.store.SameThreadStages;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.Predicate;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.javadsl.AskPattern;

/**
 * What both persistence stores share: a {@link JournalStoreActor} running as a system actor until
 * {@link #close()}, and asking it with {@code store-timeout}. A request that fails, or gets no
 * answer in time, fails with a {@link PersistenceStoreException} naming what failed and why.
 *
 * @param <J> the journal's command type
 */
final class JournalStore<J> {
  private final ActorSystem<?> system;
  private final PersistenceStoreSettings settings;
  private final String subject;
  private final ActorRef<JournalStoreActor.Command> actor;

  /** @param actorName unique among the system actors while this store runs */
  JournalStore(ActorSystem<?> system, PersistenceStoreSettings settings, JournalStoreActor.Spec<J> spec,
      String actorName) {
    this.system = system;
    this.settings = settings;
    this.subject = spec.subject();
    this.actor = system.systemActorOf(JournalStoreActor.create(spec, SchemaCreation.get(system).forStores(settings)),
        actorName, Props.empty());
  }

  /**
   * Asks the journal; the result fails with the {@link PersistenceStoreException} itself (not
   * wrapped), so the log of whoever retries names it.
   *
   * @param result turns the journal's answer into the result
   */
  <R> CompletionStage<R> ask(JournalStoreActor.Call<J> call, Function<Object, R> result, String what) {
    CompletableFuture<R> future = new CompletableFuture<>();
    SameThreadStages.of(AskPattern.<JournalStoreActor.Command, JournalStoreActor.Reply>ask(actor,
            replyTo -> new JournalStoreActor.Request(call, what, replyTo), settings.storeTimeout(), system.scheduler()))
        .whenComplete((reply, error) -> {
          if (error != null) {
            Throwable cause = error instanceof TimeoutException ? new TimeoutException("no answer within "
                + "shardkit.sharding.persistence.store-timeout (" + settings.storeTimeout().toMillis() + " ms)")
                : error;
            future.completeExceptionally(PersistenceStoreException.of(what, subject, cause));
          } else if (reply.failure() != null) {
            future.completeExceptionally(reply.failure());
          } else {
            future.complete(result.apply(reply.value()));
          }
        });
    return future;
  }

  /**
   * Writes {@code call}'s keep-alive at {@code pace} from now until {@link #close()}, replacing
   * earlier keep-alives; a keep-alive failing with a failure {@code ends} accepts ends them.
   */
  void keepAlive(JournalStoreActor.Call<J> call, KeepAlivePace pace, Predicate<Throwable> ends) {
    actor.tell(new JournalStoreActor.KeepAlive(call, pace, ends));
  }

  /** Stops the store's actor and its journal, so that a successor is the only writer. */
  void close() {
    actor.tell(JournalStoreActor.Close.INSTANCE);
  }
}
