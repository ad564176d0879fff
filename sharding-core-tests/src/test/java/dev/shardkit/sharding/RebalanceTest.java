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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A fourth node joins a three-node cluster hosting 100 shards while every node sends to 2 000
 * entities that passivate themselves every few messages: the shards spread evenly within seconds,
 * on default settings, and an external ledger finds nothing lost, duplicated or reordered, and no
 * entity alive twice. Hand-offs meet entities that are stopping with messages held for them:
 * those are processed at the old home, before anything sent after the move.
 *
 * <p>The same join without passivation was a case of its own; it asserted nothing this one does
 * not but that every entity is live at the end, which passivation makes untrue, and the cluster
 * simulation runs joins and rebalances under traffic with and without passivation on every build
 * (docs/testing.md, "What moved to the simulation").
 */
class RebalanceTest {
  static final EntityTypeKey<Ledger.Command> KEY = EntityTypeKey.create(Ledger.Command.class, "Balanced");
  static final int SHARDS = 100;

  final Ledger ledger = new Ledger();
  TestCluster cluster;

  @AfterEach
  void stop() {
    cluster.close();
  }

  /** Entities passivate themselves after this many messages. */
  static final int PASSIVATE_EVERY = 3;

  void startSharding(ActorSystem<?> system) {
    ClusterSharding.get(system).start(Entity.of(KEY, ctx -> ledger.entity(ctx, PASSIVATE_EVERY))
        .withSettings(ShardingSettings.create(system).withNumberOfShards(SHARDS)));
  }

  static ClusterShardingStats stats(ActorSystem<?> system) {
    return stats(system, KEY);
  }

  /** The type's stats, or empty ones if they could not be had in time. */
  static ClusterShardingStats stats(ActorSystem<?> system, EntityTypeKey<?> key) {
    try {
      return ClusterSharding.get(system).clusterShardingStats(key, Duration.ofSeconds(3)).toCompletableFuture()
          .get(5, TimeUnit.SECONDS);
    } catch (Exception e) {
      return new ClusterShardingStats(Map.of(), java.util.Set.of());
    }
  }

  static volatile String lastSeen = "";

  static boolean balanced(ClusterShardingStats stats, int regions) {
    lastSeen = "regions=" + stats.regions().size() + " failed=" + stats.failedRegions() + " shards="
        + stats.regions().values().stream().map(Map::size).toList();
    return evenlySpread(stats, regions, SHARDS);
  }

  /** All {@code shards} shards live in {@code regions} regions, whose counts differ by at most one. */
  static boolean evenlySpread(ClusterShardingStats stats, int regions, int shards) {
    if (stats.regions().size() != regions || stats.shardCount() != shards) {
      return false;
    }
    int min = stats.regions().values().stream().mapToInt(Map::size).min().orElse(0);
    int max = stats.regions().values().stream().mapToInt(Map::size).max().orElse(0);
    return max - min <= 1;
  }

  @Test
  void passivatingEntitiesLoseNothingAcrossTheMove() throws Exception {
    cluster = new TestCluster("Rebalance").startNodes(3);
    cluster.systems().forEach(this::startSharding);
    List<String> entities = new ArrayList<>();
    for (int i = 0; i < 2000; i++) {
      entities.add("r-" + i);
    }
    Map<String, ActorSystem<?>> senders = new HashMap<>();
    for (int n = 0; n < 3; n++) {
      senders.put("node-" + n, cluster.system(n));
    }
    Traffic traffic = new Traffic(senders, KEY, entities, Duration.ofMillis(1200));
    TestCluster.await(Duration.ofSeconds(30), () -> balanced(stats(cluster.system(0)), 3),
        "all 100 shards allocated over three regions");

    ActorSystem<Void> fourth = cluster.addWithRoles();
    cluster.awaitUp(4);
    long upAt = System.nanoTime();
    startSharding(fourth);
    try {
      TestCluster.await(Duration.ofSeconds(30), () -> balanced(stats(cluster.system(0)), 4),
          "the shards balanced over four regions");
    } catch (AssertionError e) {
      throw new AssertionError(e.getMessage() + "; last stats: " + lastSeen, e);
    }
    Duration took = Duration.ofNanos(System.nanoTime() - upAt);
    System.out.println("RebalanceTest: balanced over four regions " + took.toMillis() + " ms after the fourth node's Up");
    // Traffic goes on for a round after the moves, then the books are checked.
    traffic.awaitRoundsAfter(traffic.roundsSoFar(), 1, Duration.ofSeconds(30));
    Map<String, Integer> sent = traffic.stop();
    Ledger.Report report = ledger.awaitAndCheck(entities, sent, Duration.ofSeconds(60));
    assertTrue(report.clean(), "ledger: " + report);
    assertTrue(took.compareTo(Duration.ofSeconds(10)) <= 0, "balanced within 10 s of the fourth node's Up, took "
        + took.toMillis() + " ms");

    // The stats agree with where the entities really are. Entities of a moved shard start again
    // with their next message, so every entity gets one more first.
    for (String id : entities) {
      ClusterSharding.get(cluster.system(3)).entityRefFor(KEY, id).tell(new Ledger.Msg("last", 1));
    }
    TestCluster.await(Duration.ofSeconds(30), () -> entities.stream().allMatch(id -> ledger.received(id, "last") == 1),
        "every entity got its last message");
    long moved = entities.stream().filter(id -> ledger.incarnations(id) > 1).count();
    assertTrue(moved > 0, "some entities really moved");
    ClusterShardingStats stats = stats(cluster.system(1));
    Map<String, Integer> liveIn = new HashMap<>();
    for (ActorSystem<Void> system : cluster.systems()) {
      ShardRegionState local = ClusterSharding.get(system).shardRegionState(KEY).toCompletableFuture()
          .get(10, TimeUnit.SECONDS);
      Map<String, Integer> counted = stats.regions().get(
          org.apache.pekko.cluster.typed.Cluster.get(system).selfMember().address());
      Map<String, Integer> actual = new HashMap<>();
      local.shards().forEach(s -> actual.put(s.shardId(), s.entityIds().size()));
      assertEquals(actual, counted, "stats of " + system);
      local.shards().forEach(s -> s.entityIds().forEach(id -> liveIn.merge(id, 1, Integer::sum)));
    }
    assertTrue(liveIn.values().stream().allMatch(c -> c == 1), "every entity is listed on exactly one node");
  }
}
