package dev.shardkit.sharding.testsupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.ClusterSharding;
import dev.shardkit.sharding.ClusterShardingStats;
import dev.shardkit.sharding.EntityTypeKey;
import dev.shardkit.sharding.StableHashMessageExtractor;
import dev.shardkit.sharding.spi.ShardingEvent;
import dev.shardkit.sharding.testkit.TelemetryRecorder;
import dev.shardkit.sharding.testkit.TestCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.typed.ActorSystem;
import org.junit.jupiter.api.Test;

/**
 * The coordinator's node crashes (its actor system stops without leaving; the split-brain
 * resolver downs it) while the other nodes keep sending. Run once per state store: a subclass
 * gives the store's configuration.
 *
 * <p>Asserted: the next oldest node's coordinator starts from the stored state (for stores that
 * outlive the coordinator) and forgets the crashed region before it serves; shards on the
 * surviving nodes keep their homes and keep serving; messages for the crashed node's shards that
 * are sent after the senders saw it unreachable are held and delivered at the shards' new homes;
 * messages for shards that had no home are delivered once the new coordinator places them; no
 * entity ever runs twice; nothing is lost, duplicated or reordered.
 */
public abstract class CoordinatorFailoverScenario {
  private static final int SHARDS = 60;
  /** Shards 0..39 are in use before the crash; 40..59 are first asked for during the gap. */
  private static final int USED_SHARDS = 40;
  private static final Duration PAUSE = Duration.ofMillis(20);

  /** Configuration for every node that selects and sets up the store under test. */
  protected abstract String storeConfig();

  /** True if the store outlives the coordinator, so its successor loads the shard homes. */
  protected abstract boolean storeOutlivesCoordinator();

