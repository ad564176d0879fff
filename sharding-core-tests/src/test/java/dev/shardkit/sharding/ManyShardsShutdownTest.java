package dev.shardkit.sharding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.testsupport.Ledger;
import dev.shardkit.sharding.testkit.TestCluster;
import dev.shardkit.sharding.testsupport.Traffic;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Leave;
import org.junit.jupiter.api.Test;

/**
 * Three nodes with 10 000 shards placed up front (and their homes told to every region): one node
 * leaves gracefully under traffic and hands off every one of its shards within the coordinated
 * shutdown phase's timeout, and the ledger finds nothing lost, duplicated or reordered. The phase
 * does not recover on the leaving node, so a hand-off that overran its timeout would stop the
 * node's shutdown there and the node would never terminate.
 */
class ManyShardsShutdownTest {
  static final EntityTypeKey<Ledger.Command> KEY = EntityTypeKey.create(Ledger.Command.class, "ManyShards");
  static final int SHARDS = 10_000;

  /** Without recovery a timed-out phase ends the shutdown there: the node is never terminated. */
  static final String NO_RECOVERY =
      "pekko.coordinated-shutdown.phases.cluster-sharding-shutdown-region.recover = off";

  @Test
  void aNodeWithAThirdOfTenThousandShardsLeavesWithinThePhaseTimeoutAndNothingIsLost() throws Exception {
    Ledger ledger = new Ledger();
    try (TestCluster cluster = new TestCluster("ManyShards")) {
      for (int n = 0; n < 3; n++) {
        cluster.add(n == 2 ? NO_RECOVERY : "");
      }
      cluster.awaitUp(3);
      for (ActorSystem<Void> system : cluster.systems()) {
        ClusterSharding.get(system).start(Entity.of(KEY, ledger::entity)
            .withSettings(ShardingSettings.create(system).withNumberOfShards(SHARDS)));
      }
      ActorSystem<Void> survivor = cluster.system(0);
      TestCluster.await(Duration.ofSeconds(20), () -> RebalanceTest.stats(survivor, KEY).regions().size() == 3,
          "the coordinator knows every region");
      List<String> entities = new ArrayList<>();
      for (int i = 0; i < 300; i++) {
        entities.add("m-" + i);
      }
      Traffic traffic = new Traffic(Map.of("node-0", survivor, "node-1", cluster.system(1)), KEY, entities,
          Duration.ofMillis(300));
      TestCluster.await(Duration.ofSeconds(20), () -> entities.stream().allMatch(id -> ledger.incarnations(id) > 0),
          "every entity has started");
      ShardRegionState before = ClusterSharding.get(cluster.system(2)).shardRegionState(KEY)
          .toCompletableFuture().get(10, TimeUnit.SECONDS);
      assertTrue(before.shards().size() > 0, "the leaving node hosts started shards before it leaves");

      Cluster.get(cluster.system(2)).manager().tell(new Leave(cluster.address(2)));
      TestCluster.await(Duration.ofSeconds(20), () -> cluster.system(2).getWhenTerminated().toCompletableFuture()
          .isDone(), "the node has handed off its shards, left and stopped");
      TestCluster.await(Duration.ofSeconds(20), () -> RebalanceTest.stats(survivor, KEY).regions().size() == 2,
          "the coordinator has forgotten the region that left");
      Map<String, Integer> sent = traffic.stop();
      Ledger.Report report = ledger.awaitAndCheck(entities, sent, Duration.ofSeconds(30));
      assertTrue(report.clean(), "ledger: " + report);
      assertEquals(0, ClusterSharding.get(survivor).shardRegionState(KEY).toCompletableFuture()
          .get(10, TimeUnit.SECONDS).droppedMessages(), "nothing dropped by a surviving region");
    }
  }
}
