package dev.shardkit.sharding.persistence.internal;

import com.typesafe.config.Config;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.Extension;
import org.apache.pekko.actor.typed.ExtensionId;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.persistence.jdbc.db.SlickDatabase;
import org.apache.pekko.persistence.jdbc.db.SlickExtension;
import org.apache.pekko.persistence.jdbc.db.SlickExtensionImpl;
import org.apache.pekko.serialization.Serialization;
import org.apache.pekko.serialization.SerializationExtension;

/**
 * Loads the remembered entities of many shards with one pair of queries: the shards of a node
 * that ask while a read is in flight are read together by the next one (the first shard of a
 * quiet node is read at once), so 1 000 shards starting together cost a handful of reads, not
 * three round trips each through a small connection pool. Each shard gets exactly the ids a
 * recovery of its own journal would give ({@link EntitiesRecovery}), and no shard's journal is
 * started for it: a store starts its journal only at its first write.
 *
 * <p>It applies where both plugins are pekko-persistence-jdbc's with their default DAOs on a
 * shared database ({@code use-shared-db}, as shardkit's default plugins are): it then reads their
 * tables through the plugins' own connection pool, on the blocking-IO dispatcher, and names and
 * quotes tables and columns as the plugins do ({@link EntitiesTables}). Elsewhere
 * {@link #reader} is empty and the store loads through its journal as before. One per actor
 * system; thread-safe.
 */
public final class EntitiesLoadBatch implements Extension {
  private static final ExtensionId<EntitiesLoadBatch> ID = new ExtensionId<>() {
    @Override
    public EntitiesLoadBatch createExtension(ActorSystem<?> system) {
      return new EntitiesLoadBatch(system);
    }
  };

  /** Bound on the persistence ids of one statement (and its bind parameters). */
  static final int IDS_PER_STATEMENT = 500;

  private final ActorSystem<?> system;
  private final Map<String, Optional<Reader>> readers = new HashMap<>();

  private EntitiesLoadBatch(ActorSystem<?> system) {
    this.system = system;
  }

  public static EntitiesLoadBatch get(ActorSystem<?> system) {
    return ID.apply(system);
  }

  /**
   * The batched reader of the settings' plugins, or empty if they are not pekko-persistence-jdbc's
   * on shared databases with the default DAOs.
   */
  public synchronized Optional<Reader> reader(PersistenceStoreSettings settings) {
    return readers.computeIfAbsent(settings.journalPluginId() + "\n" + settings.snapshotPluginId(),
        key -> newReader(settings));
  }

  private Optional<Reader> newReader(PersistenceStoreSettings settings) {
    Config root = system.settings().config();
    Config journal = root.getConfig(settings.journalPluginId());
    Config snapshot = root.getConfig(settings.snapshotPluginId());
    if (!shared(journal) || !shared(snapshot)) {
      return Optional.empty();
    }
    SlickExtensionImpl slick = (SlickExtensionImpl) SlickExtension.get(Adapter.toClassic(system));
    SlickDatabase journalDb = slick.database(journal);
    SlickDatabase snapshotDb = slick.database(snapshot);
    return EntitiesTables.of(journal, snapshot, journalDb.profile()::quoteIdentifier)
        .map(tables -> new Reader(settings, tables, journalDb, snapshotDb));
  }

  private static boolean shared(Config plugin) {
    return plugin.hasPath("use-shared-db") && !plugin.getString("use-shared-db").isEmpty();
  }

  /** The batched reads of one journal and snapshot store. */
  public final class Reader {
    private final PersistenceStoreSettings settings;
    private final EntitiesTables tables;
    private final SlickDatabase journalDb;
    private final SlickDatabase snapshotDb;
    private final Serialization serialization;
    private final Executor blocking;
    /** Shards waiting for the next read, by persistence id (a shard may ask twice). */
    private Map<String, List<Waiting>> next = new LinkedHashMap<>();
    private boolean reading;

    private Reader(PersistenceStoreSettings settings, EntitiesTables tables, SlickDatabase journalDb,
        SlickDatabase snapshotDb) {
      this.settings = settings;
      this.tables = tables;
      this.journalDb = journalDb;
      this.snapshotDb = snapshotDb;
      this.serialization = SerializationExtension.get(Adapter.toClassic(system));
      this.blocking = system.dispatchers().lookup(DispatcherSelector.blocking());
    }

    /**
     * The remembered entities of {@code persistenceId}, as its journal's recovery would give
     * them. Fails with the database's error if the read failed, or with the
     * {@link IllegalStateException} of {@link EntitiesRecovery} if this id's rows cannot be read
     * or applied (the other shards of the read are not affected).
     *
     * @param subject whose entities, for errors: {@code "entity type [T], shard [S]"}
     */
    public CompletionStage<RememberedEntities> load(String persistenceId, String subject) {
      CompletableFuture<RememberedEntities> result = new CompletableFuture<>();
      boolean start;
      synchronized (this) {
        next.computeIfAbsent(persistenceId, id -> new ArrayList<>()).add(new Waiting(subject, result));
        start = !reading;
        reading = true;
      }
      if (start) {
        readNext();
      }
      return result;
    }

