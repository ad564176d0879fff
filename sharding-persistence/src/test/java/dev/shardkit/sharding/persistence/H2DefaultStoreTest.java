package dev.shardkit.sharding.persistence;

import static dev.shardkit.sharding.testsupport.persistence.StoreTestSupport.await;
import static dev.shardkit.sharding.testsupport.persistence.StoreTestSupport.storeAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.ClusterSharding;
import dev.shardkit.sharding.Entity;
import dev.shardkit.sharding.EntityTypeKey;
import dev.shardkit.sharding.ShardingSettings;
import dev.shardkit.sharding.internal.store.StateStores;
import dev.shardkit.sharding.testsupport.persistence.StoreTestSupport;
import dev.shardkit.sharding.spi.CoordinatorEvent.RegionRegistered;
import dev.shardkit.sharding.spi.CoordinatorEvent.ShardHomeAllocated;
import dev.shardkit.sharding.spi.CoordinatorState;
import dev.shardkit.sharding.spi.CoordinatorStateStore;
import dev.shardkit.sharding.spi.RememberEntitiesStore;
import dev.shardkit.sharding.spi.RememberEntitiesStoreProvider;
import dev.shardkit.sharding.spi.ShardingEvent;
import dev.shardkit.sharding.testsupport.Recorder;
import dev.shardkit.sharding.testsupport.Recorder.Command;
import dev.shardkit.sharding.testsupport.Recorder.Msg;
import dev.shardkit.sharding.testsupport.Recorder.Report;
import dev.shardkit.sharding.testkit.TelemetryRecorder;
import dev.shardkit.sharding.testkit.TestCluster;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The default database, an H2 file: no server and no setup beyond choosing the mode, for the
 * coordinator state and the remembered entities. Only the file's place is moved (to a temporary
 * directory), the rest is {@code reference.conf}.
 */
class H2DefaultStoreTest {
  @TempDir
  Path dir;

  private String url() {
    return "jdbc:h2:file:" + dir.resolve("coordinator-state").toAbsolutePath() + ";AUTO_SERVER=TRUE";
  }

  private String config() {
    return "pekko-persistence-jdbc.shared-databases.shardkit.db.url = \"" + url() + "\"\n";
  }

  @Test
  void aFreshActorSystemLoadsWhatThePreviousOneStored() throws Exception {
    ActorSystem<Void> first = StoreTestSupport.system("H2First", config());
    ActorSystem<Void> regions = StoreTestSupport.system("H2Regions", "");
    try {
      ActorRef<Object> region = regions.systemActorOf(Behaviors.empty(), "region", Props.empty());
      CoordinatorState stored;
      try {
        CoordinatorStateStore store = new PersistenceCoordinatorStateStoreProvider().create(first, "H2Type",
            ShardingSettings.create(first));
        stored = storeAll(store, await(store.load()).state(), new RegionRegistered(StoreTestSupport.resolveIn(first,
            regions, region)), new ShardHomeAllocated("5", StoreTestSupport.resolveIn(first, regions, region)));
        assertTrue(store.describe().contains("shardkit-coordinator-H2Type"), store.describe());
      } finally {
        StoreTestSupport.terminate(first);
      }

      ActorSystem<Void> second = StoreTestSupport.system("H2Second", config());
      try {
        CoordinatorState loaded = await(new PersistenceCoordinatorStateStoreProvider().create(second, "H2Type",
            ShardingSettings.create(second)).load()).state();
        ActorRef<Object> resolved = StoreTestSupport.resolveIn(second, regions, region);
        assertEquals(resolved, loaded.homeOf("5").orElseThrow());
        assertEquals(stored.regions().size(), loaded.regions().size());
      } finally {
        StoreTestSupport.terminate(second);
      }
    } finally {
      StoreTestSupport.terminate(regions);
    }
  }

  @Test
  void rememberedEntitiesAreKeptInTheSameFile() throws Exception {
    String pid = ShardingPersistenceIds.entities("H2Entities", "12");
    // A cluster node as the tests' clusters run them, with serialize-messages = on.
    try (TestCluster cluster = new TestCluster("H2EntitiesFirst")) {
      ActorSystem<Void> first = cluster.add(config());
      // What the shard does: the mode names this module's provider.
      ShardingSettings settings = ShardingSettings.create(first).withRememberEntitiesStore("persistence");
      RememberEntitiesStoreProvider provider = StateStores.rememberEntitiesProvider(
          first.settings().config().getConfig("shardkit.sharding"), settings.rememberEntitiesStore());
      assertInstanceOf(PersistenceRememberEntitiesStoreProvider.class, provider);
      provider.startOnNode(first, "H2Entities", settings);
      RememberEntitiesStore store = provider.create(first, "H2Entities", "12", settings);
      assertEquals(Set.of(), await(store.load()));
      await(store.update(Set.of("a", "b"), Set.of()));
      await(store.update(Set.of("c"), Set.of("a")));
      assertTrue(store.describe().contains(pid), store.describe());
    }

    ActorSystem<Void> second = StoreTestSupport.system("H2EntitiesSecond", config());
    try {
      assertEquals(Set.of("b", "c"), await(new PersistenceRememberEntitiesStoreProvider().create(second, "H2Entities",
          "12", ShardingSettings.create(second)).load()));
    } finally {
      StoreTestSupport.terminate(second);
    }
    try (Connection c = DriverManager.getConnection(url(), "sa", "");
        PreparedStatement s = c.prepareStatement(
            "SELECT count(*) FROM \"event_journal\" WHERE \"persistence_id\" = ? AND NOT \"deleted\"")) {
      s.setString(1, pid);
      try (ResultSet rs = s.executeQuery()) {
        rs.next();
        assertEquals(2, rs.getLong(1), "one row per update");
      }
    }
  }

  @Test
  void choosingTheModeIsAllItTakes() throws Exception {
    EntityTypeKey<Command> key = EntityTypeKey.create(Command.class, "OutOfTheBox");
    try (TestCluster cluster = new TestCluster("H2Cluster")) {
      ActorSystem<Void> node = cluster.add(config() + "shardkit.sharding.state-store-mode = persistence\n");
      cluster.awaitUp(1);
      ClusterSharding.get(node).start(Entity.of(key, Recorder::create)
          .withSettings(ShardingSettings.create(node).withNumberOfShards(10)));
      ClusterSharding.get(node).entityRefFor(key, "e-1").tell(new Msg("test", 1));
      Report report = ClusterSharding.get(node).entityRefFor(key, "e-1")
          .<Report>ask(Recorder.Get::new, Duration.ofSeconds(10)).toCompletableFuture().get(20, TimeUnit.SECONDS);
      assertEquals(1, report.received());
      ShardingEvent.CoordinatorStarted started = TelemetryRecorder.of(node).await(Duration.ofSeconds(10),
          ShardingEvent.CoordinatorStarted.class, "OutOfTheBox");
      assertTrue(started.store().startsWith("event-sourced (persistenceId [shardkit-coordinator-OutOfTheBox]"),
          started.store());
    }
    // The registration and the allocation are in the H2 file.
    try (Connection c = DriverManager.getConnection(url(), "sa", "");
        PreparedStatement s = c.prepareStatement(
            "SELECT count(*) FROM \"event_journal\" WHERE \"persistence_id\" = ? AND NOT \"deleted\"")) {
      s.setString(1, ShardingPersistenceIds.coordinator("OutOfTheBox"));
      try (ResultSet rs = s.executeQuery()) {
        rs.next();
        assertTrue(rs.getLong(1) >= 2, "events stored: " + rs.getLong(1));
      }
    }
  }
}
