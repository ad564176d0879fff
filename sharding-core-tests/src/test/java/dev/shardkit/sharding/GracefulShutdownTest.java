package dev.shardkit.sharding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.testsupport.Ledger;
import dev.shardkit.sharding.testkit.TestCluster;
import dev.shardkit.sharding.testsupport.Traffic;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Leave;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The coordinator's node leaves the cluster gracefully while the others keep sending: its shards
 * are handed off before it goes, while the coordinator moves to the next oldest node with Pekko's
 * singleton, and an external ledger finds nothing lost, duplicated or reordered, and no entity
 * alive twice.
 *
 * <p>An ordinary node's leave was a case of its own: the same hand-offs without the coordinator's
 * move. The cluster simulation runs leaves of ordinary nodes and of the coordinator's under traffic
 * on every build (docs/testing.md, "What moved to the simulation"); this case keeps what only real
 * Pekko shows, the singleton's hand-over during coordinated shutdown.
 */
class GracefulShutdownTest {
  static final EntityTypeKey<Ledger.Command> KEY = EntityTypeKey.create(Ledger.Command.class, "Leaving");
  static final int SHARDS = 60;

  final Ledger ledger = new Ledger();
  TestCluster cluster;

  @AfterEach
  void stop() {
    cluster.close();
  }

  void leaveUnderTraffic(int leaving) throws Exception {
    cluster = new TestCluster("Leave").startNodes(3);
    for (ActorSystem<Void> system : cluster.systems()) {
      ClusterSharding.get(system).start(Entity.of(KEY, ledger::entity)
          .withSettings(ShardingSettings.create(system).withNumberOfShards(SHARDS)));
    }
    // The coordinator places shards only on regions it knows; a region that started after the
    // coordinator asked its node would get none before traffic has used them all.
    TestCluster.await(Duration.ofSeconds(30), () -> RebalanceTest.stats(cluster.system(0), KEY).regions().size() == 3,
        "the coordinator knows every region");
    List<String> entities = new ArrayList<>();
    for (int i = 0; i < 600; i++) {
      entities.add("g-" + i);
    }
    Map<String, ActorSystem<?>> senders = new HashMap<>();
    for (int n = 0; n < 3; n++) {
      if (n != leaving) {
        senders.put("node-" + n, cluster.system(n));
      }
    }
    Traffic traffic = new Traffic(senders, KEY, entities, Duration.ofMillis(300));
    ActorSystem<Void> survivor = cluster.system(leaving == 0 ? 1 : 0);
    TestCluster.await(Duration.ofSeconds(30), () -> RebalanceTest.stats(survivor, KEY).shardCount() == SHARDS,
        "every shard allocated");
    ShardRegionState before = ClusterSharding.get(cluster.system(leaving)).shardRegionState(KEY)
        .toCompletableFuture().get(10, TimeUnit.SECONDS);
    assertTrue(before.shards().size() > 0, "the leaving node hosts shards before it leaves");

    Cluster.get(cluster.system(leaving)).manager().tell(new Leave(cluster.address(leaving)));
    TestCluster.await(Duration.ofSeconds(40), () -> cluster.system(leaving).getWhenTerminated().toCompletableFuture()
        .isDone(), "the node has left and stopped");
    TestCluster.await(Duration.ofSeconds(30), () -> {
      ClusterShardingStats stats = RebalanceTest.stats(survivor, KEY);
      return stats.regions().size() == 2 && stats.shardCount() == SHARDS;
    }, "every shard lives on the two remaining nodes");
    // Traffic goes on for a few rounds on the remaining nodes, then the books are checked.
    traffic.awaitRoundsAfter(traffic.roundsSoFar(), 3, Duration.ofSeconds(30));
    Map<String, Integer> sent = traffic.stop();
    Ledger.Report report = ledger.awaitAndCheck(entities, sent, Duration.ofSeconds(60));
    assertTrue(report.clean(), "ledger: " + report);
    long moved = entities.stream().filter(id -> ledger.incarnations(id) > 1).count();
    assertTrue(moved > 0, "entities of the leaving node moved");
    assertEquals(0, ClusterSharding.get(survivor).shardRegionState(KEY).toCompletableFuture()
        .get(10, TimeUnit.SECONDS).droppedMessages(), "nothing dropped by the surviving region");
  }

  @Test
  void theCoordinatorsNodeLeavesUnderTrafficAndNothingIsLost() throws Exception {
    leaveUnderTraffic(0);
  }
}
