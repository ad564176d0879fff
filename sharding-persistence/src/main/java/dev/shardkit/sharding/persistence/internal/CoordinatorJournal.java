package dev.shardkit.sharding.persistence.internal;

import dev.shardkit.sharding.spi.CoordinatorEvent;
import dev.shardkit.sharding.spi.CoordinatorState;
import java.util.ArrayList;
import java.util.List;
import org.apache.pekko.Done;
import org.apache.pekko.actor.NoSerializationVerificationNeeded;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.persistence.typed.EventAdapter;
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
 * (written, confirmation lost, written again) and acknowledge it without a second write.
 *
 * <p>It stops at the first journal failure (a write or recovery that failed), without retrying:
 * {@link JournalStoreActor} fails the waiting requests with the cause and starts a new one on the
 * next request, which the coordinator sends with its own backoff ({@link JournalFailures}).
 */
final class CoordinatorJournal extends StoreJournal<CoordinatorJournal.Command, CoordinatorEvent,
    CoordinatorState> {

  /** Requests from {@link JournalStoreActor}; each is answered with a {@link JournalAnswer} of its id. */
  sealed interface Command extends NoSerializationVerificationNeeded {}

  /** Asks for the {@link CoordinatorState}; answered once recovery is complete. */
  record GetState(long id, ActorRef<JournalAnswer> replyTo) implements Command {}

  /**
   * Asks to store {@code events} in one atomic write, after which the coordinator's state is
   * {@code stateAfter}; answered with {@link Done}.
   */
  record Persist(long id, List<CoordinatorEvent> events, CoordinatorState stateAfter,
      ActorRef<JournalAnswer> replyTo) implements Command {
    Persist {
      events = List.copyOf(events);
    }
  }

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
  public CoordinatorState emptyState() {
    return CoordinatorState.empty();
  }

  @Override
  public EventAdapter<CoordinatorEvent, ?> eventAdapter() {
    return form.eventAdapter();
  }

  @Override
  public SnapshotAdapter<CoordinatorState> snapshotAdapter() {
    return form.snapshotAdapter();
  }

  @Override
  public CommandHandler<Command, CoordinatorEvent, CoordinatorState> commandHandler() {
    return newCommandHandlerBuilder().forAnyState()
        .onCommand(GetState.class, (state, get) -> Effect().none()
            .thenRun(s -> get.replyTo().tell(JournalAnswer.of(get.id(), s))))
        .onCommand(Persist.class, this::onPersist)
        .build();
  }

  /**
   * Writes the events that follow the stored state. A leading run of events the state already
   * holds is an earlier write whose confirmation was lost, retried together with what was decided
   * since: only the rest is written. Anything else that does not fit is refused.
   */
  private Effect<CoordinatorEvent, CoordinatorState> onPersist(CoordinatorState state, Persist p) {
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
      EffectBuilder<CoordinatorEvent, CoordinatorState> effect = toWrite.isEmpty() ? Effect().none()
          : Effect().persist(toWrite);
      return effect.thenRun(after -> p.replyTo().tell(JournalAnswer.of(p.id(), Done.getInstance())));
    }
    // Only a request that the coordinator gave up on (timed out) and has since moved past gets
    // here; nothing is written, and the coordinator no longer waits for this answer.
    String why = conflict != null ? conflict : "the stored state is not the one it follows";
    IllegalStateException refused = new IllegalStateException("Not storing " + p.events() + " for entity type ["
        + typeName + "]: it does not follow the stored state " + state + " (" + why + ")");
    return Effect().none().thenRun(after -> p.replyTo().tell(JournalAnswer.failed(p.id(), refused)));
  }

  @Override
  public EventHandler<CoordinatorState, CoordinatorEvent> eventHandler() {
    return newEventHandlerBuilder().forAnyState().onAnyEvent(this::onEvent);
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
  public SignalHandler<CoordinatorState> signalHandler() {
    return JournalFailures.warnOnSnapshotFailures(newSignalHandlerBuilder(), context.getLog(),
            "Coordinator state of [" + typeName + "]")
        .onSignal(RecoveryCompleted.instance(), state -> context.getLog().debug(
            "Coordinator state of [{}] recovered up to event #{}: {}", typeName, lastSequenceNumber(context), state))
        .build();
  }
}
