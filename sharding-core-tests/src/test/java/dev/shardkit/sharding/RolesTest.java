package dev.shardkit.sharding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.testsupport.Recorder;
import dev.shardkit.sharding.testsupport.Recorder.Command;
import dev.shardkit.sharding.testsupport.Recorder.Msg;
import dev.shardkit.sharding.testsupport.Recorder.Report;
import dev.shardkit.sharding.testkit.TestCluster;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorSystem;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * An entity type with a role: the oldest node lacks it, so {@code start} there gives a proxy, the
 * coordinator runs on the oldest node that has the role, and entities live only on role nodes.
 */
class RolesTest {
  static final EntityTypeKey<Command> KEY = EntityTypeKey.create(Command.class, "Backend");
  static TestCluster cluster;

  @BeforeAll
  static void start() {
    Recorder.reset();
    cluster = new TestCluster("Roles");
    cluster.addWithRoles("frontend");
    cluster.awaitUp(1);
    cluster.addWithRoles("backend");
    cluster.awaitUp(2);
    cluster.addWithRoles("backend");
    cluster.awaitUp(3);
    for (ActorSystem<Void> s : cluster.systems()) {
      ClusterSharding.get(s).start(Entity.of(KEY, Recorder::create).withRole("backend"));
    }
  }

  @AfterAll
  static void stop() {
    cluster.close();
  }

  static boolean coordinatorRunsOn(ActorSystem<?> system) {
    return MultiNodeShardingTest.coordinatorRunsOnType(system, KEY.name());
  }

  @Test
  void coordinatorRunsOnTheOldestNodeWithTheRoleAndEntitiesOnlyOnRoleNodes() throws Exception {
    for (int i = 0; i < 60; i++) {
      ClusterSharding.get(cluster.system(0)).entityRefFor(KEY, "r-" + i).tell(new Msg("front", 1));
    }
    String frontend = cluster.address(0).toString();
    for (int i = 0; i < 60; i++) {
      String id = "r-" + i;
      Report[] r = new Report[1];
      TestCluster.await(Duration.ofSeconds(20), () -> {
        try {
          r[0] = ClusterSharding.get(cluster.system(0)).entityRefFor(KEY, id)
              .<Report>ask(Recorder.Get::new, Duration.ofSeconds(5)).toCompletableFuture().get(10, TimeUnit.SECONDS);
          return r[0].received() == 1;
        } catch (Exception e) {
          return false;
        }
      }, id + " got its message");
      assertFalse(r[0].host().equals(frontend), id + " must not live on the node without the role");
    }
    TestCluster.await(Duration.ofSeconds(10), () -> coordinatorRunsOn(cluster.system(1)), "coordinator on node 1");
    assertFalse(coordinatorRunsOn(cluster.system(0)), "no coordinator on the node without the role");
    assertFalse(coordinatorRunsOn(cluster.system(2)), "no coordinator on the younger role node");

    ShardRegionState front = ClusterSharding.get(cluster.system(0)).shardRegionState(KEY).toCompletableFuture()
        .get(10, TimeUnit.SECONDS);
    assertEquals(0, front.shards().size(), "the node without the role hosts nothing");
    ClusterShardingStats stats = ClusterSharding.get(cluster.system(0)).clusterShardingStats(KEY, Duration.ofSeconds(5))
        .toCompletableFuture().get(10, TimeUnit.SECONDS);
    assertEquals(2, stats.regions().size());
    assertEquals(60, stats.entityCount());
    assertTrue(stats.regions().keySet().stream().noneMatch(a -> a.toString().equals(frontend)));
  }

  /**
   * A proxy started with the type's own settings routes by them: the hosts spread ids over 7
   * shards and refuse any other shard id, so a proxy that used the configured 1000 would have most
   * of its messages dropped there.
   */
  @Test
  void aProxyWithTheTypesOwnSettingsRoutesByThem() throws Exception {
    EntityTypeKey<Command> sized = EntityTypeKey.create(Command.class, "Sized");
    for (int n = 1; n <= 2; n++) {
      ActorSystem<Void> s = cluster.system(n);
      ClusterSharding.get(s).start(Entity.of(sized, Recorder::create).withRole("backend")
          .withSettings(ShardingSettings.create(s).withNumberOfShards(7)));
    }
    ActorSystem<Void> front = cluster.system(0);
    ClusterSharding.get(front).startProxy(sized, java.util.Optional.of("backend"),
        ShardingSettings.create(front).withNumberOfShards(7));
    for (int i = 0; i < 30; i++) {
      String id = "s-" + i;
      Report r = ClusterSharding.get(front).entityRefFor(sized, id).<Report>ask(Recorder.Get::new,
          Duration.ofSeconds(10)).toCompletableFuture().get(15, TimeUnit.SECONDS);
      assertFalse(r.host().equals(cluster.address(0).toString()), id + " lives on a host");
    }
    ClusterShardingStats stats = ClusterSharding.get(front).clusterShardingStats(sized, Duration.ofSeconds(5))
        .toCompletableFuture().get(10, TimeUnit.SECONDS);
    assertEquals(30, stats.entityCount());
    assertTrue(stats.regions().values().stream().flatMap(shards -> shards.keySet().stream())
        .allMatch(shard -> Integer.parseInt(shard) < 7), "shards of the 7: " + stats.regions());
  }
}
