package dev.shardkit.sharding.persistence.internal;

import org.apache.pekko.Done;
import org.apache.pekko.actor.NoSerializationVerificationNeeded;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.persistence.typed.RecoveryCompleted;
import org.apache.pekko.persistence.typed.SnapshotAdapter;
import org.apache.pekko.persistence.typed.javadsl.CommandHandler;
import org.apache.pekko.persistence.typed.javadsl.Effect;
import org.apache.pekko.persistence.typed.javadsl.EventHandler;
import org.apache.pekko.persistence.typed.javadsl.SignalHandler;

/**
 * One shard's remembered entities, event-sourced: one {@link StoredEntitiesChange} per update (a
 * batch, however many entities it names), with a snapshot of the whole set every
 * {@code remember-entities.snapshot-after} updates and older events and snapshots deleted. An
 * update that the state already {@linkplain RememberedEntities#reflects reflects} is confirmed
 * without a write.
 *
 * <p>Like {@link CoordinatorJournal} it stops at the first journal failure
 * ({@link JournalFailures}); its {@link JournalStoreActor} fails the waiting requests and starts a
 * new one on the shard's next attempt.
 */
final class EntitiesJournal extends StoreJournal<EntitiesJournal.Command, StoredEntitiesChange,
    RememberedEntities> {

  /** Requests from {@link JournalStoreActor}; each is answered with a {@link JournalAnswer} of its id. */
  sealed interface Command extends NoSerializationVerificationNeeded {}

  /** Asks for the remembered ids (a {@code Set<String>}); answered once recovery is complete. */
  record GetIds(long id, ActorRef<JournalAnswer> replyTo) implements Command {}

  /**
   * Asks to store {@code change} as one event; answered with {@link Done} once it is written (at
   * once if it would change nothing).
   */
  record Update(long id, StoredEntitiesChange change, ActorRef<JournalAnswer> replyTo) implements Command {}

  private final ActorContext<Command> context;
  private final String subject;

  private EntitiesJournal(ActorContext<Command> context, String persistenceId, String subject,
      PersistenceStoreSettings settings) {
    super(persistenceId, settings, settings.rememberEntities());
    this.context = context;
    this.subject = subject;
  }

  /** @param subject whose entities, for logs and errors: {@code "entity type [T], shard [S]"} */
  static Behavior<Command> create(String persistenceId, String subject, PersistenceStoreSettings settings) {
    return Behaviors.setup(ctx -> new EntitiesJournal(ctx, persistenceId, subject, settings));
  }

  @Override
  public RememberedEntities emptyState() {
    return RememberedEntities.empty();
  }

  @Override
  public SnapshotAdapter<RememberedEntities> snapshotAdapter() {
    return new SnapshotAdapter<>() {
      @Override
      public Object toJournal(RememberedEntities state) {
        return state.toStored();
      }

      @Override
      public RememberedEntities fromJournal(Object from) {
        if (from instanceof StoredEntitiesSnapshot s) {
          return RememberedEntities.fromStored(s);
        }
        throw new IllegalStateException("Unexpected remembered-entities snapshot of " + from.getClass().getName()
            + "; expected " + StoredEntitiesSnapshot.class.getName());
      }
    };
  }

  @Override
  public CommandHandler<Command, StoredEntitiesChange, RememberedEntities> commandHandler() {
    return newCommandHandlerBuilder().forAnyState()
        .onCommand(GetIds.class, (state, get) -> Effect().none()
            .thenRun(s -> get.replyTo().tell(JournalAnswer.of(get.id(), s.ids()))))
        .onCommand(Update.class, this::onUpdate)
        .build();
  }

  private Effect<StoredEntitiesChange, RememberedEntities> onUpdate(RememberedEntities state, Update update) {
    if (state.reflects(update.change())) {
      // A retry of a write whose confirmation was lost, or nothing at all: writing it would
      // change nothing on replay.
      context.getLog().debug("Remembered entities of {} already reflect the update of {} started and {} stopped "
          + "entities; not writing it", subject, update.change().started().size(), update.change().stopped().size());
      return Effect().none().thenRun(s -> update.replyTo().tell(JournalAnswer.of(update.id(), Done.getInstance())));
    }
    return Effect().persist(update.change())
        .thenRun(s -> update.replyTo().tell(JournalAnswer.of(update.id(), Done.getInstance())));
  }

  @Override
  public EventHandler<RememberedEntities, StoredEntitiesChange> eventHandler() {
    return newEventHandlerBuilder().forAnyState().onAnyEvent(this::onEvent);
  }

  private RememberedEntities onEvent(RememberedEntities state, StoredEntitiesChange change) {
    try {
      return state.applied(change);
    } catch (IllegalStateException e) {
      throw EntitiesRecovery.cannotApply(lastSequenceNumber(context), subject, e);
    }
  }

  @Override
  public SignalHandler<RememberedEntities> signalHandler() {
    return JournalFailures.warnOnSnapshotFailures(newSignalHandlerBuilder(), context.getLog(),
            "Remembered entities of " + subject)
        .onSignal(RecoveryCompleted.instance(), state -> context.getLog().debug(
            "Remembered entities of {} recovered up to event #{}: {}", subject, lastSequenceNumber(context), state))
        .build();
  }
}
