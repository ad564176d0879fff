package dev.shardkit.sharding.testsupport.persistence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.ClusterSharding;
import dev.shardkit.sharding.CoordinatorBacklog;
import dev.shardkit.sharding.EntityTypeKey;
import dev.shardkit.sharding.StableHashMessageExtractor;
import dev.shardkit.sharding.spi.ShardingEvent;
import dev.shardkit.sharding.testsupport.Ledger;
import dev.shardkit.sharding.testsupport.LogCapture;
import dev.shardkit.sharding.testkit.TelemetryRecorder;
import dev.shardkit.sharding.testkit.TestCluster;
import dev.shardkit.sharding.testsupport.Traffic;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * The coordinator's database (a real PostgreSQL, {@code state-store-mode = persistence}) is down
 * for a while under steady traffic on a three-node cluster; every node sends to entities whose
 * shards had a home before the outage (known shards) and to entities of shards first asked for
 * during it (new shards), whose regions ask the coordinator for their homes every retry interval
 * for as long as the database is away.
 *
 * <p>Asserted: the known shards keep serving throughout (in every check window of the outage each
 * known entity gets more messages from every node); the coordinator's memory stays flat: what it
 * holds for the waiting regions ({@link CoordinatorBacklog}: pending answers and effects waiting
 * for a write) never exceeds one per (new shard, region) and does not grow with the outage's
 * length; nothing reaches the new shards' entities while the database is away, and once it is
 * back every message held for them is delivered exactly once, in order; nothing sent to the
 * known entities is lost, duplicated or reordered; no entity runs twice.
 */
public final class StoreOutageScenario {
  private static final int SHARDS = 60;
  /** Shards 0..29 are in use before the outage; 30..59 are first asked for during it. */
  private static final int KNOWN_SHARDS = 30;
  private static final int NODES = 3;
  private static final Duration KNOWN_PAUSE = Duration.ofMillis(100);
  private static final Duration NEW_PAUSE = Duration.ofMillis(500);
  /** Each known entity must get messages from every node within each window of the outage. */
  private static final Duration CHECK_WINDOW = Duration.ofSeconds(5);

  private StoreOutageScenario() {}

