package dev.shardkit.sharding;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.testsupport.Recorder;
import dev.shardkit.sharding.testsupport.Recorder.Command;
import dev.shardkit.sharding.testsupport.Recorder.Msg;
import dev.shardkit.sharding.testsupport.Recorder.Report;
import dev.shardkit.sharding.testkit.TestCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Leave;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * When the coordinator's node leaves, the singleton moves to the next oldest node, the regions
 * register with it, entities on the remaining nodes keep working, and new shards are allocated.
 */
class CoordinatorMoveTest {
  static final EntityTypeKey<Command> KEY = EntityTypeKey.create(Command.class, "Mover");
  static final int SHARDS = 100;
  static TestCluster cluster;

  @BeforeAll
  static void start() {
    cluster = Recorder.startCluster("Move", 3, KEY, SHARDS);
  }

  @AfterAll
  static void stop() {
    cluster.close();
  }

  static Report ask(int node, String id) throws Exception {
    return ClusterSharding.get(cluster.system(node)).entityRefFor(KEY, id)
        .<Report>ask(Recorder.Get::new, Duration.ofSeconds(5)).toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  static void awaitReceived(int node, String id, int count) {
    TestCluster.await(Duration.ofSeconds(30), () -> {
      try {
        return ask(node, id).received() == count;
      } catch (Exception e) {
        return false;
      }
    }, id + " received " + count);
  }

  @Test
  void regionsRegisterWithTheNextCoordinatorAndKeepServing() throws Exception {
    // Entities on the two nodes that stay; remember which shards are in use.
    List<String> survivors = new ArrayList<>();
    Set<String> usedShards = new HashSet<>();
    String leaving = cluster.address(0).toString();
    for (int i = 0; survivors.size() < 20; i++) {
      String id = "m-" + i;
      ClusterSharding.get(cluster.system(1)).entityRefFor(KEY, id).tell(new Msg("n1", 1));
      awaitReceived(1, id, 1);
      usedShards.add(StableHashMessageExtractor.shardIdFor(id, SHARDS));
      if (!ask(1, id).host().equals(leaving)) {
        survivors.add(id);
      }
    }

    Cluster.get(cluster.system(0)).manager().tell(new Leave(cluster.address(0)));
    // Known homes keep working while the coordinator moves.
    for (String id : survivors) {
      ClusterSharding.get(cluster.system(1)).entityRefFor(KEY, id).tell(new Msg("n1", 2));
    }
    TestCluster.await(Duration.ofSeconds(30), () -> cluster.system(0).getWhenTerminated().toCompletableFuture()
        .isDone(), "the oldest node has left and stopped");
    TestCluster.await(Duration.ofSeconds(30), () -> MultiNodeShardingTest.coordinatorRunsOnType(cluster.system(1),
        KEY.name()), "the coordinator runs on the next oldest node");
    assertFalse(MultiNodeShardingTest.coordinatorRunsOnType(cluster.system(2), KEY.name()));

    for (String id : survivors) {
      awaitReceived(2, id, 2);
      Report r = ask(2, id);
      assertTrue(r.outOfOrder() == 0, id + " kept order");
    }
    // Shards never used before get allocated by the new coordinator.
    int fresh = 0;
    for (int i = 0; fresh < 10; i++) {
      String id = "fresh-" + i;
      if (usedShards.contains(StableHashMessageExtractor.shardIdFor(id, SHARDS))) {
        continue;
      }
      fresh++;
      ClusterSharding.get(cluster.system(2)).entityRefFor(KEY, id).tell(new Msg("n2", 1));
      awaitReceived(1, id, 1);
    }
    ClusterShardingStats stats = ClusterSharding.get(cluster.system(2)).clusterShardingStats(KEY, Duration.ofSeconds(5))
        .toCompletableFuture().get(10, TimeUnit.SECONDS);
    assertTrue(stats.regions().size() == 2, "both remaining regions registered with the new coordinator: "
        + stats.regions().keySet());
    assertTrue(Recorder.DOUBLE_INCARNATIONS.isEmpty(), "entities alive twice: " + Recorder.DOUBLE_INCARNATIONS);
    for (Map<String, Integer> shards : stats.regions().values()) {
      assertFalse(shards.isEmpty());
    }
  }
}
