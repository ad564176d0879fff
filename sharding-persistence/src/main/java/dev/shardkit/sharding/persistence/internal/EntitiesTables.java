package dev.shardkit.sharding.persistence.internal;

import com.typesafe.config.Config;
import java.util.Collections;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * The two statements with which {@link EntitiesLoadBatch} reads many shards' remembered entities
 * at once from pekko-persistence-jdbc's tables: the snapshots of a list of persistence ids, and
 * their events that are not deleted, each ordered by persistence id and sequence number. Table,
 * schema and column names come from the plugins' own {@code tables} settings, quoted as the
 * plugins' database profile quotes them, so the statements read the rows the plugins wrote.
 * Pure: it only builds SQL text.
 *
 * @param snapshotsFrom {@code SELECT persistence_id, sequence_number, ser_id, ser_manifest, payload
 *     FROM snapshot WHERE persistence_id IN (}, to be closed by {@link #snapshots}
 * @param eventsFrom the same for the event table, with {@code deleted = ?} first
 */
public record EntitiesTables(String snapshotsFrom, String snapshotsOrder, String eventsFrom, String eventsOrder) {

  /** The DAOs whose tables these are; another DAO keeps its rows elsewhere. */
  static final String JOURNAL_DAO = "org.apache.pekko.persistence.jdbc.journal.dao.DefaultJournalDao";
  static final String SNAPSHOT_DAO = "org.apache.pekko.persistence.jdbc.snapshot.dao.DefaultSnapshotDao";
  static final String SNAPSHOT_CLASS = "org.apache.pekko.persistence.jdbc.snapshot.JdbcSnapshotStore";

  /**
   * The statements for the journal and snapshot plugins at {@code journal} and {@code snapshot}
   * (their config objects), or empty if they are not pekko-persistence-jdbc's with its default
   * DAOs (their rows are then read only through the plugins).
   *
   * @param quote quotes one identifier as the plugins' database profile does
   */
  public static Optional<EntitiesTables> of(Config journal, Config snapshot, UnaryOperator<String> quote) {
    if (!PersistenceStoreSettings.JDBC_JOURNAL_CLASS.equals(journal.getString("class"))
        || !SNAPSHOT_CLASS.equals(snapshot.getString("class"))
        || !JOURNAL_DAO.equals(journal.getString("dao")) || !SNAPSHOT_DAO.equals(snapshot.getString("dao"))) {
      return Optional.empty();
    }
    Config e = journal.getConfig("tables.event_journal");
    Config ec = e.getConfig("columnNames");
    Config s = snapshot.getConfig("tables.snapshot");
    Config sc = s.getConfig("columnNames");
    String snapshotsFrom = "SELECT " + columns(quote, sc.getString("persistenceId"), sc.getString("sequenceNumber"),
        sc.getString("snapshotSerId"), sc.getString("snapshotSerManifest"), sc.getString("snapshotPayload"))
        + " FROM " + table(quote, s) + " WHERE " + quote.apply(sc.getString("persistenceId")) + " IN (";
    String eventsFrom = "SELECT " + columns(quote, ec.getString("persistenceId"), ec.getString("sequenceNumber"),
        ec.getString("eventSerId"), ec.getString("eventSerManifest"), ec.getString("eventPayload"))
        + " FROM " + table(quote, e) + " WHERE " + quote.apply(ec.getString("deleted")) + " = ? AND "
        + quote.apply(ec.getString("persistenceId")) + " IN (";
    return Optional.of(new EntitiesTables(snapshotsFrom, order(quote, sc), eventsFrom, order(quote, ec)));
  }

  /** The snapshots of {@code ids} persistence ids (bind them in order). */
  public String snapshots(int ids) {
    return snapshotsFrom + placeholders(ids) + snapshotsOrder;
  }

  /** The events of {@code ids} persistence ids (bind {@code false}, then the ids in order). */
  public String events(int ids) {
    return eventsFrom + placeholders(ids) + eventsOrder;
  }

  private static String columns(UnaryOperator<String> quote, String... names) {
    StringBuilder b = new StringBuilder();
    for (String n : names) {
      b.append(b.length() == 0 ? "" : ", ").append(quote.apply(n));
    }
    return b.toString();
  }

  private static String table(UnaryOperator<String> quote, Config table) {
    String schema = table.getString("schemaName");
    return (schema.isEmpty() ? "" : quote.apply(schema) + ".") + quote.apply(table.getString("tableName"));
  }

  private static String order(UnaryOperator<String> quote, Config columns) {
    return ") ORDER BY " + quote.apply(columns.getString("persistenceId")) + ", "
        + quote.apply(columns.getString("sequenceNumber"));
  }

  private static String placeholders(int n) {
    if (n < 1) {
      throw new IllegalArgumentException("At least one persistence id must be read, got " + n);
    }
    return String.join(", ", Collections.nCopies(n, "?"));
  }
}
