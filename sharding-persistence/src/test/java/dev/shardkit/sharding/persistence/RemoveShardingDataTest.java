package dev.shardkit.sharding.persistence;

import static dev.shardkit.sharding.persistence.testkit.StoreTestSupport.await;
import static dev.shardkit.sharding.persistence.testkit.StoreTestSupport.storeAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import dev.shardkit.sharding.ShardingSettings;
import dev.shardkit.sharding.persistence.testkit.EmbeddedPostgresServer;
import dev.shardkit.sharding.persistence.testkit.StoreTestSupport;
import dev.shardkit.sharding.spi.CoordinatorEvent;
import dev.shardkit.sharding.spi.CoordinatorEvent.RegionRegistered;
import dev.shardkit.sharding.spi.CoordinatorEvent.ShardHomeAllocated;
import dev.shardkit.sharding.spi.CoordinatorState;
import dev.shardkit.sharding.spi.CoordinatorStateStore;
import dev.shardkit.sharding.testkit.TestCluster;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The command-line tool against a real PostgreSQL: it deletes nothing without {@code --force}
 * and says why; with it, the named types' coordinators start empty and other types keep theirs.
 */
class RemoveShardingDataTest {
  /**
   * Small batches, so the data includes snapshots and the tool must delete those too. Only the
   * test that deletes with --force names Alpha (and Gamma, never stored); the others check that
   * Beta is untouched.
   */
  static final String SNAPSHOTS = "shardkit.sharding.persistence.snapshot-after = 3\n";
  static EmbeddedPostgresServer postgres;
  static Config config;

  @BeforeAll
  static void start() throws Exception {
    postgres = EmbeddedPostgresServer.start();
    config = StoreTestSupport.config(SNAPSHOTS + postgres.storeConfig());
    ActorSystem<Void> cluster = StoreTestSupport.system("BeforeTheTool", SNAPSHOTS + postgres.storeConfig());
    try {
      for (String type : List.of("Alpha", "Beta")) {
        ActorRef<Object> region = cluster.systemActorOf(Behaviors.empty(), "region-" + type, Props.empty());
        List<CoordinatorEvent> events = new ArrayList<>();
        events.add(new RegionRegistered(region));
        for (int shard = 0; shard < 7; shard++) {
          events.add(new ShardHomeAllocated(Integer.toString(shard), region));
        }
        CoordinatorStateStore store = store(cluster, type);
        storeAll(store, CoordinatorState.empty(), events.toArray(CoordinatorEvent[]::new));
        store.close();
      }
      TestCluster.await(Duration.ofSeconds(30), () -> rows("snapshot", "Alpha") > 0 && rows("snapshot", "Beta") > 0,
          "snapshots are written");
    } finally {
      // The tool is for a cluster that is stopped.
      StoreTestSupport.terminate(cluster);
    }
  }

  @AfterAll
  static void stop() {
    postgres.close();
  }

  static CoordinatorStateStore store(ActorSystem<?> system, String typeName) {
    return new PersistenceCoordinatorStateStoreProvider().create(system, typeName, ShardingSettings.create(system));
  }

  record Run(int exitCode, String output) {}

