package dev.shardkit.sharding.testkit.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.ClusterSharding;
import dev.shardkit.sharding.ClusterShardingStats;
import dev.shardkit.sharding.Entity;
import dev.shardkit.sharding.testkit.TestCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.apache.pekko.actor.typed.ActorSystem;
import org.junit.jupiter.api.Test;

/** Counters on a three-node cluster in this JVM: spread over the nodes, reached from each. */
class CounterClusterTest {
  static final String CONFIG = """
      pekko.actor.serialization-bindings {
        "dev.shardkit.sharding.testkit.examples.CborSerializable" = jackson-cbor
      }
      """;

  @Test
  void everyNodeReachesEveryCounter() throws Exception {
    List<String> ids = IntStream.range(0, 30).mapToObj(i -> "counter-" + i).toList();
    try (TestCluster cluster = new TestCluster("Counters")) {
      for (int i = 0; i < 3; i++) {
        cluster.add(CONFIG);
        cluster.awaitUp(i + 1);
      }
      // The oldest node (the first) last: its start starts the coordinator, which then finds all
      // three regions and places the shards over them. A region started after the coordinator has
      // settled gets a share only of the shards not used yet, and the increments below could have
      // used all thirty before it came.
      List<ActorSystem<Void>> nodes = new ArrayList<>(cluster.systems());
      Collections.reverse(nodes);
      for (ActorSystem<Void> node : nodes) {
        ClusterSharding.get(node).start(Entity.of(Counter.KEY, ctx -> Counter.create(ctx.entityId())));
      }

      // Every node increments every counter once...
      for (ActorSystem<Void> node : cluster.systems()) {
        for (String id : ids) {
          ClusterSharding.get(node).entityRefFor(Counter.KEY, id).tell(new Counter.Increment(1));
        }
      }
      // ...so every counter gets to 3, read through any node.
      for (String id : ids) {
        TestCluster.await(Duration.ofSeconds(30), () -> valueOf(cluster.system(2), id) == 3,
            id + " counted the three increments");
      }

      // The counters live on all three nodes.
      ClusterShardingStats stats = ClusterSharding.get(cluster.system(0))
          .clusterShardingStats(Counter.KEY, Duration.ofSeconds(5)).toCompletableFuture().get(10, TimeUnit.SECONDS);
      assertEquals(3, stats.regions().size(), "a region on every node");
      stats.regions().values().forEach(shards -> assertTrue(!shards.isEmpty(), "every node hosts shards: " + stats));
    }
  }

  /** The counter's value, asked through {@code node}. */
  private static int valueOf(ActorSystem<?> node, String id) {
    return ClusterSharding.get(node).entityRefFor(Counter.KEY, id)
        .<Integer>ask(Counter.Get::new, Duration.ofSeconds(5)).toCompletableFuture().join();
  }
}
