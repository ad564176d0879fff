package dev.shardkit.sharding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.testkit.LogCapture;
import dev.shardkit.sharding.testkit.TestCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorSystem;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The region a shard is leaving crashes in the middle of the hand-off (its node stops without
 * leaving; the split-brain resolver downs it): the coordinator drops the hand-off, the shards get
 * new homes on the surviving nodes, and every entity answers again, alive in one place only.
 */
class OwnerCrashDuringHandOffTest {
  static final EntityTypeKey<HandOffTimeoutTest.Cmd> KEY =
      EntityTypeKey.create(HandOffTimeoutTest.Cmd.class, "CrashMidHandOff");

  /** Moves every shard of the second-oldest region once a third region exists, and nothing else. */
  static final class MoveSecondRegion implements ShardAllocationStrategy {
    private final LeastShardAllocationStrategy least = new LeastShardAllocationStrategy();

    @Override
    public RegionInfo allocateShard(RegionInfo requester, String shardId, ShardAllocation allocation) {
      return least.allocateShard(requester, shardId, allocation);
    }

    @Override
    public Set<String> rebalance(ShardAllocation allocation, Set<String> rebalanceInProgress) {
      if (allocation.regions().size() != 3) {
        return Set.of();
      }
      return Set.copyOf(allocation.shardsOf(allocation.regions().get(1)));
    }
  }

  TestCluster cluster;

  @AfterEach
  void stop() {
    cluster.close();
  }

  void start(ActorSystem<?> system) {
    ClusterSharding.get(system).start(Entity.of(KEY, HandOffTimeoutTest::slowToStop)
        .withStopMessage(HandOffTimeoutTest.Stop.INSTANCE)
        .withAllocationStrategy(new MoveSecondRegion())
        .withSettings(ShardingSettings.create(system).withNumberOfShards(6)
            .withHandOffTimeout(Duration.ofSeconds(60))));
  }

  CompletableFuture<Integer> ping(String id, int n) {
    return ClusterSharding.get(cluster.system(0)).entityRefFor(KEY, id)
        .<Integer>ask(r -> new HandOffTimeoutTest.Ping(n, r), Duration.ofSeconds(40)).toCompletableFuture();
  }

  @Test
  void theShardsOfARegionThatCrashesMidHandOffGetNewHomes() throws Exception {
    cluster = new TestCluster("OwnerCrash");
    cluster.add("");
    cluster.awaitUp(1);
    // This node's crash must not run the graceful steps a normal termination would.
    cluster.add("pekko.coordinated-shutdown.run-by-actor-system-terminate = off");
    cluster.awaitUp(2);
    start(cluster.system(0));
    start(cluster.system(1));
    // The coordinator places shards only on regions it knows: both must be known before the pings.
    TestCluster.await(Duration.ofSeconds(30), () -> RebalanceTest.stats(cluster.system(0), KEY).regions().size() == 2,
        "the coordinator knows both regions");
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 60; i++) {
      ids.add("c-" + i);
    }
    for (int i = 0; i < ids.size(); i++) {
      assertEquals(i, ping(ids.get(i), i).get(20, TimeUnit.SECONDS));
    }
    String crashing = cluster.address(1).toString();
    int onCrashing = ClusterSharding.get(cluster.system(1)).shardRegionState(KEY).toCompletableFuture()
        .get(10, TimeUnit.SECONDS).shards().size();
    assertTrue(onCrashing > 0, "the node that will crash hosts shards");

    HandOffTimeoutTest.STOPPING.clear();
    try (LogCapture logs = new LogCapture()) {
      cluster.addWithRoles();
      cluster.awaitUp(3);
      start(cluster.system(2));
      logs.await(Duration.ofSeconds(30), "Coordinator of [CrashMidHandOff]: rebalancing");
      // The entities take four seconds to stop: crash the owner while they do.
      TestCluster.await(Duration.ofSeconds(10), () -> !HandOffTimeoutTest.STOPPING.isEmpty(),
          "the owner began stopping the entities of the shards it hands off");
      cluster.system(1).terminate();
      logs.await(Duration.ofSeconds(40), "Coordinator of [CrashMidHandOff]: region", crashing, "is gone");
    }
    List<CompletableFuture<Integer>> answers = new ArrayList<>();
    for (int i = 0; i < ids.size(); i++) {
      answers.add(ping(ids.get(i), 100 + i));
    }
    for (int i = 0; i < ids.size(); i++) {
      assertEquals(100 + i, answers.get(i).get(45, TimeUnit.SECONDS), "answer of " + ids.get(i));
    }
    ClusterShardingStats stats = ClusterSharding.get(cluster.system(0)).clusterShardingStats(KEY,
        Duration.ofSeconds(5)).toCompletableFuture().get(10, TimeUnit.SECONDS);
    assertEquals(2, stats.regions().size(), "the crashed region is gone: " + stats.regions().keySet());
    assertFalse(stats.regions().keySet().stream().anyMatch(a -> a.toString().equals(crashing)));
    assertEquals(60, stats.entityCount());
    assertTrue(HandOffTimeoutTest.TWICE.isEmpty(), "entities alive twice: " + HandOffTimeoutTest.TWICE);
  }
}
