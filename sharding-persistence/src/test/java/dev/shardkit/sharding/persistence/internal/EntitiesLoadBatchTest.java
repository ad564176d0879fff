package dev.shardkit.sharding.persistence.internal;

import static dev.shardkit.sharding.testsupport.persistence.StoreTestSupport.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.ShardingSettings;
import dev.shardkit.sharding.persistence.PersistenceRememberEntitiesStoreProvider;
import dev.shardkit.sharding.testsupport.persistence.StoreTestSupport;
import dev.shardkit.sharding.spi.RememberEntitiesStore;
import dev.shardkit.sharding.testkit.TestCluster;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.typed.ActorSystem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Loading many shards' remembered entities together ({@link EntitiesLoadBatch}) on the default
 * database, an H2 file: each shard gets exactly the ids its own journal's recovery gives (passivated
 * ones absent, a snapshot honoured, another entity type's shard with the same id apart), no shard's
 * journal starts for a load, and the first write after such a load goes after the stored events.
 */
class EntitiesLoadBatchTest {
  private static final String STORES = "/system/shardkit-entities-store-*";

  @TempDir
  Path dir;

  private String url() {
    return "jdbc:h2:file:" + dir.resolve("entities").toAbsolutePath() + ";AUTO_SERVER=TRUE";
  }

  private ActorSystem<Void> system(String name) {
    // Snapshots early, so that one shard below recovers from a snapshot and the events after it.
    return StoreTestSupport.system(name, "pekko-persistence-jdbc.shared-databases.shardkit.db.url = \"" + url()
        + "\"\nshardkit.sharding.persistence.remember-entities { snapshot-after = 3, keep-nr-of-batches = 1 }");
  }

  private static RememberEntitiesStore store(ActorSystem<?> system, String typeName, String shardId) {
    return new PersistenceRememberEntitiesStoreProvider().create(system, typeName, shardId,
        ShardingSettings.create(system));
  }

  @Test
  void eachShardLoadedTogetherGetsExactlyItsOwnIds() throws Exception {
    Map<String, Set<String>> expected = new LinkedHashMap<>();
    ActorSystem<Void> writer = system("BatchWriter");
    try {
      RememberEntitiesStore one = store(writer, "Batch", "1");
      await(one.update(Set.of("a", "b", "c"), Set.of()));
      await(one.update(Set.of(), Set.of("b")));
      expected.put("1", Set.of("a", "c"));
      // Seven updates, the first starting two entities that stay, each later one starting one and
      // passivating the one before: a snapshot after the sixth, one event after it, and the events
      // before the snapshot's batch deleted, so only the snapshot still knows keep-1 and keep-2.
      RememberEntitiesStore snapshotted = store(writer, "Batch", "2");
      await(snapshotted.update(Set.of("keep-1", "keep-2"), Set.of()));
      for (int i = 2; i <= 7; i++) {
        await(snapshotted.update(Set.of("e-" + i), i > 2 ? Set.of("e-" + (i - 1)) : Set.of()));
      }
      expected.put("2", Set.of("keep-1", "keep-2", "e-7"));
      RememberEntitiesStore allPassivated = store(writer, "Batch", "3");
      await(allPassivated.update(Set.of("x"), Set.of()));
      await(allPassivated.update(Set.of(), Set.of("x")));
      expected.put("3", Set.of());
      expected.put("never-written", Set.of());
      await(store(writer, "Other", "1").update(Set.of("other-type"), Set.of()));
      TestCluster.await(Duration.ofSeconds(30), () -> lowestEvent("shardkit-entities-Batch|2") == 4,
          "the events before the snapshot's batch are deleted");
    } finally {
      StoreTestSupport.terminate(writer);
    }

    ActorSystem<Void> reader = system("BatchReader");
    try {
      Map<String, RememberEntitiesStore> stores = new LinkedHashMap<>();
      Map<String, CompletionStage<Set<String>>> loads = new LinkedHashMap<>();
      for (String shard : expected.keySet()) {
        stores.put(shard, store(reader, "Batch", shard));
      }
      // All ask before any answer comes: the shards of a node that start together.
      stores.forEach((shard, store) -> loads.put(shard, store.load()));
      // A shard asking twice in one batch gets the same answer twice.
      CompletionStage<Set<String>> again = stores.get("1").load();
      for (String shard : expected.keySet()) {
        assertEquals(expected.get(shard), await(loads.get(shard)), "shard " + shard);
      }
      assertEquals(expected.get("1"), await(again));
      assertEquals(Set.of("other-type"), await(store(reader, "Other", "1").load()));
      assertFalse(TestCluster.resolves(reader, STORES), "loading started no shard's journal");

      // The first write starts the shard's journal, which recovers before it writes: the write
      // follows the stored events, and a later load (now from the journal) sees both.
      await(stores.get("2").update(Set.of("n"), Set.of("e-7")));
      assertTrue(TestCluster.resolves(reader, STORES), "the write started the journal");
      assertEquals(Set.of("keep-1", "keep-2", "n"), await(stores.get("2").load()));
      stores.values().forEach(RememberEntitiesStore::close);
    } finally {
      StoreTestSupport.terminate(reader);
    }

    ActorSystem<Void> next = system("BatchNextReader");
    try {
      assertEquals(Set.of("keep-1", "keep-2", "n"), await(store(next, "Batch", "2").load()));
      assertEquals(Set.of("a", "c"), await(store(next, "Batch", "1").load()));
    } finally {
      StoreTestSupport.terminate(next);
    }
  }

  /** The lowest sequence number of an event of {@code persistenceId} that is not deleted. */
  private long lowestEvent(String persistenceId) {
    try (Connection c = DriverManager.getConnection(url(), "sa", "");
         PreparedStatement s = c.prepareStatement("SELECT MIN(\"sequence_number\") FROM \"event_journal\" "
             + "WHERE \"persistence_id\" = ? AND \"deleted\" = FALSE")) {
      s.setString(1, persistenceId);
      try (ResultSet rs = s.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }
}
