package dev.shardkit.sharding.ddata;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.shardkit.sharding.ClusterSharding;
import dev.shardkit.sharding.Entity;
import dev.shardkit.sharding.EntityTypeKey;
import dev.shardkit.sharding.ddata.internal.GroupCommitDurableStore;
import dev.shardkit.sharding.ddata.internal.LmdbJvmOptions;
import dev.shardkit.sharding.internal.store.StateStores;
import dev.shardkit.sharding.testkit.TestCluster;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.ddata.ReplicatorSettings;
import org.junit.jupiter.api.Test;
import scala.jdk.javaapi.CollectionConverters;

class DDataSettingsTest {
  private static final Config DEFAULTS = ConfigFactory.load().getConfig("shardkit.sharding.ddata");

  private static DDataSettings with(String overrides) {
    return DDataSettings.fromConfig(ConfigFactory.parseString(overrides).withFallback(DEFAULTS));
  }

  private static void assertRejected(String overrides, String... expectedInMessage) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> with(overrides));
    for (String part : expectedInMessage) {
      assertTrue(e.getMessage().contains(part), "message [" + e.getMessage() + "] should contain [" + part + "]");
    }
  }

  @Test
  void defaultsAreProductionValues() {
    DDataSettings s = DDataSettings.fromConfig(DEFAULTS);
    assertEquals(5, s.majorityMinCap());
    assertEquals(Duration.ofSeconds(5), s.writeTimeout());
    assertEquals(Duration.ofSeconds(5), s.readTimeout());
    assertEquals(3, s.readRetries());
    // The replicator section starts from Pekko's distributed-data defaults, with no durable keys.
    ReplicatorSettings replicator = ReplicatorSettings.apply(s.replicatorConfig());
    assertTrue(replicator.durableKeys().isEmpty());
    assertEquals(Duration.ofSeconds(2).toMillis(), replicator.gossipInterval().toMillis());
    // Remembered entities: every key of theirs durable, in LMDB under "ddata" (which Pekko suffixes).
    assertEquals("ddata", s.rememberEntitiesLmdbDir());
    Config entities = s.entitiesReplicatorConfig();
    assertEquals(Set.of("shardkit-entities-*"), CollectionConverters.asJava(
        ReplicatorSettings.apply(entities).durableKeys()));
    assertEquals("ddata", entities.getString("durable.lmdb.dir"));
    assertEquals(100L * 1024 * 1024, entities.getBytes("durable.lmdb.map-size"));
    assertEquals("off", entities.getString("durable.lmdb.write-behind-interval"));
    assertEquals(Duration.ofSeconds(2).toMillis(), ReplicatorSettings.apply(entities).gossipInterval().toMillis());
    assertEquals(GroupCommitDurableStore.class.getName(), entities.getString("durable.store-actor-class"),
        "remembered entities use shardkit's group-commit LMDB store");
    // The coordinator's replicator has no durable keys, so its store class does not matter; it is Pekko's default.
    assertEquals(LmdbJvmOptions.LMDB_STORE_CLASS, s.replicatorConfig().getString("durable.store-actor-class"));
  }

  @Test
  void groupCommitOffKeepsPekkosStoreAndAStoreOfTheApplicationsOwnIsKept() {
    assertEquals(LmdbJvmOptions.LMDB_STORE_CLASS, with("remember-entities.lmdb.group-commit = off")
        .entitiesReplicatorConfig().getString("durable.store-actor-class"));
    assertEquals("com.example.MyStore", with("replicator.durable.store-actor-class = com.example.MyStore")
        .entitiesReplicatorConfig().getString("durable.store-actor-class"));
  }

  @Test
  void theRememberedEntitiesReplicatorTakesTheSharedSettingsAndItsOwnDurability() {
    DDataSettings s = with("""
        replicator { gossip-interval = 1s, durable.keys = ["other"], durable.lmdb.dir = "/elsewhere" }
        remember-entities.lmdb { dir = "/var/lib/app/entities", map-size = 1 MiB, write-behind-interval = 200ms }
        """);
    ReplicatorSettings entities = ReplicatorSettings.apply(s.entitiesReplicatorConfig());
    assertEquals(Duration.ofSeconds(1).toMillis(), entities.gossipInterval().toMillis());
    assertEquals(Set.of("shardkit-entities-*"), CollectionConverters.asJava(entities.durableKeys()));
    assertEquals("/var/lib/app/entities", s.entitiesReplicatorConfig().getString("durable.lmdb.dir"));
    assertEquals(1024L * 1024, s.entitiesReplicatorConfig().getBytes("durable.lmdb.map-size"));
    assertEquals(Duration.ofMillis(200), s.entitiesReplicatorConfig().getDuration("durable.lmdb.write-behind-interval"));
    assertEquals("/var/lib/app/entities", s.rememberEntitiesLmdbDir());
    // The coordinator's replicator keeps its own.
    assertEquals(List.of("other"), s.replicatorConfig().getStringList("durable.keys"));
  }

  @Test
  void theModuleRegistersTheDdataMode() {
    assertTrue(StateStores.provider(ConfigFactory.load().getConfig("shardkit.sharding"), "ddata")
        instanceof DDataCoordinatorStateStoreProvider);
    assertEquals("ddata", ConfigFactory.load().getString("shardkit.sharding.state-store-mode"));
    assertTrue(StateStores.rememberEntitiesProvider(ConfigFactory.load().getConfig("shardkit.sharding"), "ddata")
        instanceof DDataRememberEntitiesStoreProvider);
    assertEquals("ddata", ConfigFactory.load().getString("shardkit.sharding.remember-entities-store"));
  }

  @Test
  void overridesAreRead() {
    DDataSettings s = with("majority-min-cap = 2, write-timeout = 700ms, read-timeout = 3s, read-retries = 0");
    assertEquals(2, s.majorityMinCap());
    assertEquals(Duration.ofMillis(700), s.writeTimeout());
    assertEquals(Duration.ofSeconds(3), s.readTimeout());
    assertEquals(0, s.readRetries());
  }

  @Test
  void outOfRangeValuesAreRejectedNamingTheKey() {
    assertRejected("majority-min-cap = 0", "shardkit.sharding.ddata.majority-min-cap", "at least 1", "0");
    assertRejected("write-timeout = 0s", "shardkit.sharding.ddata.write-timeout", "positive");
    assertRejected("read-timeout = -1s", "shardkit.sharding.ddata.read-timeout", "positive");
    assertRejected("read-retries = -1", "shardkit.sharding.ddata.read-retries", "negative");
    assertRejected("remember-entities.lmdb.dir = \" \"", "shardkit.sharding.ddata.remember-entities.lmdb.dir",
        "empty");
    assertRejected("remember-entities.lmdb.map-size = 0", "shardkit.sharding.ddata.remember-entities.lmdb.map-size",
        "positive");
    assertRejected("remember-entities.lmdb.write-behind-interval = 0s",
        "shardkit.sharding.ddata.remember-entities.lmdb.write-behind-interval", "off or positive");
  }

  @Test
  void malformedValuesAreRejectedNamingTheKey() {
    assertRejected("majority-min-cap = many", "shardkit.sharding.ddata", "majority-min-cap");
    assertRejected("write-timeout = soon", "shardkit.sharding.ddata", "write-timeout");
    assertRejected("remember-entities.lmdb.write-behind-interval = soon", "shardkit.sharding.ddata",
        "write-behind-interval");
    assertRejected("remember-entities.lmdb.map-size = huge", "shardkit.sharding.ddata", "map-size");
    assertRejected("remember-entities.lmdb.group-commit = sometimes", "shardkit.sharding.ddata", "group-commit");
  }

  @Test
  void aBadSettingFailsClusterShardingStartNamingTheKey() {
    try (TestCluster cluster = new TestCluster("BadDData")) {
      ActorSystem<Void> system = cluster.add("""
          shardkit.sharding.state-store-mode = ddata
          shardkit.sharding.ddata.majority-min-cap = 0
          """);
      EntityTypeKey<String> key = EntityTypeKey.create(String.class, "Bad");
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> ClusterSharding.get(system).start(Entity.of(key, ctx -> Behaviors.empty())));
      assertTrue(e.getMessage().contains("shardkit.sharding.ddata.majority-min-cap"), e.getMessage());
    }
  }

  @Test
  void durableKeysMustNotCoverTheCoordinatorState() {
    for (String key : List.of("*", "shardkit-*", "shardkit-coordinator-*", "shardkit-coordinator-Counter*",
        "shardkit-coordinator-Counter")) {
      assertRejected("replicator.durable.keys = [\"" + key + "\"]", "shardkit.sharding.ddata.replicator.durable.keys",
          "[" + key + "]", "shardkit-coordinator-");
    }
    // Keys of other data may be durable.
    DDataSettings s = with("replicator.durable.keys = [\"shardkit-remember-*\", \"other\"]");
    assertEquals(List.of("shardkit-remember-*", "other"), s.replicatorConfig().getStringList("durable.keys"));
  }
}
