package dev.shardkit.sharding.persistence.internal;

import static dev.shardkit.sharding.testsupport.persistence.StoreTestSupport.await;
import static dev.shardkit.sharding.testsupport.persistence.StoreTestSupport.failureOf;
import static dev.shardkit.sharding.testsupport.persistence.StoreTestSupport.fullText;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.ShardingSettings;
import dev.shardkit.sharding.persistence.PersistenceRememberEntitiesStoreProvider;
import dev.shardkit.sharding.persistence.ShardingPersistenceIds;
import dev.shardkit.sharding.testsupport.persistence.EmbeddedPostgresExtension;
import dev.shardkit.sharding.testsupport.persistence.StoreTestSupport;
import dev.shardkit.sharding.spi.RememberEntitiesStore;
import dev.shardkit.sharding.testsupport.LogCapture;
import dev.shardkit.sharding.testkit.TestCluster;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.pekko.actor.typed.ActorSystem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The remember-entities store on a real PostgreSQL: what one actor system remembers, a fresh one
 * loads; each update is one event however many entities it names; snapshots replace old updates;
 * records carry their schema version; a load starts no journal, the first write does; close stops
 * the store's actors.
 */
class PostgresRememberEntitiesStoreTest {
  @RegisterExtension
  static final EmbeddedPostgresExtension POSTGRES = new EmbeddedPostgresExtension();

  private static ActorSystem<Void> storeSystem(String name, String extraConfig) {
    return StoreTestSupport.system(name, extraConfig + "\n" + POSTGRES.server().storeConfig());
  }

  private static RememberEntitiesStore store(ActorSystem<?> system, String typeName, String shardId) {
    return new PersistenceRememberEntitiesStoreProvider().create(system, typeName, shardId,
        ShardingSettings.create(system));
  }

  private static Set<String> ids(String prefix, int from, int to) {
    Set<String> ids = new HashSet<>();
    for (int i = from; i < to; i++) {
      ids.add(prefix + i);
    }
    return ids;
  }

  @Test
  void aFreshActorSystemLoadsWhatThePreviousOneRemembered() throws Exception {
    // Shard ids may hold any character; the persistence id keeps them as they are.
    String shard = "shard /7|x";
    ActorSystem<Void> first = storeSystem("EntitiesFirst", "");
    try {
      RememberEntitiesStore store = store(first, "Carts", shard);
      assertEquals(Set.of(), await(store.load()), "nothing stored yet");
      await(store.update(Set.of("a", "b", "c"), Set.of()));
      await(store.update(Set.of("d"), Set.of("b")));
      assertEquals(Set.of("a", "c", "d"), await(store.load()));
      assertTrue(store.describe().contains("persistenceId [shardkit-entities-Carts|shard /7|x]"), store.describe());
      assertTrue(store.describe().contains("every 200 updates"), store.describe());
      await(store(first, "Carts", "other").update(Set.of("z"), Set.of()));
      store.close();
    } finally {
      StoreTestSupport.terminate(first);
    }

    ActorSystem<Void> second = storeSystem("EntitiesSecond", "");
    try {
      assertEquals(Set.of("a", "c", "d"), await(store(second, "Carts", shard).load()));
      // Other shards and other types are separate.
      assertEquals(Set.of("z"), await(store(second, "Carts", "other").load()));
      assertEquals(Set.of(), await(store(second, "Carts-x", shard).load()));
    } finally {
      StoreTestSupport.terminate(second);
    }
    assertEquals(2, POSTGRES.server().eventRows(ShardingPersistenceIds.entities("Carts", shard)));
  }

  @Test
  void eachUpdateIsOneEventHoweverManyEntitiesItNames() throws Exception {
    String pid = ShardingPersistenceIds.entities("Batched", "3");
    ActorSystem<Void> system = storeSystem("Batches", "");
    try {
      RememberEntitiesStore store = store(system, "Batched", "3");
      await(store.load());
      await(store.update(ids("e-", 0, 100), Set.of()));
      assertEquals(1, POSTGRES.server().eventRows(pid), "100 started entities, one update, one row");
      await(store.update(Set.of("x"), ids("e-", 0, 50)));
      assertEquals(2, POSTGRES.server().eventRows(pid), "1 started and 50 stopped, one row");
      // An update with nothing in it, or the retry of one already written, writes nothing.
      await(store.update(Set.of(), Set.of()));
      await(store.update(Set.of("x"), ids("e-", 0, 50)));
      assertEquals(2, POSTGRES.server().eventRows(pid));
      // A retry with a larger batch writes, once.
      await(store.update(Set.of("x", "y"), ids("e-", 0, 50)));
      assertEquals(3, POSTGRES.server().eventRows(pid));

      Set<String> expected = ids("e-", 50, 100);
      expected.addAll(Set.of("x", "y"));
      assertEquals(expected, await(store.load()));
      // The second row holds both sets of its update.
      List<String> payloads = POSTGRES.server().column("SELECT convert_from(event_payload, 'UTF8') FROM event_journal "
          + "WHERE persistence_id = ? ORDER BY sequence_number", pid);
      assertTrue(payloads.get(1).startsWith("{\"started\":[\"x\"],\"stopped\":[\"e-0\",\"e-1\",\"e-10\","),
          payloads.get(1));
    } finally {
      StoreTestSupport.terminate(system);
    }
  }

