package dev.shardkit.sharding.persistence.internal;

import java.util.List;
import org.apache.pekko.Done;
import org.apache.pekko.actor.NoSerializationVerificationNeeded;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.persistence.typed.PersistenceId;
import org.apache.pekko.persistence.typed.javadsl.CommandHandler;
import org.apache.pekko.persistence.typed.javadsl.EventHandler;
import org.apache.pekko.persistence.typed.javadsl.EventSourcedBehavior;

/**
 * Writes stored events under a persistence id exactly as given, without the store's checks: how a
 * test puts a duplicate or an inconsistent event into the journal.
 */
final class RawJournalWriter extends EventSourcedBehavior<RawJournalWriter.Write, StoredEvent, Integer> {

  record Write(List<StoredEvent> events, ActorRef<Done> replyTo) implements NoSerializationVerificationNeeded {}

  private final PersistenceStoreSettings settings;

  RawJournalWriter(String persistenceId, PersistenceStoreSettings settings) {
    super(PersistenceId.ofUniqueId(persistenceId));
    this.settings = settings;
  }

  @Override
  public Integer emptyState() {
    return 0;
  }

  @Override
  public String journalPluginId() {
    return settings.journalPluginId();
  }

  @Override
  public String snapshotPluginId() {
    return settings.snapshotPluginId();
  }

  @Override
  public CommandHandler<Write, StoredEvent, Integer> commandHandler() {
    return newCommandHandlerBuilder().forAnyState()
        .onCommand(Write.class,
            (state, w) -> Effect().persist(w.events()).thenReply(w.replyTo(), s -> Done.getInstance()))
        .build();
  }

  @Override
  public EventHandler<Integer, StoredEvent> eventHandler() {
    return newEventHandlerBuilder().forAnyState().onAnyEvent((count, e) -> count + 1);
  }
}
