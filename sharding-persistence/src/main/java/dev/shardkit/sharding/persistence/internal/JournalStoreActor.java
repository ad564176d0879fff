package dev.shardkit.sharding.persistence.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Predicate;
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
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.jspecify.annotations.Nullable;

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
 * <p>After a {@link KeepAlive} (a coordinator's store sends one when its coordinator loaded), it
 * also writes a keep-alive whenever {@link KeepAlivePace#due}, through the same journal and
 * behind the requests before it, so the store's own writes keep their order. A keep-alive refused
 * for good (the coordinator was deposed) ends them; one that failed otherwise is tried again at
 * the next check, one check interval later, until the actor stops.
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

  /**
   * Starts keep-alives, or replaces the previous ones (a new load, at a new term).
   *
   * @param call makes the keep-alive's journal command
   * @param ends whether a keep-alive's failure means that no later one can succeed
   */
  record KeepAlive(Call<?> call, KeepAlivePace pace, Predicate<Throwable> ends) implements Command {}

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

  private enum KeepAliveCheck implements Command { INSTANCE }

  private record KeepAliveAnswered(Reply reply) implements Command {}

  /** A request passed to the journal and not answered yet. */
  private record Waiting(ActorRef<Reply> replyTo, String what) {}

  private final Spec<J> spec;
  private final Supplier<CompletionStage<Done>> schema;
  private final ActorRef<JournalAnswer> answers;
  private final TimerScheduler<Command> timers;
  private final ActorRef<Reply> keepAliveAnswers;
  /** Requests that arrived while the tables were being created. */
  private final List<Request> queued = new ArrayList<>();
  private final Map<Long, Waiting> waiting = new LinkedHashMap<>();
  private ActorRef<J> journal;
  private boolean schemaReady;
  private boolean schemaPending;
  private long nextId;
  private int incarnation;
  /** The keep-alives to write; null until a {@link KeepAlive}, and once they ended. */
  private @Nullable KeepAlive keepAlive;
  /** The keep-alives the one in flight was written for; null if none is in flight. */
  private @Nullable KeepAlive keepAliveInFlight;
  /** {@link System#nanoTime} of the last successful request (a write, for a coordinator's store). */
  private long lastWriteNanos;

  private JournalStoreActor(ActorContext<Command> context, TimerScheduler<Command> timers, Spec<J> spec,
      Supplier<CompletionStage<Done>> schema) {
    super(context);
    this.spec = spec;
    this.schema = schema;
    this.timers = timers;
    this.answers = context.messageAdapter(JournalAnswer.class, Answered::new);
    this.keepAliveAnswers = context.messageAdapter(Reply.class, KeepAliveAnswered::new);
  }

  /**
   * @param schema creates the tables (completes at once if there is nothing to create); asked
   *     again after a failure
   */
  public static <J> Behavior<Command> create(Spec<J> spec, Supplier<CompletionStage<Done>> schema) {
    return Behaviors.setup(ctx -> Behaviors.withTimers(timers -> new JournalStoreActor<>(ctx, timers, spec, schema)));
  }

  @Override
  public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(Request.class, this::onRequest)
        .onMessage(SchemaReady.class, this::onSchemaReady)
        .onMessage(Answered.class, this::onAnswered)
        .onMessage(KeepAlive.class, this::onKeepAlive)
        .onMessageEquals(KeepAliveCheck.INSTANCE, this::onKeepAliveCheck)
        .onMessage(KeepAliveAnswered.class, this::onKeepAliveAnswered)
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
    if (a.failure() == null) {
      lastWriteNanos = System.nanoTime();
    }
    if (w != null) {
      w.replyTo().tell(a.failure() == null ? new Reply(a.value(), null) : failure(w.what(), a.failure()));
    }
    return this;
  }

  private Behavior<Command> onKeepAlive(KeepAlive k) {
    keepAlive = k;
    // Sent once the load's take-over was written, which counts as the last write.
    lastWriteNanos = System.nanoTime();
    timers.startTimerWithFixedDelay(KeepAliveCheck.INSTANCE, KeepAliveCheck.INSTANCE, k.pace().checkEvery());
    return this;
  }

  private Behavior<Command> onKeepAliveCheck() {
    boolean inFlight = !waiting.isEmpty() || !queued.isEmpty();
    if (keepAlive != null && keepAlive.pace().due(Duration.ofNanos(System.nanoTime() - lastWriteNanos), inFlight)) {
      keepAliveInFlight = keepAlive;
      onRequest(new Request(keepAlive.call(), "could not write a keep-alive", keepAliveAnswers));
    }
    return this;
  }

  private Behavior<Command> onKeepAliveAnswered(KeepAliveAnswered answered) {
    KeepAlive answeredFor = keepAliveInFlight;
    keepAliveInFlight = null;
    Throwable failure = answered.reply().failure();
    if (failure == null || answeredFor == null) {
      return this;
    }
    if (answeredFor == keepAlive && keepAlive.ends().test(failure)) {
      getContext().getLog().info("{}: no more keep-alives: {}", spec.name(),
          PersistenceStoreException.describe(failure));
      keepAlive = null;
      timers.cancel(KeepAliveCheck.INSTANCE);
    } else {
      getContext().getLog().debug("{}: a keep-alive failed, tried again at the next check: {}", spec.name(),
          PersistenceStoreException.describe(failure));
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