  @Test
  void snapshotsReplaceOldUpdatesAndTheIdsStillLoad() throws Exception {
    String pid = ShardingPersistenceIds.entities("Snapshotted", "1");
    // Only the remembered entities' own retention applies (the coordinator's stays at 1000).
    String config = "shardkit.sharding.persistence.remember-entities { snapshot-after = 5, keep-nr-of-batches = 2 }";
    Set<String> expected = new HashSet<>();
    ActorSystem<Void> writer = storeSystem("EntitySnapshotWriter", config);
    try {
      RememberEntitiesStore store = store(writer, "Snapshotted", "1");
      for (int i = 1; i <= 41; i++) {
        // Each update starts one entity and stops the one started three updates before.
        Set<String> stopped = i > 3 ? Set.of("e-" + (i - 3)) : Set.of();
        await(store.update(Set.of("e-" + i), stopped));
        expected.add("e-" + i);
        expected.removeAll(stopped);
      }
      // Snapshots at 5, 10, ... 40; after the one at 40, events up to 40 - 2 * 5 = 30 go, and then
      // snapshots before 30. Deleting runs after the write, so wait for it.
      TestCluster.await(Duration.ofSeconds(30), () -> POSTGRES.server().snapshotSequenceNrs(pid).equals(List.of(30L, 35L, 40L))
          && POSTGRES.server().lowestEventSequenceNr(pid) == 30, "old events and snapshots are deleted");
      assertEquals(12, POSTGRES.server().eventRows(pid), "rows 30..41 remain (30 only as the marker of the highest deleted)");
    } finally {
      StoreTestSupport.terminate(writer);
    }

    ActorSystem<Void> reader = storeSystem("EntitySnapshotReader", config);
    try {
      assertEquals(Set.of("e-39", "e-40", "e-41"), expected);
      assertEquals(expected, await(store(reader, "Snapshotted", "1").load()));
    } finally {
      StoreTestSupport.terminate(reader);
    }
  }

  @Test
  void storedRecordsCarryTheirSchemaVersionAndANewerOneIsRefused() throws Exception {
    String pid = ShardingPersistenceIds.entities("Versioned", "1");
    String config = "shardkit.sharding.persistence.remember-entities.snapshot-after = 2";
    ActorSystem<Void> writer = storeSystem("EntityVersionWriter", config);
    try {
      RememberEntitiesStore store = store(writer, "Versioned", "1");
      for (String id : List.of("a", "b", "c")) {
        await(store.update(Set.of(id), Set.of()));
      }
      TestCluster.await(Duration.ofSeconds(30), () -> !POSTGRES.server().snapshotSequenceNrs(pid).isEmpty(),
          "a snapshot is written");
    } finally {
      StoreTestSupport.terminate(writer);
    }
    String version = "#" + StoredRecordVersion.CURRENT;
    assertEquals(List.of(StoredEntitiesChange.class.getName() + version), POSTGRES.server().column(
        "SELECT DISTINCT event_ser_manifest FROM event_journal WHERE persistence_id = ?", pid));
    assertEquals(List.of(StoredEntitiesSnapshot.class.getName() + version), POSTGRES.server().column(
        "SELECT DISTINCT snapshot_ser_manifest FROM snapshot WHERE persistence_id = ?", pid));
    // As a newer shardkit would have written the latest update.
    try (Connection c = POSTGRES.server().connect(); PreparedStatement s = c.prepareStatement(
        "UPDATE event_journal SET event_ser_manifest = ? WHERE persistence_id = ? AND sequence_number = 3")) {
      s.setString(1, StoredEntitiesChange.class.getName() + "#" + (StoredRecordVersion.CURRENT + 1));
      s.setString(2, pid);
      assertEquals(1, s.executeUpdate());
    }
    ActorSystem<Void> reader = storeSystem("EntityVersionReader", config);
    try (LogCapture logs = new LogCapture()) {
      Throwable failure = failureOf(store(reader, "Versioned", "1").load());
      String text = fullText(failure);
      assertInstanceOf(PersistenceStoreException.class, failure);
      assertTrue(failure.getMessage().startsWith("Entity type [Versioned], shard [1]: could not load the remembered "
          + "entities"), text);
      int newer = StoredRecordVersion.CURRENT + 1;
      assertTrue(text.contains("has schema version " + newer + ", but this shardkit reads versions up to "
          + StoredRecordVersion.CURRENT), text);
      assertTrue(text.contains("RemoveShardingData"), text);
      logs.await(Duration.ofSeconds(10), "Remember-entities store of entity type [Versioned], shard [1]",
          "schema version " + newer, "the shard retries with backoff");
    } finally {
      StoreTestSupport.terminate(reader);
    }
  }

