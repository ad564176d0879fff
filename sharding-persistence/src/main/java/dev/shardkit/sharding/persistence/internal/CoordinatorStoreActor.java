package dev.shardkit.sharding.persistence.internal;

import dev.shardkit.sharding.spi.CoordinatorEvent;
import dev.shardkit.sharding.spi.CoordinatorState;
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
 * The actor behind one {@code PersistenceCoordinatorStateStore}: it runs the type's
 * {@link CoordinatorJournal} as its child, passes the store's requests to it, and answers them.
 *
 * <p>When the journal fails (the database went away during a write or a recovery), the requests
 * waiting for it fail at once with that cause, and the next request starts a new journal, which
 * recovers from the database first. So a store survives any number of outages, and the pace of
 * new attempts is the coordinator's retry backoff. Before the first journal starts, the tables are
 * created if {@code create-schema} is on. A new journal starts only after the previous one has
 * stopped, so there is never more than one writer from here.
 */
public final class CoordinatorStoreActor extends AbstractBehavior<CoordinatorStoreActor.Command> {

  /** The store's requests. */
  public sealed interface Command extends NoSerializationVerificationNeeded {}

  /** Asks for the stored state (the journal's recovery). */
  public record Load(ActorRef<Reply<CoordinatorState>> replyTo) implements Command {}

  /** Asks to store an event; see {@code CoordinatorStateStore.store}. */
  public record Store(CoordinatorEvent event, CoordinatorState stateAfter, ActorRef<Reply<Done>> replyTo)
      implements Command {}

  /** Stops the actor and its journal (the coordinator stopped). */
  public enum Close implements Command { INSTANCE }

  /** A value, or the failure that prevented it. */
  public record Reply<T>(T value, Throwable failure) implements NoSerializationVerificationNeeded {}

  private record SchemaReady(Throwable failure) implements Command {}

  private record Answered(CoordinatorJournal.Answer answer) implements Command {}

  /** A request passed to the journal and not answered yet. */
  private record Waiting(ActorRef<Reply<Object>> replyTo, String what) {}

  private final String typeName;
  private final String persistenceId;
  private final PersistenceStoreSettings settings;
  private final Supplier<CompletionStage<Done>> schema;
  private final ActorRef<CoordinatorJournal.Answer> answers;
  /** Requests that arrived while the tables were being created. */
  private final List<Command> queued = new ArrayList<>();
  private final Map<Long, Waiting> waiting = new LinkedHashMap<>();
  private ActorRef<CoordinatorJournal.Command> journal;
  private boolean schemaReady;
  private boolean schemaPending;
  private long nextId;
  private int incarnation;

  private CoordinatorStoreActor(ActorContext<Command> context, String typeName, String persistenceId,
      PersistenceStoreSettings settings, Supplier<CompletionStage<Done>> schema) {
    super(context);
    this.typeName = typeName;
    this.persistenceId = persistenceId;
    this.settings = settings;
    this.schema = schema;
    this.answers = context.messageAdapter(CoordinatorJournal.Answer.class, Answered::new);
  }

  /**
   * @param schema creates the tables (completes at once if there is nothing to create); asked
   *     again after a failure
   */
  public static Behavior<Command> create(String typeName, String persistenceId, PersistenceStoreSettings settings,
      Supplier<CompletionStage<Done>> schema) {
    return Behaviors.setup(ctx -> new CoordinatorStoreActor(ctx, typeName, persistenceId, settings, schema));
  }

