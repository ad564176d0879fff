package dev.shardkit.sharding.ddata;

import static dev.shardkit.sharding.ddata.Replicas.canonical;
import static dev.shardkit.sharding.ddata.Replicas.get;
import static dev.shardkit.sharding.ddata.Replicas.members;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.shardkit.sharding.ShardingSettings;
import dev.shardkit.sharding.spi.CoordinatorEvent.RegionRegistered;
import dev.shardkit.sharding.spi.CoordinatorEvent.ShardHomeAllocated;
import dev.shardkit.sharding.spi.CoordinatorState;
import dev.shardkit.sharding.spi.CoordinatorStateStore;
import dev.shardkit.sharding.testkit.TestCluster;
import java.util.List;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.Cluster;
import org.apache.pekko.cluster.typed.Down;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * One of three replica nodes crashes. Until it is downed it still counts, and with the default
 * majority-min-cap of 5 every write needs all three; once it is downed and removed, a majority of
 * the two left is both of them, and writes succeed again.
 */
class DDataStoreDownedNodeTest {
  static final String CONFIG = """
      shardkit.sharding.state-store-mode = ddata
      shardkit.sharding.ddata { write-timeout = 2s, read-timeout = 2s, read-retries = 1 }
      pekko.cluster.downing-provider-class = ""
      """;
  // Stopping this node's actor system does not make it leave the cluster first: a crash.
  static final String CRASHES = "pekko.coordinated-shutdown.run-by-actor-system-terminate = off\n";
  static final DDataCoordinatorStateStoreProvider PROVIDER = new DDataCoordinatorStateStoreProvider();
  static TestCluster cluster;

  @BeforeAll
  static void start() {
    cluster = new TestCluster("DDataDowned");
    cluster.add(CONFIG);
    cluster.awaitUp(1);
    cluster.add(CONFIG);
    cluster.awaitUp(2);
    cluster.add(CONFIG + CRASHES);
    cluster.awaitUp(3);
    for (ActorSystem<Void> s : cluster.systems()) {
      PROVIDER.startOnNode(s, "any", ShardingSettings.create(s));
    }
  }

  @AfterAll
  static void stop() {
    cluster.close();
  }

  static CoordinatorStateStore store(int node) {
    ActorSystem<Void> s = cluster.system(node);
    return PROVIDER.create(s, "Survivor", ShardingSettings.create(s));
  }

  @Test
  void writesSucceedOnceACrashedNodeIsDowned() throws Exception {
    ActorRef<Object> region = cluster.system(0).systemActorOf(Behaviors.empty(), "survivor-region", Props.empty());
    CoordinatorStateStore store = store(0);
    get(store.load());
    RegionRegistered registered = new RegionRegistered(region);
    CoordinatorState first = CoordinatorState.empty().applied(registered);
    get(store.store(List.of(registered), first));

    Address crashed = cluster.address(2);
    cluster.system(2).terminate();
    TestCluster.await(Duration.ofSeconds(30), () -> cluster.system(2).getWhenTerminated().toCompletableFuture().isDone(),
        "node 2 has stopped");
    Cluster node0 = Cluster.get(Adapter.toClassic(cluster.system(0)));
    TestCluster.await(Duration.ofSeconds(30), () -> node0.state().getUnreachable().size() == 1,
        "node 0 sees node 2 unreachable");

    ShardHomeAllocated allocated = new ShardHomeAllocated("7", region);
    CoordinatorState second = first.applied(allocated);
    // Unreachable but not downed: it still counts, and the write cannot reach all three.
    ExecutionException e = assertThrows(ExecutionException.class, () -> get(store.store(List.of(allocated), second)));
    assertInstanceOf(TimeoutException.class, e.getCause());

    org.apache.pekko.cluster.typed.Cluster.get(cluster.system(0)).manager().tell(new Down(crashed));
    TestCluster.await(Duration.ofSeconds(30), () -> members(cluster, 0) == 2 && members(cluster, 1) == 2,
        "nodes 0 and 1 have removed node 2");

    // The coordinator's retry now reaches a majority: both nodes left.
    get(store.store(List.of(allocated), second));
    assertEquals(canonical(cluster, second, 0), canonical(cluster, get(store(1).load()).state(), 1));
  }
}
