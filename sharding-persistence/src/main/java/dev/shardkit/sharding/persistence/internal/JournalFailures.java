package dev.shardkit.sharding.persistence.internal;

import java.time.Duration;
import org.apache.pekko.actor.typed.BackoffSupervisorStrategy;
import org.apache.pekko.actor.typed.SupervisorStrategy;
import org.apache.pekko.persistence.typed.DeleteEventsFailed;
import org.apache.pekko.persistence.typed.DeleteSnapshotsFailed;
import org.apache.pekko.persistence.typed.SnapshotFailed;
import org.apache.pekko.persistence.typed.javadsl.SignalHandlerBuilder;
import org.slf4j.Logger;

/**
 * How the stores' journals ({@link CoordinatorJournal}, {@link EntitiesJournal}) treat failures:
 * a failed write or recovery stops the journal (its {@link JournalStoreActor} reports it and a
 * later request starts a new one); a failed snapshot or deletion only costs a longer replay, so it
 * is a warning and the journal goes on.
 */
final class JournalFailures {
  private JournalFailures() {}

  /**
   * A backoff that allows no restart fails the journal at once, without Pekko's own error log:
   * the parent reports the failure, and the retry of the store's user starts a new journal.
   */
  static BackoffSupervisorStrategy stopAtFirstFailure() {
    return SupervisorStrategy.restartWithBackoff(Duration.ofMillis(100), Duration.ofSeconds(1), 0.0)
        .withMaxRestarts(0)
        .withLoggingEnabled(false);
  }

  /**
   * Adds the warnings for failed snapshots and deletions to a journal's signal handler.
   *
   * @param what whose data, e.g. {@code "Coordinator state of [Cart]"}
   */
  static <S> SignalHandlerBuilder<S> warnOnSnapshotFailures(SignalHandlerBuilder<S> handler, Logger log,
      String what) {
    return handler
        .onSignal(SnapshotFailed.class, (state, f) -> log.warn("{}: could not write a snapshot ({}); the events stay, "
            + "recovery replays more of them", what, f.getFailure().toString()))
        .onSignal(DeleteEventsFailed.class, (state, f) -> log.warn("{}: could not delete events before #{} ({}); they "
            + "are deleted after a later snapshot", what, f.getToSequenceNr(), f.getFailure().toString()))
        .onSignal(DeleteSnapshotsFailed.class, (state, f) -> log.warn("{}: could not delete old snapshots ({}); they "
            + "are deleted after a later snapshot", what, f.getFailure().toString()));
  }
}