  /** Runs the scenario with the database down for {@code outage}. */
  public static void run(String typeName, Duration outage) throws Exception {
    EntityTypeKey<Ledger.Command> key = EntityTypeKey.create(Ledger.Command.class, typeName);
    Ledger ledger = new Ledger();
    List<String> knownIds = idsOnShards(0, KNOWN_SHARDS, 20);
    List<String> newIds = idsOnShards(KNOWN_SHARDS, SHARDS, 10);
    int newShards = shardsOf(newIds).size();
    try (EmbeddedPostgresServer postgres = EmbeddedPostgresServer.start(); LogCapture logs = new LogCapture();
        TestCluster cluster = new TestCluster(typeName)) {
      // A rebalance during the outage would rightly hold the moving shard's messages until the
      // database is back; this scenario is about shards at rest.
      String config = postgres.storeConfig() + """
          shardkit.sharding.state-store-mode = persistence
          shardkit.sharding.rebalance-interval = 1h
          """;
      for (int i = 0; i < NODES; i++) {
        cluster.add(config);
        cluster.awaitUp(i + 1);
      }
      // Shards placed on demand, so that a new shard's home is a write that waits for the database.
      ledger.startOnDemand(cluster, key, SHARDS);
      Map<String, ActorSystem<?>> senders = Ledger.senders("n", cluster, 0, NODES);
      Map<String, ActorSystem<?>> newSenders = Ledger.senders("new", cluster, 0, NODES);
      Traffic known = new Traffic(senders, key, knownIds, KNOWN_PAUSE);
      TestCluster.await(Duration.ofSeconds(30), () -> knownIds.stream().allMatch(id ->
          senders.keySet().stream().allMatch(s -> ledger.received(id, s) >= 2)), "every known entity is served");

      postgres.stop();
      Traffic fresh = new Traffic(newSenders, key, newIds, NEW_PAUSE);
      List<CoordinatorBacklog> samples = new ArrayList<>();
      long end = System.nanoTime() + outage.toNanos();
      Map<String, Integer> before = receivedFromEach(ledger, knownIds, senders.keySet());
      while (System.nanoTime() < end) {
        Thread.sleep(Math.min(CHECK_WINDOW.toMillis(), Math.max(1, (end - System.nanoTime()) / 1_000_000)));
        Map<String, Integer> now = receivedFromEach(ledger, knownIds, senders.keySet());
        for (Map.Entry<String, Integer> e : now.entrySet()) {
          assertTrue(e.getValue() > before.get(e.getKey()), "known shards keep serving while the database is down: "
              + e.getKey() + " got nothing new in " + CHECK_WINDOW);
        }
        before = now;
        samples.add(backlog(cluster.system(0), key));
      }
      TelemetryRecorder.of(cluster.system(0)).await(Duration.ofSeconds(1), ShardingEvent.CoordinatorStoreWrite.class,
          w -> w.typeName().equals(typeName) && w.failure() != null);
      for (String id : newIds) {
        for (String s : newSenders.keySet()) {
          assertEquals(0, ledger.received(id, s), "nothing reaches a new shard while its home cannot be stored");
        }
      }
      // At most one pending answer per (new shard, region), and a few effects per new shard (its
      // allocation's announcement): never one per request the regions repeat every second.
      int bound = newShards * NODES;
      CoordinatorBacklog first = samples.get(0);
      for (CoordinatorBacklog b : samples) {
        assertTrue(b.pendingAnswers() <= bound && b.waitingEffects() <= bound,
            "what the coordinator holds is bounded by the shards and regions asking (" + newShards + " x " + NODES
                + "): " + samples);
        assertTrue(b.pendingAnswers() + b.waitingEffects() <= first.pendingAnswers() + first.waitingEffects(),
            "what the coordinator holds does not grow with the outage's length: " + samples);
      }

      Map<String, Integer> sentNew = fresh.stop();
      postgres.restart();
      Ledger.Report added = ledger.awaitAndCheck(newIds, sentNew, Duration.ofSeconds(60));
      assertTrue(added.clean(), "every message held for a new shard is delivered once, in order: " + added);
      Map<String, Integer> sentKnown = known.stop();
      Ledger.Report served = ledger.awaitAndCheck(knownIds, sentKnown, Duration.ofSeconds(30));
      assertTrue(served.clean(), "the known entities lost, duplicated or reordered nothing: " + served);
      TestCluster.await(Duration.ofSeconds(10), () -> {
        CoordinatorBacklog after = backlog(cluster.system(0), key);
        return after.pendingAnswers() == 0 && after.waitingEffects() == 0;
      }, "the coordinator holds nothing once the database is back");
    }
  }

  private static CoordinatorBacklog backlog(ActorSystem<?> system, EntityTypeKey<?> key) {
    try {
      return ClusterSharding.get(system).coordinatorBacklog(key, Duration.ofSeconds(3)).toCompletableFuture()
          .get(5, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new AssertionError("the coordinator did not report its backlog", e);
    }
  }

  /** For each (entity, sender): how many messages arrived. */
  private static Map<String, Integer> receivedFromEach(Ledger ledger, List<String> ids, Set<String> senders) {
    Map<String, Integer> received = new HashMap<>();
    for (String id : ids) {
      for (String s : senders) {
        received.put(id + " from " + s, ledger.received(id, s));
      }
    }
    return received;
  }

  private static Set<String> shardsOf(List<String> ids) {
    Set<String> shards = new HashSet<>();
    ids.forEach(id -> shards.add(StableHashMessageExtractor.shardIdFor(id, SHARDS)));
    return shards;
  }

  /** {@code count} entity ids whose shards are in {@code [from, to)}. */
  private static List<String> idsOnShards(int from, int to, int count) {
    List<String> ids = new ArrayList<>();
    for (int i = 0; ids.size() < count; i++) {
      String id = "e-" + i;
      int shard = Integer.parseInt(StableHashMessageExtractor.shardIdFor(id, SHARDS));
      if (shard >= from && shard < to) {
        ids.add(id);
      }
    }
    return ids;
  }
}