  @Override
  public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(Load.class, this::onRequest)
        .onMessage(Store.class, this::onRequest)
        .onMessage(SchemaReady.class, this::onSchemaReady)
        .onMessage(Answered.class, this::onAnswered)
        .onMessageEquals(Close.INSTANCE, Behaviors::stopped)
        .onSignal(ChildFailed.class, f -> onJournalStopped(f.getRef(), f.getCause()))
        .onSignal(Terminated.class, t -> onJournalStopped(t.getRef(), null))
        .onSignal(PostStop.class, s -> onPostStop())
        .build();
  }

  private Behavior<Command> onRequest(Command request) {
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
    List<Command> requests = List.copyOf(queued);
    queued.clear();
    if (ready.failure() != null) {
      String what = "could not create the journal tables (create-schema = on)";
      getContext().getLog().warn("Coordinator state store of entity type [{}]: {}: {}; the coordinator retries with "
          + "backoff", typeName, what, CoordinatorStoreException.describe(ready.failure()));
      requests.forEach(r -> fail(r, CoordinatorStoreException.of(what, typeName, ready.failure())));
      return this;
    }
    schemaReady = true;
    requests.forEach(this::onRequest);
    return this;
  }

  private void startJournal() {
    incarnation++;
    journal = getContext().spawn(CoordinatorJournal.create(persistenceId, typeName, settings),
        "journal-" + incarnation);
    getContext().watch(journal);
  }

  private void send(Command request) {
    long id = nextId++;
    waiting.put(id, new Waiting(replyTo(request), what(request)));
    if (request instanceof Load) {
      journal.tell(new CoordinatorJournal.GetState(id, answers));
    } else if (request instanceof Store store) {
      journal.tell(new CoordinatorJournal.Persist(id, store.event(), store.stateAfter(), answers));
    }
  }

  private Behavior<Command> onAnswered(Answered answered) {
    CoordinatorJournal.Answer a = answered.answer();
    Waiting w = waiting.remove(a.id());
    if (w != null) {
      w.replyTo().tell(a.failure() == null ? new Reply<>(a.value(), null)
          : new Reply<>(null, CoordinatorStoreException.of(w.what(), typeName, a.failure())));
    }
    return this;
  }

  private Behavior<Command> onJournalStopped(ActorRef<Void> ref, Throwable cause) {
    if (!ref.equals(journal)) {
      return this;
    }
    journal = null;
    Throwable reason = cause != null ? cause
        : new IllegalStateException("the journal actor of persistenceId [" + persistenceId + "] stopped");
    getContext().getLog().warn("Coordinator state store of entity type [{}] (persistenceId [{}]): the journal failed: "
        + "{}; {} waiting request(s) fail, and the coordinator retries with backoff", typeName, persistenceId,
        CoordinatorStoreException.describe(reason), waiting.size());
    failWaiting(reason);
    return this;
  }

  private void failWaiting(Throwable reason) {
    List<Waiting> failed = new ArrayList<>(waiting.values());
    waiting.clear();
    failed.forEach(w -> w.replyTo().tell(new Reply<>(null, CoordinatorStoreException.of(w.what(), typeName,
        reason))));
  }

  private Behavior<Command> onPostStop() {
    Throwable closed = new IllegalStateException("the store was closed (its coordinator stopped)");
    failWaiting(closed);
    queued.forEach(r -> fail(r, CoordinatorStoreException.of(what(r), typeName, closed)));
    queued.clear();
    return this;
  }

  private static void fail(Command request, Throwable failure) {
    replyTo(request).tell(new Reply<>(null, failure));
  }

  /** What failed, if the request fails. */
  private static String what(Command request) {
    if (request instanceof Store store) {
      return "could not store " + store.event();
    }
    return "could not load the coordinator state";
  }

  private static ActorRef<Reply<Object>> replyTo(Command request) {
    if (request instanceof Load load) {
      return widen(load.replyTo());
    } else if (request instanceof Store store) {
      return widen(store.replyTo());
    }
    throw new IllegalArgumentException("not a request: " + request);
  }

  @SuppressWarnings("unchecked")
  private static ActorRef<Reply<Object>> widen(ActorRef<? extends Reply<?>> ref) {
    // Each waiting request is answered with the type its Load or Store asked for.
    return (ActorRef<Reply<Object>>) (ActorRef<?>) ref;
  }
}
