package dev.shardkit.sharding.persistence.internal;

import dev.shardkit.sharding.spi.CoordinatorEvent;
import dev.shardkit.sharding.spi.CoordinatorState;
import dev.shardkit.sharding.spi.CoordinatorStateSupersededException;
import dev.shardkit.sharding.spi.LoadedCoordinatorState;
import java.util.ArrayList;
import java.util.List;
import org.apache.pekko.Done;
import org.apache.pekko.actor.NoSerializationVerificationNeeded;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.persistence.typed.EventAdapter;
import org.apache.pekko.persistence.typed.EventSeq;
import org.apache.pekko.persistence.typed.RecoveryCompleted;
import org.apache.pekko.persistence.typed.SnapshotAdapter;
import org.apache.pekko.persistence.typed.javadsl.CommandHandler;
import org.apache.pekko.persistence.typed.javadsl.Effect;
import org.apache.pekko.persistence.typed.javadsl.EffectBuilder;
import org.apache.pekko.persistence.typed.javadsl.EventHandler;
import org.apache.pekko.persistence.typed.javadsl.SignalHandler;

/**
 * One entity type's coordinator state, event-sourced: the events the coordinator stores, with a
 * snapshot of the whole state every {@code snapshot-after} events and older events and snapshots
 * deleted. Its state mirrors the coordinator's, which lets it recognise an event it already has
 * (written, confirmation lost, written again) and acknowledge it without a second write. A write
 * of {@link #BATCH_FROM} or more events is one journal row ({@link CoordinatorEventsBatch}), which
 * replay applies event by event, as if they had been written one by one.
 *
 * <p><b>Terms.</b> A coordinator loads with {@link TakeOver}, which writes a
 * {@link CoordinatorTakeOver} event: its sequence number is the coordinator's term. Every write
 * carries its coordinator's term, and one whose term is below the last take-over the journal has
 * seen is refused with {@link CoordinatorStateSupersededException}: that coordinator was deposed,
 * and what it holds is stale. A deposed coordinator's journal that has not seen the take-over
 * writes at a sequence number its successor's take-over already holds, which the journal refuses;
 * the fresh journal that replaces it (see below) replays the take-over and refuses the write. The
 * take-over names the node that took over, and snapshots keep it beside the term, so that
 * {@code RemoveShardingData} can name the node of the last write after the event is deleted.
 *
 * <p><b>Keep-alives.</b> A {@link KeepAlive} writes a {@link CoordinatorKeepAlive} at its
 * coordinator's term, refused like any write of a deposed coordinator. Replay skips it for the
 * state; it counts towards {@code snapshot-after} like every event, so the events behind snapshots
 * are deleted and an idle coordinator's journal does not grow.
 *
 * <p>It stops at the first journal failure (a write or recovery that failed), without retrying:
 * {@link JournalStoreActor} fails the waiting requests with the cause and starts a new one on the
 * next request, which the coordinator sends with its own backoff ({@link JournalFailures}).
 */
