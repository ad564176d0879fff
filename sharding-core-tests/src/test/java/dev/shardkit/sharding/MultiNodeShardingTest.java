package dev.shardkit.sharding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.testsupport.Recorder;
import dev.shardkit.sharding.testsupport.Recorder.Command;
import dev.shardkit.sharding.testsupport.Recorder.Msg;
import dev.shardkit.sharding.testsupport.Recorder.Report;
import dev.shardkit.sharding.testkit.TestCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Three real actor systems on loopback (Artery, serialize-messages = on) sharing one entity type;
 * a fourth joins as a proxy. Checks delivery, order, single placement, balance and proxies.
 */
class MultiNodeShardingTest {
  static final EntityTypeKey<Command> KEY = EntityTypeKey.create(Command.class, "Recorder");
  static final Duration ASK = Duration.ofSeconds(10);

  static TestCluster cluster;
  static List<ActorRef<ShardingEnvelope<Command>>> regions = new ArrayList<>();

  @BeforeAll
  static void startCluster() {
    Recorder.reset();
    cluster = new TestCluster("MultiNode").startNodes(3);
    for (ActorSystem<Void> s : cluster.systems()) {
      // Shards placed on demand, so that the shards in use are the ones spread evenly (placed up
      // front, all shards are, and those in use are whichever the ids hash to).
      regions.add(ClusterSharding.get(s).start(Entity.of(KEY, Recorder::create)
          .withSettings(ShardingSettings.create(s).withPlaceAllShardsAtStart(false))));
    }
    awaitRegions(cluster.system(0), 3);
  }

  @AfterAll
  static void stopCluster() {
    cluster.close();
  }

  @BeforeEach
  void noDoubleIncarnations() {
    assertTrue(Recorder.DOUBLE_INCARNATIONS.isEmpty(), "entities alive twice: " + Recorder.DOUBLE_INCARNATIONS);
  }

  static void awaitRegions(ActorSystem<?> system, int count) {
    TestCluster.await(Duration.ofSeconds(30), () -> {
      try {
        return ClusterSharding.get(system).clusterShardingStats(KEY, Duration.ofSeconds(3)).toCompletableFuture()
            .get(5, TimeUnit.SECONDS).regions().size() == count;
      } catch (Exception e) {
        return false;
      }
    }, count + " regions registered with the coordinator");
  }

  static Report report(ActorSystem<?> from, String entityId) throws Exception {
    return ClusterSharding.get(from).entityRefFor(KEY, entityId)
        .<Report>ask(Recorder.Get::new, ASK).toCompletableFuture().get(15, TimeUnit.SECONDS);
  }

  @Test
  void everyMessageArrivesInOrderAndEachEntityLivesOnOneNode() throws Exception {
    int entities = 1000;
    int perSender = 20;
    // Node 0 and 1 send through EntityRef (the shortcut path), node 2 through its region ActorRef.
    List<Thread> senders = new ArrayList<>();
    for (int n = 0; n < 3; n++) {
      final int node = n;
      ActorSystem<Void> system = cluster.system(n);
      String sender = "node-" + n;
      Thread t = new Thread(() -> {
        ClusterSharding sharding = ClusterSharding.get(system);
        for (int seq = 1; seq <= perSender; seq++) {
          for (int e = 0; e < entities; e++) {
            String id = "a-" + e;
            if (node == 2) {
              regions.get(2).tell(new ShardingEnvelope<>(id, new Msg(sender, seq)));
            } else {
              sharding.entityRefFor(KEY, id).tell(new Msg(sender, seq));
            }
          }
        }
      });
      senders.add(t);
      t.start();
    }
    for (Thread t : senders) {
      t.join();
    }

    Map<String, String> hostOf = new HashMap<>();
    TestCluster.await(Duration.ofSeconds(60), () -> {
      try {
        List<CompletableFuture<Report>> reports = new ArrayList<>();
        for (int e = 0; e < entities; e++) {
          reports.add(ClusterSharding.get(cluster.system(e % 3)).entityRefFor(KEY, "a-" + e)
              .<Report>ask(Recorder.Get::new, ASK).toCompletableFuture());
        }
        int total = 0;
        for (CompletableFuture<Report> f : reports) {
          Report r = f.get(20, TimeUnit.SECONDS);
          total += r.received();
          hostOf.put(r.entityId(), r.host());
        }
        return total == entities * perSender * 3;
      } catch (Exception ex) {
        return false;
      }
    }, "every entity received all " + (entities * perSender * 3) + " messages");

    for (int e = 0; e < entities; e++) {
      Report r = report(cluster.system(0), "a-" + e);
      assertEquals(perSender * 3, r.received(), "messages received by " + r.entityId());
      assertEquals(0, r.outOfOrder(), "messages out of order at " + r.entityId());
      assertEquals(Map.of("node-0", perSender, "node-1", perSender, "node-2", perSender), r.lastSeq());
    }

    // Each entity is live exactly once, on the node that answered for it.
    assertTrue(Recorder.DOUBLE_INCARNATIONS.isEmpty(), "entities alive twice: " + Recorder.DOUBLE_INCARNATIONS);
    Map<String, Integer> liveCount = new HashMap<>();
    for (int n = 0; n < 3; n++) {
      ShardRegionState state = ClusterSharding.get(cluster.system(n)).shardRegionState(KEY).toCompletableFuture()
          .get(10, TimeUnit.SECONDS);
      String host = cluster.address(n).toString();
      for (ShardRegionState.ShardState shard : state.shards()) {
        for (String id : shard.entityIds()) {
          liveCount.merge(id, 1, Integer::sum);
          if (id.startsWith("a-")) {
            assertEquals(hostOf.get(id), host, "entity " + id + " is listed on a node other than the one it runs on");
          }
        }
      }
    }
    for (int e = 0; e < entities; e++) {
      assertEquals(1, liveCount.getOrDefault("a-" + e, 0), "regions listing entity a-" + e);
    }
  }

