package dev.shardkit.sharding.persistence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.ClusterSharding;
import dev.shardkit.sharding.Entity;
import dev.shardkit.sharding.EntityTypeKey;
import dev.shardkit.sharding.ShardingSettings;
import dev.shardkit.sharding.StableHashMessageExtractor;
import dev.shardkit.sharding.testsupport.persistence.EmbeddedPostgresServer;
import dev.shardkit.sharding.spi.ShardingEvent;
import dev.shardkit.sharding.testsupport.LogCapture;
import dev.shardkit.sharding.testsupport.Recorder;
import dev.shardkit.sharding.testsupport.Recorder.Command;
import dev.shardkit.sharding.testsupport.Recorder.Msg;
import dev.shardkit.sharding.testsupport.Recorder.Report;
import dev.shardkit.sharding.testkit.TelemetryRecorder;
import dev.shardkit.sharding.testkit.TestCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.typed.ActorSystem;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A three-node cluster with {@code state-store-mode = persistence} on a real PostgreSQL, and the
 * database goes away: entities whose shard has a home keep getting their messages; a message for a
 * shard without a home is held (not lost) while the coordinator retries storing the allocation;
 * no node goes down; when the database is back, the held message is delivered.
 */
class StoreFailureClusterTest {
  static final EntityTypeKey<Command> KEY = EntityTypeKey.create(Command.class, "StoreFailure");
  static final int SHARDS = 100;
  static EmbeddedPostgresServer postgres;
  static TestCluster cluster;

  @BeforeAll
  static void start() {
    Recorder.reset();
    postgres = EmbeddedPostgresServer.start();
    cluster = new TestCluster("StoreFailure");
    String config = postgres.storeConfig() + """
        shardkit.sharding.state-store-mode = persistence
        # A rebalance during the outage would rightly hold the moving shard's messages until the
        # database is back; this test is about shards at rest.
        shardkit.sharding.rebalance-interval = 1h
        """;
    for (int i = 0; i < 3; i++) {
      cluster.add(config);
      cluster.awaitUp(i + 1);
    }
    // Shards placed on demand: a new shard's home is a write, which waits for the database.
    // (Placed up front, every shard would have its home before the outage.)
    for (ActorSystem<Void> s : cluster.systems()) {
      ClusterSharding.get(s).start(Entity.of(KEY, Recorder::create)
          .withSettings(ShardingSettings.create(s).withNumberOfShards(SHARDS).withPlaceAllShardsAtStart(false)));
    }
  }

  @AfterAll
  static void stop() {
    if (cluster != null) {
      cluster.close();
    }
    if (postgres != null) {
      postgres.close();
    }
  }

  static Report ask(String id) throws Exception {
    return ClusterSharding.get(cluster.system(1)).entityRefFor(KEY, id)
        .<Report>ask(Recorder.Get::new, Duration.ofSeconds(5)).toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  static void tell(String id, int seq) {
    ClusterSharding.get(cluster.system(1)).entityRefFor(KEY, id).tell(new Msg("n1", seq));
  }

  static void awaitReceived(String id, int count) {
    TestCluster.await(Duration.ofSeconds(60), () -> {
      try {
        return ask(id).received() == count;
      } catch (Exception e) {
        return false;
      }
    }, id + " received " + count);
  }

  /** Failed writes of the type's coordinator, on whichever node it runs. */
  static long coordinatorStoreFailures() {
    return cluster.systems().stream().mapToLong(s -> TelemetryRecorder.of(s).events(
        ShardingEvent.CoordinatorStoreWrite.class, w -> w.typeName().equals(KEY.name()) && w.failure() != null).size())
        .sum();
  }

  @Test
  void knownShardsKeepServingAndANewShardWaitsForTheDatabase() throws Exception {
    List<String> known = new ArrayList<>();
    Set<String> usedShards = new HashSet<>();
    for (int i = 0; i < 20; i++) {
      String id = "known-" + i;
      tell(id, 1);
      awaitReceived(id, 1);
      known.add(id);
      usedShards.add(StableHashMessageExtractor.shardIdFor(id, SHARDS));
    }
    String fresh = null;
    for (int i = 0; fresh == null; i++) {
      if (!usedShards.contains(StableHashMessageExtractor.shardIdFor("fresh-" + i, SHARDS))) {
        fresh = "fresh-" + i;
      }
    }

    try (LogCapture logs = new LogCapture()) {
      postgres.stop();

      for (String id : known) {
        tell(id, 2);
      }
      for (String id : known) {
        awaitReceived(id, 2);
      }

      // The new shard needs an allocation stored before it gets a home; the message waits.
      tell(fresh, 1);
      logs.await(Duration.ofSeconds(30), "Coordinator state store of entity type [" + KEY.name() + "]",
          "the coordinator retries with backoff");
      TestCluster.await(Duration.ofSeconds(60), () -> coordinatorStoreFailures() >= 2,
          "the coordinator retried storing the allocation");
      AtomicInteger live = Recorder.LIVE.get(fresh);
      assertTrue(live == null || live.get() == 0, "the new entity is not started while the database is down");

      // Still serving, and still a cluster of three.
      for (String id : known) {
        tell(id, 3);
      }
      for (String id : known) {
        awaitReceived(id, 3);
      }
      for (ActorSystem<Void> s : cluster.systems()) {
        assertFalse(s.getWhenTerminated().toCompletableFuture().isDone(), s.name() + " is still running");
      }
      cluster.awaitUp(3);

      postgres.restart();
      awaitReceived(fresh, 1);
    }

    Report report = ask(fresh);
    assertEquals(1, report.received());
    assertEquals(0, report.outOfOrder());
    for (String id : known) {
      assertEquals(0, ask(id).outOfOrder(), id + " kept order");
    }
    // Allocation works as usual again.
    String another = null;
    for (int i = 0; another == null; i++) {
      String id = "after-" + i;
      String shard = StableHashMessageExtractor.shardIdFor(id, SHARDS);
      if (!usedShards.contains(shard) && !shard.equals(StableHashMessageExtractor.shardIdFor(fresh, SHARDS))) {
        another = id;
      }
    }
    tell(another, 1);
    awaitReceived(another, 1);
    assertTrue(Recorder.DOUBLE_INCARNATIONS.isEmpty(), "entities alive twice: " + Recorder.DOUBLE_INCARNATIONS);
  }
}