final class CoordinatorJournal extends StoreJournal<CoordinatorJournal.Command, Object,
    TermedCoordinatorState> {

  /** Requests from {@link JournalStoreActor}; each is answered with a {@link JournalAnswer} of its id. */
  sealed interface Command extends NoSerializationVerificationNeeded {}

  /** Asks for the {@link CoordinatorState}; answered once recovery is complete. */
  record GetState(long id, ActorRef<JournalAnswer> replyTo) implements Command {}

  /**
   * A coordinator loads: writes a {@link CoordinatorTakeOver}, answered with the
   * {@link LoadedCoordinatorState} whose term is that event's sequence number.
   */
  record TakeOver(long id, ActorRef<JournalAnswer> replyTo) implements Command {}

  /**
   * Writes a {@link CoordinatorKeepAlive} for the coordinator of {@code term}; answered with
   * {@link Done}, or failed with {@link CoordinatorStateSupersededException} once another
   * coordinator took over.
   */
  record KeepAlive(long id, long term, ActorRef<JournalAnswer> replyTo) implements Command {}

  /**
   * Asks to store {@code events} in one atomic write for the coordinator of {@code term}, after
   * which the coordinator's state is {@code stateAfter}; answered with {@link Done}.
   */
  record Persist(long id, List<CoordinatorEvent> events, CoordinatorState stateAfter, long term,
      ActorRef<JournalAnswer> replyTo) implements Command {
    Persist {
      events = List.copyOf(events);
    }
  }

  /**
   * From this many events, a write is one {@link CoordinatorEventsBatch} journal row instead of
   * one row per event: a database inserts one row far faster than thousands, and replay costs the
   * same. Smaller writes keep the single-event form, which is easier to read in the journal.
   */
  static final int BATCH_FROM = 8;

  private final ActorContext<Command> context;
  private final String typeName;
  private final StoredForm form;

  private CoordinatorJournal(ActorContext<Command> context, String persistenceId, String typeName,
      PersistenceStoreSettings settings) {
    super(persistenceId, settings, settings.coordinator());
    this.context = context;
    this.typeName = typeName;
    this.form = new StoredForm(context.getSystem());
  }

  static Behavior<Command> create(String persistenceId, String typeName, PersistenceStoreSettings settings) {
    return Behaviors.setup(ctx -> new CoordinatorJournal(ctx, persistenceId, typeName, settings));
  }

  @Override
  public TermedCoordinatorState emptyState() {
    return TermedCoordinatorState.EMPTY;
  }

  /**
   * Coordinator events as {@link StoredForm} stores them, take-overs as
   * {@link StoredEvent.Kind#TAKEN_OVER} and keep-alives as {@link StoredEvent.Kind#KEPT_ALIVE}.
   */
  @Override
  public EventAdapter<Object, ?> eventAdapter() {
    EventAdapter<CoordinatorEvent, StoredEvent> events = form.eventAdapter();
    return new EventAdapter<Object, StoredRecord>() {
      @Override
      public StoredRecord toJournal(Object e) {
        if (e instanceof CoordinatorEventsBatch b) {
          return form.toStored(b.events());
        }
        if (e instanceof CoordinatorTakeOver t) {
          return StoredEvent.takenOver(t.node());
        }
        return e instanceof CoordinatorKeepAlive k ? StoredEvent.keptAlive(k.node())
            : events.toJournal((CoordinatorEvent) e);
      }

      @Override
      public String manifest(Object event) {
        return "";
      }

      @Override
      public EventSeq<Object> fromJournal(StoredRecord record, String manifest) {
        if (record instanceof StoredEventsBatch b) {
          List<CoordinatorEvent> read = form.fromStored(b);
          return read.isEmpty() ? EventSeq.empty() : EventSeq.single(new CoordinatorEventsBatch(read));
        }
        if (!(record instanceof StoredEvent p)) {
          throw new IllegalStateException("Unexpected coordinator journal record of " + record.getClass().getName()
              + "; expected " + StoredEvent.class.getName() + " or " + StoredEventsBatch.class.getName());
        }
        if (p.kind() == StoredEvent.Kind.TAKEN_OVER) {
          return EventSeq.single(new CoordinatorTakeOver(p.node()));
        }
        return EventSeq.single(p.kind() == StoredEvent.Kind.KEPT_ALIVE ? new CoordinatorKeepAlive(p.node())
            : form.fromStored(p));
      }
    };
  }

  /** Snapshots hold the state as {@link StoredForm} stores it, the term, and the node that took over at it. */
  @Override
  public SnapshotAdapter<TermedCoordinatorState> snapshotAdapter() {
    SnapshotAdapter<CoordinatorState> states = form.snapshotAdapter();
    return new SnapshotAdapter<>() {
      @Override
      public Object toJournal(TermedCoordinatorState termed) {
        return ((StoredSnapshot) states.toJournal(termed.state())).withTerm(termed.term(), termed.node());
      }

      @Override
      public TermedCoordinatorState fromJournal(Object from) {
        long term = from instanceof StoredSnapshot s ? s.termOrZero() : 0;
        String node = from instanceof StoredSnapshot s ? s.node() : null;
        return new TermedCoordinatorState(states.fromJournal(from), term, node);
      }
    };
  }

  @Override
  public CommandHandler<Command, Object, TermedCoordinatorState> commandHandler() {
    return newCommandHandlerBuilder().forAnyState()
        .onCommand(GetState.class, (termed, get) -> Effect().none()
            .thenRun(s -> get.replyTo().tell(JournalAnswer.of(get.id(), s.state()))))
        .onCommand(TakeOver.class, this::onTakeOver)
        .onCommand(KeepAlive.class, this::onKeepAlive)
        .onCommand(Persist.class, this::onPersist)
        .build();
  }

  private Effect<Object, TermedCoordinatorState> onTakeOver(TermedCoordinatorState termed, TakeOver t) {
    // The sequence number the take-over is written at; a concurrent take-over that wrote it first
    // makes this write fail, and the load is tried again on a fresh journal.
    long term = lastSequenceNumber(context) + 1;
    CoordinatorTakeOver takeOver = new CoordinatorTakeOver(context.getSystem().address().toString());
    return Effect().persist(takeOver).thenRun(after -> t.replyTo().tell(
        JournalAnswer.of(t.id(), new LoadedCoordinatorState(term, after.state()))));
  }

  private Effect<Object, TermedCoordinatorState> onKeepAlive(TermedCoordinatorState termed, KeepAlive k) {
    if (termed.term() > k.term()) {
      return refused(superseded(termed, "a keep-alive", k.term()), k.id(), k.replyTo());
    }
    return Effect().persist(new CoordinatorKeepAlive(context.getSystem().address().toString()))
        .thenRun(after -> k.replyTo().tell(JournalAnswer.of(k.id(), Done.getInstance())));
  }

  private CoordinatorStateSupersededException superseded(TermedCoordinatorState termed, String what, long term) {
    return new CoordinatorStateSupersededException("Not storing " + what + " for entity type [" + typeName
        + "]: a coordinator took over at term " + termed.term() + " after the one at term " + term + " that asks");
  }

  private Effect<Object, TermedCoordinatorState> refused(Throwable why, long id, ActorRef<JournalAnswer> replyTo) {
    return Effect().none().thenRun(after -> replyTo.tell(JournalAnswer.failed(id, why)));
  }

  /**
   * Writes the events that follow the stored state. A leading run of events the state already
   * holds is an earlier write whose confirmation was lost, retried together with what was decided
   * since: only the rest is written. Anything else that does not fit is refused.
   */
  private Effect<Object, TermedCoordinatorState> onPersist(TermedCoordinatorState termed, Persist p) {
    if (termed.term() > p.term()) {
      return refused(superseded(termed, p.events().toString(), p.term()), p.id(), p.replyTo());
    }
    CoordinatorState state = termed.state();
    CoordinatorState s = state;
    List<CoordinatorEvent> toWrite = new ArrayList<>();
    String conflict = null;
    for (CoordinatorEvent event : p.events()) {
      EventFit fit = EventFit.of(s, event);
      if (fit instanceof EventFit.Applies applies) {
        s = applies.after();
        toWrite.add(event);
      } else if (!(fit instanceof EventFit.AlreadyReflected) || !toWrite.isEmpty()) {
        conflict = fit instanceof EventFit.Conflicts c ? c.reason() : event + " is already reflected mid-batch";
        break;
      }
    }
    if (conflict == null && s.equals(p.stateAfter())) {
      if (toWrite.size() < p.events().size()) {
        context.getLog().debug("Coordinator state of [{}] already holds the first {} of {} event(s) (an earlier "
            + "write whose confirmation was lost); writing the rest", typeName, p.events().size() - toWrite.size(),
            p.events().size());
      }
      EffectBuilder<Object, TermedCoordinatorState> effect = toWrite.isEmpty() ? Effect().none()
          : toWrite.size() >= BATCH_FROM ? Effect().persist(new CoordinatorEventsBatch(toWrite, state, s))
          : Effect().persist(List.<Object>copyOf(toWrite));
      return effect.thenRun(after -> p.replyTo().tell(JournalAnswer.of(p.id(), Done.getInstance())));
    }
    // Only a request that the coordinator gave up on (timed out) and has since moved past gets
    // here; nothing is written, and the coordinator no longer waits for this answer.
    String why = conflict != null ? conflict : "the stored state is not the one it follows";
    IllegalStateException refused = new IllegalStateException("Not storing " + p.events() + " for entity type ["
        + typeName + "]: it does not follow the stored state " + state + " (" + why + ")");
    return refused(refused, p.id(), p.replyTo());
  }

  @Override
  public EventHandler<TermedCoordinatorState, Object> eventHandler() {
    return newEventHandlerBuilder().forAnyState()
        .onEvent(CoordinatorTakeOver.class, (termed, takeOver) -> termed.takenOver(lastSequenceNumber(context),
            takeOver.node()))
        // Changes nothing: that coordinator's take-over already gave the term and node.
        .onEvent(CoordinatorKeepAlive.class, (termed, keepAlive) -> termed)
        .onEvent(CoordinatorEvent.class, (termed, event) -> termed.with(onEvent(termed.state(), event)))
        .onEvent(CoordinatorEventsBatch.class, (termed, batch) -> termed.with(onBatch(termed.state(), batch)))
        .build();
  }

  private CoordinatorState onBatch(CoordinatorState state, CoordinatorEventsBatch batch) {
    CoordinatorState written = batch.afterFrom(state);
    if (written != null) {
      return written;
    }
    CoordinatorState s = state;
    for (CoordinatorEvent event : batch.events()) {
      s = onEvent(s, event);
    }
    return s;
  }

  private CoordinatorState onEvent(CoordinatorState state, CoordinatorEvent event) {
    EventFit fit = EventFit.of(state, event);
    if (fit instanceof EventFit.Applies applies) {
      return applies.after();
    }
    long seqNr = lastSequenceNumber(context);
    if (fit instanceof EventFit.AlreadyReflected) {
      context.getLog().warn("Coordinator state of [{}]: skipping stored event #{} {}: the state already reflects "
          + "it (it was written twice, after a write whose confirmation was lost)", typeName, seqNr, event);
      return state;
    }
    throw new IllegalStateException("Stored coordinator event #" + seqNr + " " + event + " of entity type ["
        + typeName + "] does not fit the state before it (" + ((EventFit.Conflicts) fit).reason() + "): the "
        + "stored data is inconsistent. With the whole cluster stopped, "
        + "dev.shardkit.sharding.persistence.RemoveShardingData deletes it");
  }

  @Override
  public SignalHandler<TermedCoordinatorState> signalHandler() {
    return JournalFailures.warnOnSnapshotFailures(newSignalHandlerBuilder(), context.getLog(),
            "Coordinator state of [" + typeName + "]")
        .onSignal(RecoveryCompleted.instance(), state -> context.getLog().debug(
            "Coordinator state of [{}] recovered up to event #{}: {}", typeName, lastSequenceNumber(context), state))
        .build();
  }
}
