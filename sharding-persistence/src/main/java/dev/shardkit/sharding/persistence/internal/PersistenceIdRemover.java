package dev.shardkit.sharding.persistence.internal;

import java.util.concurrent.CompletableFuture;
import org.apache.pekko.actor.Props;
import org.apache.pekko.persistence.AbstractPersistentActor;
import org.apache.pekko.persistence.DeleteMessagesFailure;
import org.apache.pekko.persistence.DeleteMessagesSuccess;
import org.apache.pekko.persistence.DeleteSnapshotsFailure;
import org.apache.pekko.persistence.DeleteSnapshotsSuccess;
import org.apache.pekko.persistence.Recovery;
import org.apache.pekko.persistence.RecoveryCompleted;
import org.apache.pekko.persistence.SnapshotSelectionCriteria;
import scala.Option;

/**
 * Deletes every snapshot and every event of one persistence id, then stops. It reads no event and
 * no snapshot (only the highest sequence number), so it works on data that cannot be read, which
 * is when it is needed. Snapshots go first: if the events cannot be deleted afterwards, the id is
 * still listed by the read journal (which lists ids by their events), so the next run finds it.
 *
 * <p>It uses the actor system's default journal and snapshot store
 * ({@code pekko.persistence.journal.plugin}, {@code pekko.persistence.snapshot-store.plugin}):
 * a persistent actor looks its plugins up while it is constructed, before a field of its own could
 * name them.
 */
public final class PersistenceIdRemover extends AbstractPersistentActor {

  /** What was deleted: all snapshots, and events up to {@code highestSequenceNr} (0: there were none). */
  public record Removed(String persistenceId, long highestSequenceNr) {}

  private final String persistenceId;
  private final CompletableFuture<Removed> result;
  private long highest;

  private PersistenceIdRemover(String persistenceId, CompletableFuture<Removed> result) {
    this.persistenceId = persistenceId;
    this.result = result;
  }

  /** @param result completed when done, or failed with the journal's or snapshot store's error */
  public static Props props(String persistenceId, CompletableFuture<Removed> result) {
    return Props.create(PersistenceIdRemover.class, () -> new PersistenceIdRemover(persistenceId, result));
  }

  @Override
  public String persistenceId() {
    return persistenceId;
  }

  /** Replays nothing; the highest sequence number is still read. */
  @Override
  public Recovery recovery() {
    return Recovery.none();
  }

  @Override
  public Receive createReceiveRecover() {
    return receiveBuilder()
        .match(RecoveryCompleted.class, done -> {
          highest = lastSequenceNr();
          deleteSnapshots(SnapshotSelectionCriteria.latest());
        })
        .matchAny(ignored -> {})
        .build();
  }

  @Override
  public Receive createReceive() {
    return receiveBuilder()
        .match(DeleteSnapshotsSuccess.class, ok -> deleteMessages(Long.MAX_VALUE))
        .match(DeleteSnapshotsFailure.class, f -> finish(new IllegalStateException(
            "could not delete the snapshots of persistenceId [" + persistenceId + "]: " + f.cause(), f.cause())))
        .match(DeleteMessagesSuccess.class, ok -> {
          result.complete(new Removed(persistenceId, highest));
          getContext().stop(getSelf());
        })
        .match(DeleteMessagesFailure.class, f -> finish(new IllegalStateException(
            "could not delete the events of persistenceId [" + persistenceId + "]: " + f.cause(), f.cause())))
        .build();
  }

  private void finish(Throwable failure) {
    result.completeExceptionally(failure);
    getContext().stop(getSelf());
  }

  /** Reports the failure instead of logging it (the tool prints it); the actor stops afterwards. */
  @Override
  public void onRecoveryFailure(Throwable cause, Option<Object> event) {
    result.completeExceptionally(new IllegalStateException(
        "could not read the highest sequence number of persistenceId [" + persistenceId + "]: " + cause, cause));
  }

  @Override
  public void postStop() throws Exception {
    result.completeExceptionally(new IllegalStateException("the remover of persistenceId [" + persistenceId
        + "] stopped before it finished"));
    super.postStop();
  }
}