  @Test
  void shardsAreSpreadEvenlyOverTheRegions() throws Exception {
    for (int e = 0; e < 300; e++) {
      ClusterSharding.get(cluster.system(e % 3)).entityRefFor(KEY, "b-" + e).tell(new Msg("t", 1));
    }
    for (int e = 0; e < 300; e += 7) {
      report(cluster.system(1), "b-" + e);
    }
    ClusterShardingStats stats = ClusterSharding.get(cluster.system(1)).clusterShardingStats(KEY, ASK)
        .toCompletableFuture().get(15, TimeUnit.SECONDS);
    assertEquals(3, stats.regions().size(), "regions in " + stats);
    assertTrue(stats.shardCount() >= 30, "at least 30 shards allocated, got " + stats.shardCount());
    int min = stats.regions().values().stream().mapToInt(Map::size).min().orElseThrow();
    int max = stats.regions().values().stream().mapToInt(Map::size).max().orElseThrow();
    assertTrue(max - min <= 1, "shard counts per region differ by more than 1: " + stats.regions().values().stream()
        .map(Map::size).toList());
    assertTrue(stats.failedRegions().isEmpty());
  }

  @Test
  void theCoordinatorRunsOnTheOldestNode() throws Exception {
    Address oldest = cluster.address(0);
    for (int n = 0; n < 3; n++) {
      boolean here = coordinatorRunsOn(cluster.system(n));
      assertEquals(cluster.address(n).equals(oldest), here, "coordinator on " + cluster.address(n));
    }
  }

  static boolean coordinatorRunsOn(ActorSystem<?> system) {
    return coordinatorRunsOnType(system, KEY.name());
  }

  /** True if the coordinator singleton of the type runs in this system. */
  static boolean coordinatorRunsOnType(ActorSystem<?> system, String typeName) {
    return TestCluster.coordinatorRunsIn(system, typeName);
  }

  @Test
  void aProxyReachesEntitiesAndHostsNone() throws Exception {
    ActorSystem<Void> proxyNode = cluster.addWithRoles("client");
    cluster.awaitUp(4);
    try {
      ClusterSharding sharding = ClusterSharding.get(proxyNode);
      ActorRef<ShardingEnvelope<Command>> proxy = sharding.startProxy(KEY, Optional.empty());
      for (int e = 0; e < 50; e++) {
        proxy.tell(new ShardingEnvelope<>("p-" + e, new Msg("proxy", 1)));
        sharding.entityRefFor(KEY, "p-" + e).tell(new Msg("proxy", 2));
      }
      for (int e = 0; e < 50; e++) {
        String id = "p-" + e;
        TestCluster.await(Duration.ofSeconds(20), () -> {
          try {
            return report(proxyNode, id).received() == 2;
          } catch (Exception ex) {
            return false;
          }
        }, id + " received both messages from the proxy");
        Report r = report(proxyNode, id);
        assertEquals(0, r.outOfOrder());
        assertTrue(!r.host().equals(cluster.address(3).toString()), id + " must not live on the proxy node");
      }
      ShardRegionState local = sharding.shardRegionState(KEY).toCompletableFuture().get(10, TimeUnit.SECONDS);
      assertEquals(0, local.shards().size(), "the proxy hosts no shard");
      ClusterShardingStats stats = sharding.clusterShardingStats(KEY, ASK).toCompletableFuture()
          .get(15, TimeUnit.SECONDS);
      assertEquals(3, stats.regions().size(), "the proxy is not a region: " + stats.regions().keySet());
      assertTrue(!stats.regions().containsKey(cluster.address(3)));
    } finally {
      // Leave the cluster as the other tests expect it: three nodes. The leaving node's own view
      // of the cluster is not asked: once it has left, it no longer sees three members Up.
      cluster.leave(proxyNode);
      cluster.awaitUp(3);
    }
  }
}