  static Run run(String... args) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    int code = RemoveShardingData.run(List.of(args), config, new PrintStream(bytes, true, StandardCharsets.UTF_8));
    return new Run(code, bytes.toString(StandardCharsets.UTF_8));
  }

  static CoordinatorState load(String type) throws Exception {
    ActorSystem<Void> system = StoreTestSupport.system("Check" + type, SNAPSHOTS + postgres.storeConfig());
    try {
      return await(store(system, type).load());
    } finally {
      StoreTestSupport.terminate(system);
    }
  }

  static long rows(String table, String type) {
    try (Connection c = postgres.connect();
        PreparedStatement s = c.prepareStatement("SELECT count(*) FROM " + table + " WHERE persistence_id = ?"
            + (table.equals("event_journal") ? " AND NOT deleted" : ""))) {
      s.setString(1, ShardingPersistenceIds.coordinator(type));
      try (ResultSet rs = s.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void withoutForceItSaysWhyItIsDangerousAndDeletesNothing() throws Exception {
    Run r = run("Beta");
    assertEquals(RemoveShardingData.EXIT_NOT_RUN, r.exitCode(), r.output());
    assertTrue(r.output().contains("entity type [Beta]: coordinator state (persistenceId [shardkit-coordinator-Beta])"),
        r.output());
    assertTrue(r.output().contains("Run it only while the whole cluster is stopped"), r.output());
    assertTrue(r.output().contains("the next coordinator starts empty"), r.output());
    assertTrue(r.output().contains("remembered entities are forgotten too"), r.output());
    assertTrue(r.output().contains("Nothing was deleted"), r.output());
    assertTrue(r.output().contains("--force Beta"), r.output());
    assertEquals(7, load("Beta").shards().size(), "the data is untouched");
  }

  @Test
  void wrongArgumentsAreUsageErrors() throws Exception {
    Run none = run();
    assertEquals(RemoveShardingData.EXIT_NOT_RUN, none.exitCode());
    assertTrue(none.output().contains("No entity type named") && none.output().contains("Usage:"), none.output());
    Run forceOnly = run("--force");
    assertEquals(RemoveShardingData.EXIT_NOT_RUN, forceOnly.exitCode());
    assertTrue(forceOnly.output().contains("No entity type named"), forceOnly.output());
    Run typo = run("--froce", "Beta");
    assertEquals(RemoveShardingData.EXIT_NOT_RUN, typo.exitCode());
    assertTrue(typo.output().contains("Unknown option --froce"), typo.output());
    Run badName = run("--force", "no/such type");
    assertEquals(RemoveShardingData.EXIT_NOT_RUN, badName.exitCode());
    assertTrue(badName.output().contains("Not an entity type name: [no/such type]"), badName.output());
    assertEquals(7, load("Beta").shards().size(), "nothing was deleted");
  }

  @Test
  void withForceTheNamedTypesStartEmptyAndOthersKeepTheirState() throws Exception {
    Run r = run("--force", "Gamma", "Alpha");
    assertEquals(RemoveShardingData.EXIT_OK, r.exitCode(), r.output());
    assertTrue(r.output().contains("entity type [Alpha]: coordinator state, persistenceId "
        + "[shardkit-coordinator-Alpha]: deleted events up to sequence number 8 and all snapshots"), r.output());
    assertTrue(r.output().contains("entity type [Gamma]: coordinator state, persistenceId "
        + "[shardkit-coordinator-Gamma]: no events were stored"), r.output());
    assertTrue(r.output().contains("Done."), r.output());

    assertEquals(0, rows("event_journal", "Alpha"));
    assertEquals(0, rows("snapshot", "Alpha"));
    assertEquals(CoordinatorState.empty(), load("Alpha"));
    assertEquals(7, load("Beta").shards().size(), "a type not named keeps its state");

    // A new coordinator of the type writes on from there, and running the tool again is harmless.
    ActorSystem<Void> system = StoreTestSupport.system("AfterTheTool", SNAPSHOTS + postgres.storeConfig());
    try {
      ActorRef<Object> region = system.systemActorOf(Behaviors.empty(), "region", Props.empty());
      storeAll(store(system, "Alpha"), CoordinatorState.empty(), new RegionRegistered(region));
    } finally {
      StoreTestSupport.terminate(system);
    }
    assertEquals(1, load("Alpha").regions().size());
    Run again = run("--force", "Alpha");
    assertEquals(RemoveShardingData.EXIT_OK, again.exitCode(), again.output());
    assertEquals(CoordinatorState.empty(), load("Alpha"));
  }

  @Test
  void anUnreachableDatabaseIsAFailureThatSaysSo() {
    postgres.stop();
    try {
      Run r = run("--force", "Beta");
      assertEquals(RemoveShardingData.EXIT_FAILED, r.exitCode(), r.output());
      assertTrue(r.output().contains("entity type [Beta]: coordinator state: FAILED"), r.output());
      assertTrue(r.output().contains("Fix the cause and run again"), r.output());
      assertFalse(r.output().contains("Done."), r.output());
    } finally {
      postgres.restart();
    }
    assertTrue(rows("event_journal", "Beta") > 0, "nothing was deleted");
  }
}
