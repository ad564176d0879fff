package dev.shardkit.sharding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.testkit.Bursts;
import dev.shardkit.sharding.testkit.Ledger;
import dev.shardkit.sharding.testkit.TestCluster;
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
 * Shards move while every sender bursts at full speed, on default transport settings: a node
 * joins (and gets its share by rebalancing), or a node leaves gracefully (and hands off all its
 * shards). The hand-off markers travel in the same batched, acknowledged stream as the messages
 * they follow, so the external ledger finds nothing lost, duplicated or reordered, and no entity
 * alive twice.
 */
class MovesDuringBurstsTest {
  static final EntityTypeKey<Ledger.Command> KEY = EntityTypeKey.create(Ledger.Command.class, "Bursty");
  static final int SHARDS = RebalanceTest.SHARDS;

  final Ledger ledger = new Ledger();
  TestCluster cluster;

  @AfterEach
  void stop() {
    cluster.close();
  }

  void startSharding(ActorSystem<?> system) {
    ClusterSharding.get(system).start(Entity.of(KEY, ledger::entity)
        .withSettings(ShardingSettings.create(system).withNumberOfShards(SHARDS)));
  }

  /** One message to every entity from {@code warm-up}, so that every shard has started. */
  void warmUp(List<String> entities) {
    for (String id : entities) {
      ClusterSharding.get(cluster.system(0)).entityRefFor(KEY, id).tell(new Ledger.Msg("warm-up", 1));
    }
    ledger.awaitAndCheck(entities, Map.of("warm-up", 1), Duration.ofSeconds(30));
  }

  static List<String> entities() {
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 1000; i++) {
      ids.add("m-" + i);
    }
    return ids;
  }

  /** Three nodes whose shards are spread and started, every entity having had one message. */
  List<String> threeBusyNodes(String name) {
    cluster = new TestCluster(name).startNodes(3);
    cluster.systems().forEach(this::startSharding);
    List<String> entities = entities();
    warmUp(entities);
    TestCluster.await(Duration.ofSeconds(30), () -> RebalanceTest.balanced(RebalanceTest.stats(cluster.system(0), KEY),
        3), "the shards spread over three regions");
    return entities;
  }

  /** Waits for the ledger to account for every message sent, and checks it. */
  void assertDelivered(String what, List<String> entities, Map<String, Integer> sent) throws Exception {
    Ledger.Report report = ledger.awaitAndCheck(entities, sent, Duration.ofSeconds(60));
    System.out.println("MovesDuringBurstsTest [" + what + "]: " + report);
    assertTrue(report.clean(), "ledger: " + report);
    assertTrue(entities.stream().anyMatch(id -> ledger.incarnations(id) > 1), "entities moved during the bursts");
    assertNothingDropped();
  }

  @Test
  void aRebalanceDuringBurstsLosesNothing() throws Exception {
    List<String> entities = threeBusyNodes("RebalanceBurst");
    ActorSystem<Void> fourth = cluster.addWithRoles();
    cluster.awaitUp(4);
    Map<String, ActorSystem<?>> senders = new HashMap<>();
    for (int n = 0; n < 4; n++) {
      senders.put("node-" + n, cluster.system(n));
    }
    startSharding(fourth);
    Bursts bursts = new Bursts(senders, KEY, entities, 16, 4, Duration.ofMillis(300));
    TestCluster.await(Duration.ofSeconds(30), () -> RebalanceTest.balanced(RebalanceTest.stats(cluster.system(0), KEY),
        4), "the shards balanced over four regions");
    assertDelivered("rebalance", entities, bursts.await());
  }

  @Test
  void aGracefulLeaveDuringBurstsLosesNothing() throws Exception {
    List<String> entities = threeBusyNodes("LeaveBurst");
    ActorSystem<Void> leaving = cluster.system(2);
    Map<String, ActorSystem<?>> senders = Map.of("node-0", cluster.system(0), "node-1", cluster.system(1));
    Bursts bursts = new Bursts(senders, KEY, entities, 16, 4, Duration.ofMillis(300));
    TestCluster.await(Duration.ofSeconds(30), () -> bursts.sentWaves(2), "two waves sent before the node leaves");
    cluster.leave(leaving);
    assertDelivered("graceful leave", entities, bursts.await());
  }

  void assertNothingDropped() throws Exception {
    for (ActorSystem<?> s : cluster.systems()) {
      assertEquals(0, ClusterSharding.get(s).shardRegionState(KEY).toCompletableFuture().get(10, TimeUnit.SECONDS)
          .droppedMessages(), "nothing dropped on " + s.address());
    }
  }
}