  @Test
  void theCoordinatorsNodeCrashesUnderTraffic() throws Exception {
    String typeName = "Failover";
    EntityTypeKey<Ledger.Command> key = EntityTypeKey.create(Ledger.Command.class, typeName);
    Ledger ledger = new Ledger();
    List<String> oldIds = idsOnShards(0, USED_SHARDS, 120);
    List<String> newIds = idsOnShards(USED_SHARDS, SHARDS, 30);
    try (LogCapture logs = new LogCapture(); TestCluster cluster = new TestCluster("Failover")) {
      // Node 0 is the oldest, so it runs the coordinator; its system stops without leaving.
      cluster.add(storeConfig() + "\npekko.coordinated-shutdown.run-by-actor-system-terminate = off");
      cluster.awaitUp(1);
      for (int i = 1; i < 4; i++) {
        cluster.add(storeConfig());
        cluster.awaitUp(i + 1);
      }
      // Shards placed on demand: the new shards are first asked for during the gap, so giving them
      // a home takes a write to the store under test.
      ledger.startOnDemand(cluster, key, SHARDS);
      Map<String, ActorSystem<?>> senders = Ledger.senders("n", cluster, 1, 4);
      Map<String, ActorSystem<?>> newSenders = Ledger.senders("new", cluster, 1, 4);

      // Every used shard gets a home (on all four nodes) and every sender learns it.
      Traffic warmUp = new Traffic(senders, key, oldIds, PAUSE);
      TestCluster.await(Duration.ofSeconds(30), () -> oldIds.stream().allMatch(id ->
          senders.keySet().stream().allMatch(s -> ledger.received(id, s) >= 3)), "every entity heard every sender");
      Map<String, Integer> sentBefore = warmUp.stop();
      assertTrue(ledger.awaitAndCheck(oldIds, sentBefore, Duration.ofSeconds(30)).clean(), "clean before the crash");

      Address crashed = cluster.address(0);
      Map<String, Address> homesBefore = shardHomes(cluster.system(1), key);
      assertEquals(USED_SHARDS, homesBefore.size(), "every used shard has a home: " + homesBefore);
      assertTrue(homesBefore.containsValue(crashed), "the crashing node hosts shards: " + homesBefore);

      cluster.system(0).terminate();
      // Each sender's region stops sending to the crashed node's shards once it sees it unreachable.
      logs.awaitCount(Duration.ofSeconds(30), 3, "Entity type [" + typeName + "]: node " + crashed,
          "is unreachable");
      Traffic during = new Traffic(senders, key, oldIds, PAUSE, sentBefore);
      Traffic fresh = new Traffic(newSenders, key, newIds, PAUSE);

      TestCluster.await(Duration.ofSeconds(60), () -> cluster.coordinatorRunsOn(1, typeName),
          "the next oldest node runs the coordinator");
      if (storeOutlivesCoordinator()) {
        // Not the exact number of shards: the crashing node may still give a home to a shard first
        // asked for during the gap before it stops (its system stops while the others already see
        // it unreachable), and that home is stored as well.
        TelemetryRecorder.of(cluster.system(1)).await(Duration.ofSeconds(30), ShardingEvent.CoordinatorLoaded.class,
            l -> l.typeName().equals(typeName) && l.regions() == 4 && l.forgotten() == 1);
      }
      // Wait until the moved shards and the new ones are served, then a little more traffic.
      TestCluster.await(Duration.ofSeconds(60), () -> newIds.stream().allMatch(id ->
          newSenders.keySet().stream().allMatch(s -> ledger.received(id, s) >= 1)), "the new shards are served");
      Map<String, Integer> progress = during.roundsSoFar();
      TestCluster.await(Duration.ofSeconds(30), () -> oldIds.stream().allMatch(id -> senders.keySet().stream()
          .allMatch(s -> ledger.received(id, s) >= progress.get(s))), "every entity caught up");
      Map<String, Integer> sent = during.stop();
      Map<String, Integer> sentNew = fresh.stop();

      Ledger.Report old = ledger.awaitAndCheck(oldIds, sent, Duration.ofSeconds(30));
      Ledger.Report added = ledger.awaitAndCheck(newIds, sentNew, Duration.ofSeconds(30));
      assertTrue(old.clean(), "entities in use before the crash: " + old);
      assertTrue(added.clean(), "entities first used during the failover: " + added);

      Map<String, Address> homesAfter = shardHomes(cluster.system(2), key);
      assertFalse(homesAfter.containsValue(crashed), "no shard lives on the crashed node: " + homesAfter);
      homesBefore.forEach((shard, home) -> {
        if (!home.equals(crashed)) {
          assertEquals(home, homesAfter.get(shard), "shard " + shard + " kept its home on a surviving node");
        }
      });
      assertEquals(SHARDS, homesAfter.size(), "every shard in use has one home: " + homesAfter);
    }
  }

  /** At least {@code count} entity ids whose shards are in {@code [from, to)}, covering each of them. */
  private static List<String> idsOnShards(int from, int to, int count) {
    List<String> ids = new ArrayList<>();
    Set<Integer> covered = new HashSet<>();
    for (int i = 0; ids.size() < count || covered.size() < to - from; i++) {
      String id = "e-" + i;
      int shard = Integer.parseInt(StableHashMessageExtractor.shardIdFor(id, SHARDS));
      if (shard >= from && shard < to && (ids.size() < count || !covered.contains(shard))) {
        ids.add(id);
        covered.add(shard);
      }
    }
    return ids;
  }

  /** Every hosted shard with the node that hosts it, as the coordinator and regions report it. */
  private static Map<String, Address> shardHomes(ActorSystem<?> via, EntityTypeKey<?> key) throws Exception {
    ClusterShardingStats stats = ClusterSharding.get(via).clusterShardingStats(key, Duration.ofSeconds(5))
        .toCompletableFuture().get(10, TimeUnit.SECONDS);
    assertTrue(stats.failedRegions().isEmpty(), "every region answered: " + stats.failedRegions());
    Map<String, Address> homes = new HashMap<>();
    stats.regions().forEach((address, shards) -> shards.keySet().forEach(shard -> {
      Address other = homes.put(shard, address);
      assertTrue(other == null, "shard " + shard + " has two homes: " + other + " and " + address);
    }));
    return homes;
  }
}
