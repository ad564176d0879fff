package dev.shardkit.sharding.persistence.internal;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import org.apache.pekko.Done;
import org.apache.pekko.actor.NoSerializationVerificationNeeded;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.ChildFailed;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.Terminated;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;

/**
 * The actor behind one persistence store (an entity type's coordinator state, or a shard's
 * remembered entities): it runs the store's event-sourced journal as its child, passes the store's
 * requests to it, and answers them.
 *
 * <p>When the journal fails (the database went away during a write or a recovery), the requests
 * waiting for it fail at once with that cause, and the next request starts a new journal, which
 * recovers from the database first. So a store survives any number of outages, and the pace of
 * new attempts is the retry backoff of its user (the coordinator or the shard). Before the first
 * journal starts, the tables are created if {@code create-schema} is on. A new journal starts only
 * after the previous one has stopped, so there is never more than one writer from here.
 *
 * @param <J> the journal's command type
 */
public final class JournalStoreActor<J> extends AbstractBehavior<JournalStoreActor.Command> {

  /** The store's requests. */
  public sealed interface Command extends NoSerializationVerificationNeeded {}

  /** Makes the journal's command for a request, given the request's id and where to answer. */
  @FunctionalInterface
  public interface Call<J> {
    J command(long id, ActorRef<JournalAnswer> answerTo);
  }

  /**
   * A request for the journal, answered with a {@link Reply}.
   *
   * @param what what failed, if it fails (e.g. {@code "could not load the coordinator state"})
   */
  public record Request(Call<?> call, String what, ActorRef<Reply> replyTo) implements Command {}

  /** Stops the actor and its journal (the store was closed). */
  public enum Close implements Command { INSTANCE }

  /** A value, or the failure that prevented it. */
  public record Reply(Object value, Throwable failure) implements NoSerializationVerificationNeeded {}

  /**
   * Whose store this is, and its journal.
   *
   * @param name for logs, e.g. {@code "Coordinator state store of entity type [Cart]"}
   * @param subject for failures, e.g. {@code "Entity type [Cart]"}
   * @param retrier who retries a failed request, e.g. {@code "the coordinator"}
   * @param journal a new journal (it recovers first)
   */
  public record Spec<J>(String name, String subject, String retrier, String persistenceId,
      Supplier<Behavior<J>> journal) {}

  private record SchemaReady(Throwable failure) implements Command {}

  private record Answered(JournalAnswer answer) implements Command {}

  /** A request passed to the journal and not answered yet. */
  private record Waiting(ActorRef<Reply> replyTo, String what) {}

  private final Spec<J> spec;
  private final Supplier<CompletionStage<Done>> schema;
  private final ActorRef<JournalAnswer> answers;
  /** Requests that arrived while the tables were being created. */
  private final List<Request> queued = new ArrayList<>();
  private final Map<Long, Waiting> waiting = new LinkedHashMap<>();
  private ActorRef<J> journal;
  private boolean schemaReady;
  private boolean schemaPending;
  private long nextId;
  private int incarnation;

  private JournalStoreActor(ActorContext<Command> context, Spec<J> spec, Supplier<CompletionStage<Done>> schema) {
    super(context);
    this.spec = spec;
    this.schema = schema;
    this.answers = context.messageAdapter(JournalAnswer.class, Answered::new);
  }

  /**
   * @param schema creates the tables (completes at once if there is nothing to create); asked
   *     again after a failure
   */
  public static <J> Behavior<Command> create(Spec<J> spec, Supplier<CompletionStage<Done>> schema) {
    return Behaviors.setup(ctx -> new JournalStoreActor<>(ctx, spec, schema));
  }

  @Override
  public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(Request.class, this::onRequest)
        .onMessage(SchemaReady.class, this::onSchemaReady)
        .onMessage(Answered.class, this::onAnswered)
        .onMessageEquals(Close.INSTANCE, Behaviors::stopped)
        .onSignal(ChildFailed.class, f -> onJournalStopped(f.getRef(), f.getCause()))
        .onSignal(Terminated.class, t -> onJournalStopped(t.getRef(), null))
        .onSignal(PostStop.class, s -> onPostStop())
        .build();
  }

  private Behavior<Command> onRequest(Request request) {
    if (journal == null && !schemaReady) {
      queued.add(request);
      if (!schemaPending) {
        schemaPending = true;
        CompletionStage<Done> created;
        try {
          created = schema.get();
        } catch (RuntimeException e) {
          created = CompletableFuture.failedFuture(e);
        }
        getContext().pipeToSelf(created, (done, error) -> new SchemaReady(error));
      }
      return this;
    }
    if (journal == null) {
      startJournal();
    }
    send(request);
    return this;
  }

  private Behavior<Command> onSchemaReady(SchemaReady ready) {
    schemaPending = false;
    List<Request> requests = List.copyOf(queued);
    queued.clear();
    if (ready.failure() != null) {
      String what = "could not create the journal tables (create-schema = on)";
      getContext().getLog().warn("{}: {}: {}; {} retries with backoff", spec.name(), what,
          PersistenceStoreException.describe(ready.failure()), spec.retrier());
      requests.forEach(r -> r.replyTo().tell(failure(what, ready.failure())));
      return this;
    }
    schemaReady = true;
    requests.forEach(this::onRequest);
    return this;
  }

  private void startJournal() {
    incarnation++;
    journal = getContext().spawn(spec.journal().get(), "journal-" + incarnation);
    getContext().watch(journal);
  }

  @SuppressWarnings("unchecked")
  private void send(Request request) {
    long id = nextId++;
    waiting.put(id, new Waiting(request.replyTo(), request.what()));
    // The store that made the request made it for this actor's journal type.
    journal.tell(((Call<J>) request.call()).command(id, answers));
  }

  private Behavior<Command> onAnswered(Answered answered) {
    JournalAnswer a = answered.answer();
    Waiting w = waiting.remove(a.id());
    if (w != null) {
      w.replyTo().tell(a.failure() == null ? new Reply(a.value(), null) : failure(w.what(), a.failure()));
    }
    return this;
  }

  private Behavior<Command> onJournalStopped(ActorRef<Void> ref, Throwable cause) {
    if (!ref.equals(journal)) {
      return this;
    }
    journal = null;
    Throwable reason = cause != null ? cause
        : new IllegalStateException("the journal actor of persistenceId [" + spec.persistenceId() + "] stopped");
    getContext().getLog().warn("{} (persistenceId [{}]): the journal failed: {}; {} waiting request(s) fail, and {} "
        + "retries with backoff", spec.name(), spec.persistenceId(), PersistenceStoreException.describe(reason),
        waiting.size(), spec.retrier());
    failWaiting(reason);
    return this;
  }

  private void failWaiting(Throwable reason) {
    List<Waiting> failed = new ArrayList<>(waiting.values());
    waiting.clear();
    failed.forEach(w -> w.replyTo().tell(failure(w.what(), reason)));
  }

  private Behavior<Command> onPostStop() {
    Throwable closed = new IllegalStateException("the store was closed");
    failWaiting(closed);
    queued.forEach(r -> r.replyTo().tell(failure(r.what(), closed)));
    queued.clear();
    return this;
  }

  private Reply failure(String what, Throwable cause) {
    return new Reply(null, PersistenceStoreException.of(what, spec.subject(), cause));
  }
}