  @Test
  void aStoredUpdateThatCannotBeAppliedFailsTheLoadNamingItAndTheWayOut() throws Exception {
    String pid = ShardingPersistenceIds.entities("Damaged", "2");
    ActorSystem<Void> writer = storeSystem("EntityDamageWriter", "");
    try {
      RememberEntitiesStore store = store(writer, "Damaged", "2");
      await(store.update(Set.of("a"), Set.of()));
      await(store.update(Set.of("b"), Set.of()));
    } finally {
      StoreTestSupport.terminate(writer);
    }
    // The second update loses its stopped ids, as a damaged or hand-edited row would.
    try (Connection c = POSTGRES.server().connect(); PreparedStatement s = c.prepareStatement("UPDATE event_journal "
        + "SET event_payload = convert_to('{\"started\":[\"b\"]}', 'UTF8') "
        + "WHERE persistence_id = ? AND sequence_number = 2")) {
      s.setString(1, pid);
      assertEquals(1, s.executeUpdate());
    }
    ActorSystem<Void> reader = storeSystem("EntityDamageReader", "");
    try {
      RememberEntitiesStore store = store(reader, "Damaged", "2");
      String text = fullText(failureOf(store.load()));
      assertTrue(text.contains("Stored remembered-entities event #2 of entity type [Damaged], shard [2] cannot be "
          + "applied"), text);
      assertTrue(text.contains("lacks its started or stopped ids"), text);
      assertTrue(text.contains("RemoveShardingData"), text);
      // Failing again is the same answer, not a broken store.
      assertTrue(fullText(failureOf(store.load())).contains("event #2"));
    } finally {
      StoreTestSupport.terminate(reader);
    }
  }

  @Test
  void badUpdatesAreRefusedAtTheCallAndWriteNothing() throws Exception {
    String pid = ShardingPersistenceIds.entities("Refused", "1");
    ActorSystem<Void> system = storeSystem("EntityRefusals", "");
    try {
      RememberEntitiesStore store = store(system, "Refused", "1");
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> store.update(Set.of("a"), Set.of("a")));
      assertTrue(e.getMessage().contains("Entity id [a] is both started and stopped"), e.getMessage());
      assertThrows(IllegalArgumentException.class, () -> store.update(null, Set.of()));
      assertEquals(Set.of(), await(store.load()));
      assertEquals(0, POSTGRES.server().eventRows(pid));
      e = assertThrows(IllegalArgumentException.class, () -> store(system, "Refused", ""));
      assertTrue(e.getMessage().contains("shard id must not be null or empty"), e.getMessage());
    } finally {
      StoreTestSupport.terminate(system);
    }
  }

  @Test
  void closeStopsTheStoresActorAndItsJournal() throws Exception {
    ActorSystem<Void> system = storeSystem("EntityClosing", "");
    try {
      RememberEntitiesStore store = store(system, "Closed", "9");
      await(store.load());
      String journals = "/system/shardkit-entities-store-Closed-9-*/journal-*";
      // Loaded together with other starting shards (EntitiesLoadBatch), without the journal.
      assertFalse(TestCluster.resolves(system, "/system/shardkit-entities-store-Closed-9-*"), "no journal for a load");
      await(store.update(Set.of("b"), Set.of()));
      assertTrue(TestCluster.resolves(system, journals), "the journal runs after a write");
      store.close();
      TestCluster.await(Duration.ofSeconds(10), () -> !TestCluster.resolves(system, "/system/shardkit-entities-store-Closed-9-*"),
          "the store's actor has stopped");
      assertFalse(TestCluster.resolves(system, journals), "the journal has stopped with it");
      // The shard starting here again gets a new store, and the next one reads what it wrote.
      RememberEntitiesStore again = store(system, "Closed", "9");
      await(again.update(Set.of("a"), Set.of()));
      again.close();
      assertEquals(Set.of("a", "b"), await(store(system, "Closed", "9").load()));
      assertTrue(fullText(failureOf(store.update(Set.of("c"), Set.of()))).contains("the store was closed"));
    } finally {
      StoreTestSupport.terminate(system);
    }
  }
}