    private void readNext() {
      Map<String, List<Waiting>> batch;
      synchronized (this) {
        if (next.isEmpty()) {
          reading = false;
          return;
        }
        batch = next;
        next = new LinkedHashMap<>();
      }
      CompletionStage<Void> read;
      try {
        read = SchemaCreation.get(system).forStores(settings).get().thenRunAsync(() -> read(batch), blocking);
      } catch (RuntimeException e) {
        // Even a failure to start the read must answer the batch and let the next one start.
        read = CompletableFuture.failedFuture(e);
      }
      read.whenComplete((done, error) -> {
        if (error != null) {
          Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
          batch.values().forEach(ws -> ws.forEach(w -> w.result().completeExceptionally(cause)));
        }
        readNext();
      });
    }

    /** Reads the batch in statements of at most {@link #IDS_PER_STATEMENT} ids and answers each shard. */
    private void read(Map<String, List<Waiting>> batch) {
      List<String> ids = new ArrayList<>(batch.keySet());
      for (int from = 0; from < ids.size(); from += IDS_PER_STATEMENT) {
        List<String> chunk = ids.subList(from, Math.min(ids.size(), from + IDS_PER_STATEMENT));
        Map<String, StoredRow> latestSnapshots = new HashMap<>();
        Map<String, List<StoredRow>> events = new HashMap<>();
        try {
          try (Connection c = snapshotDb.database().source().createConnection();
               PreparedStatement s = c.prepareStatement(tables.snapshots(chunk.size()))) {
            bind(s, 1, chunk);
            // Ordered by sequence number: the last row of an id is its latest snapshot.
            forEachRow(s, r -> latestSnapshots.put(r.persistenceId(), r));
          }
          try (Connection c = journalDb.database().source().createConnection();
               PreparedStatement s = c.prepareStatement(tables.events(chunk.size()))) {
            s.setBoolean(1, false);
            bind(s, 2, chunk);
            forEachRow(s, r -> events.computeIfAbsent(r.persistenceId(), p -> new ArrayList<>()).add(r));
          }
        } catch (SQLException e) {
          throw new IllegalStateException("reading the remembered entities of " + chunk.size() + " shard(s) at once "
              + "failed: " + e.getMessage(), e);
        }
        for (String pid : chunk) {
          for (Waiting w : batch.get(pid)) {
            try {
              w.result().complete(recovered(latestSnapshots.get(pid), events.getOrDefault(pid, List.of()),
                  w.subject()));
            } catch (RuntimeException e) {
              w.result().completeExceptionally(e);
            }
          }
        }
      }
    }

    /** Deserializes only what a recovery reads: the latest snapshot and the events after it. */
    private RememberedEntities recovered(StoredRow snapshotRow, List<StoredRow> eventRows, String subject) {
      EntitiesRecovery.Snapshot snapshot = snapshotRow == null ? null
          : new EntitiesRecovery.Snapshot(snapshotRow.sequenceNr(), payload(snapshotRow));
      long after = snapshot == null ? 0 : snapshot.sequenceNr();
      List<EntitiesRecovery.Event> events = new ArrayList<>();
      for (StoredRow r : eventRows) {
        if (r.sequenceNr() > after) {
          events.add(new EntitiesRecovery.Event(r.sequenceNr(), payload(r)));
        }
      }
      return EntitiesRecovery.recovered(snapshot, events, subject);
    }

    private Object payload(StoredRow r) {
      try {
        return serialization.deserialize(r.payload(), r.serializerId(), r.manifest()).get();
      } catch (RuntimeException e) {
        throw new IllegalStateException("stored record #" + r.sequenceNr() + " of persistenceId ["
            + r.persistenceId() + "] cannot be read: " + e.getMessage(), e);
      }
    }

    private void bind(PreparedStatement s, int first, List<String> ids) throws SQLException {
      for (int i = 0; i < ids.size(); i++) {
        s.setString(first + i, ids.get(i));
      }
    }

    private void forEachRow(PreparedStatement s, Consumer<StoredRow> row) throws SQLException {
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          row.accept(new StoredRow(rs.getString(1), rs.getLong(2), rs.getInt(3), rs.getString(4), rs.getBytes(5)));
        }
      }
    }
  }

  /** One row as stored: a snapshot or an event, not yet deserialized. */
  private record StoredRow(String persistenceId, long sequenceNr, int serializerId, String manifest, byte[] payload) {}

  private record Waiting(String subject, CompletableFuture<RememberedEntities> result) {}
}
