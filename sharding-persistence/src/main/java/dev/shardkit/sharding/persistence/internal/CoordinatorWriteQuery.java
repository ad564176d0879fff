package dev.shardkit.sharding.persistence.internal;

import com.typesafe.config.ConfigFactory;
import dev.shardkit.sharding.persistence.ShardingPersistenceIds;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.pattern.Patterns;
import org.apache.pekko.persistence.Persistence;
import org.apache.pekko.persistence.SnapshotProtocol;
import org.apache.pekko.persistence.SnapshotSelectionCriteria;
import org.apache.pekko.persistence.query.PersistenceQuery;
import org.apache.pekko.persistence.query.javadsl.CurrentEventsByPersistenceIdQuery;
import org.apache.pekko.stream.javadsl.Sink;

/**
 * Reads an entity type's {@link LastCoordinatorWrite}: its events with the read journal
 * ({@code read-journal-plugin-id}, which must be that of the journal), every one the journal still
 * holds (at most about {@code (keep-nr-of-batches + 1) x snapshot-after}), and the latest
 * snapshot from the snapshot store, for the node once the take-over event is deleted.
 */
public final class CoordinatorWriteQuery {
  private CoordinatorWriteQuery() {}

  /**
   * @param system a local actor system with the application's persistence plugins
   * @param timeout how long the snapshot store may take to answer
   * @return the last write, empty if nothing is stored; failed with an
   *     {@link IllegalStateException} naming the plugin if the read journal cannot start or lacks
   *     the query or the snapshot cannot be read, or with the read journal's error (the database
   *     is unreachable, or an event cannot be read, for two)
   */
  public static CompletionStage<Optional<LastCoordinatorWrite>> lastWrite(ActorSystem<?> system,
      PersistenceStoreSettings settings, String typeName, Duration timeout) {
    String persistenceId = ShardingPersistenceIds.coordinator(typeName);
    CurrentEventsByPersistenceIdQuery events;
    try {
      events = PersistenceQuery.get(system)
          .getReadJournalFor(CurrentEventsByPersistenceIdQuery.class, settings.readJournalPluginId());
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(new IllegalStateException("read journal ["
          + settings.readJournalPluginId() + "] cannot read events by persistence id: " + e.getMessage(), e));
    }
    return snapshotNode(system, settings, persistenceId, timeout).thenCompose(node -> events
        .currentEventsByPersistenceId(persistenceId, 0, Long.MAX_VALUE)
        .map(e -> new LastCoordinatorWrite.Written(e.sequenceNr(), e.timestamp(), e.event()))
        .runWith(Sink.seq(), system)
        .thenApply(written -> LastCoordinatorWrite.of(written, node)));
  }

  private static CompletionStage<Optional<String>> snapshotNode(ActorSystem<?> system,
      PersistenceStoreSettings settings, String persistenceId, Duration timeout) {
    var store = Persistence.get(Adapter.toClassic(system)).snapshotStoreFor(settings.snapshotPluginId(),
        ConfigFactory.empty());
    return Patterns.ask(store, new SnapshotProtocol.LoadSnapshot(persistenceId, SnapshotSelectionCriteria.latest(),
        Long.MAX_VALUE), timeout).thenApply(answer -> {
          if (answer instanceof SnapshotProtocol.LoadSnapshotResult result) {
            return result.snapshot().isDefined() && result.snapshot().get().snapshot() instanceof StoredSnapshot s
                ? Optional.ofNullable(s.node()) : Optional.<String>empty();
          }
          Throwable cause = answer instanceof SnapshotProtocol.LoadSnapshotFailed f ? f.cause() : null;
          throw new IllegalStateException("snapshot store [" + settings.snapshotPluginId() + "] could not read the "
              + "latest snapshot of persistenceId [" + persistenceId + "]: " + (cause != null ? cause : answer), cause);
        });
  }
}
