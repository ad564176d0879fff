package dev.shardkit.sharding.persistence.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** What a batched load computes from stored rows, and the statements it reads them with. */
class EntitiesRecoveryTest {
  private static final String SUBJECT = "entity type [T], shard [7]";

  private static EntitiesRecovery.Event event(long seqNr, List<String> started, List<String> stopped) {
    return new EntitiesRecovery.Event(seqNr, new StoredEntitiesChange(started, stopped));
  }

  @Test
  void theSnapshotThenOnlyTheEventsAfterItAsARecoveryReplaysThem() {
    var snapshot = new EntitiesRecovery.Snapshot(2, new StoredEntitiesSnapshot(List.of("a", "b")));
    // Event 2 is history behind the snapshot (kept by keep-nr-of-batches): applying it again would
    // bring back c, which the snapshot no longer holds.
    List<EntitiesRecovery.Event> events = List.of(event(2, List.of("c"), List.of()),
        event(3, List.of("d"), List.of("a")), event(4, List.of(), List.of("d")));
    assertEquals(Set.of("b"), EntitiesRecovery.recovered(snapshot, events, SUBJECT).ids());
    assertEquals(Set.of("c"), EntitiesRecovery.recovered(null, events, SUBJECT).ids());
    assertEquals(Set.of(), EntitiesRecovery.recovered(null, List.of(), SUBJECT).ids());
  }

  @Test
  void aRecordThatCannotBeAppliedNamesItsEventAndTheWayOut() {
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> EntitiesRecovery.recovered(null,
        List.of(event(1, List.of("a"), List.of()), event(2, List.of("b"), null)), SUBJECT));
    assertTrue(e.getMessage().startsWith("Stored remembered-entities event #2 of entity type [T], shard [7] cannot be "
        + "applied: "), e.getMessage());
    assertTrue(e.getMessage().contains("RemoveShardingData"), e.getMessage());
    e = assertThrows(IllegalStateException.class, () -> EntitiesRecovery.recovered(null,
        List.of(new EntitiesRecovery.Event(1, "not a change")), SUBJECT));
    assertTrue(e.getMessage().contains("event #1") && e.getMessage().contains("java.lang.String"), e.getMessage());
    e = assertThrows(IllegalStateException.class, () -> EntitiesRecovery.recovered(
        new EntitiesRecovery.Snapshot(1, "not a snapshot"), List.of(), SUBJECT));
    assertTrue(e.getMessage().contains("snapshot") && e.getMessage().contains(SUBJECT), e.getMessage());
  }

  @Test
  void theStatementsUseThePluginsTableAndColumnNames() {
    Config root = ConfigFactory.parseString("""
        jdbc-journal.tables.event_journal { schemaName = "s", tableName = "ev",
          columnNames.persistenceId = "pid", columnNames.deleted = "del" }
        jdbc-snapshot-store.tables.snapshot.tableName = "snap"
        """).withFallback(ConfigFactory.load());
    EntitiesTables tables = EntitiesTables.of(root.getConfig("jdbc-journal"), root.getConfig("jdbc-snapshot-store"),
        id -> "\"" + id + "\"").orElseThrow();
    assertEquals("SELECT \"pid\", \"sequence_number\", \"event_ser_id\", \"event_ser_manifest\", "
        + "\"event_payload\" FROM \"s\".\"ev\" WHERE \"del\" = ? AND \"pid\" IN (?, ?) ORDER BY \"pid\", "
        + "\"sequence_number\"", tables.events(2));
    assertEquals("SELECT \"persistence_id\", \"sequence_number\", \"snapshot_ser_id\", \"snapshot_ser_manifest\", "
        + "\"snapshot_payload\" FROM \"snap\" WHERE \"persistence_id\" IN (?) ORDER BY \"persistence_id\", "
        + "\"sequence_number\"", tables.snapshots(1));
    // Another DAO keeps its rows elsewhere: those are read through the plugins only.
    Config legacy = ConfigFactory.parseString("dao = \"org.example.OtherDao\"").withFallback(root.getConfig("jdbc-journal"));
    assertTrue(EntitiesTables.of(legacy, root.getConfig("jdbc-snapshot-store"), id -> id).isEmpty());
  }
}
