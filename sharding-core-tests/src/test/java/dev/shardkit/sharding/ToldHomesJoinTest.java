package dev.shardkit.sharding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.spi.CoordinatorState;
import dev.shardkit.sharding.testkit.CborSerializable;
import dev.shardkit.sharding.testkit.TestCluster;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.Test;

/**
 * With {@code tell-up-front-homes = on}, regions that join after the first node placed every shard
 * up front and told every region its home get their share of the shards nobody started at once:
 * the owner hands each off in one exchange when it never started it, and declines when it did. A
 * shard started before the join stays where it is, with its entities' in-memory state. Three real
 * actor systems over loopback, every message serialized; what the coordinator decided is read from
 * its store's writes ({@link RecordingStateStore}, which counts as durable, so homes are told).
 *
 * <p>Traffic during such a join (nothing lost, duplicated or reordered while told shards move) was
 * a case of its own; the cluster simulation runs joins under traffic with homes told up front on
 * every build (docs/testing.md, "What moved to the simulation").
 */
class ToldHomesJoinTest {

  private static final String TYPE = "ToldJoin";
  private static final int SHARDS = 90;
  private static final int STARTED_ENTITIES = 12;

  /** A counter entity: its total lives in memory only, and is lost if the entity moves or restarts. */
  interface Cmd {}

  record Add(int n) implements Cmd, CborSerializable {}

  record Get(ActorRef<Integer> replyTo) implements Cmd, CborSerializable {}

  /** Incarnations started per entity id, on any node. */
  private static final Map<String, AtomicInteger> STARTS = new ConcurrentHashMap<>();
  /** The node each entity's latest incarnation started on. */
  private static final Map<String, String> STARTED_ON = new ConcurrentHashMap<>();

  private static Behavior<Cmd> counter(EntityContext<Cmd> ctx) {
    return Behaviors.setup(c -> {
      STARTS.computeIfAbsent(ctx.entityId(), id -> new AtomicInteger()).incrementAndGet();
      STARTED_ON.put(ctx.entityId(), c.getSystem().address().toString());
      int[] total = {0};
      return Behaviors.receive(Cmd.class)
          .onMessage(Add.class, add -> {
            total[0] += add.n();
            return Behaviors.same();
          })
          .onMessage(Get.class, get -> {
            get.replyTo().tell(total[0]);
            return Behaviors.same();
          })
          .build();
    });
  }

  private static final EntityTypeKey<Cmd> KEY = EntityTypeKey.create(Cmd.class, TYPE);

  private static void startSharding(ActorSystem<?> system) {
    // Rebalancing rounds are kept out of the way (an hour apart): they may move started shards
    // by design, and this test shows what the join alone moves. The offers of a join do not wait
    // for a round.
    ClusterSharding.get(system).start(Entity.of(KEY, ToldHomesJoinTest::counter)
        .withSettings(ShardingSettings.create(system).withNumberOfShards(SHARDS).withTellUpFrontHomes(true)
            .withRebalanceInterval(Duration.ofHours(1))));
  }

  private static int total(ActorSystem<?> from, String entityId) throws Exception {
    return ClusterSharding.get(from).entityRefFor(KEY, entityId).<Integer>ask(Get::new, Duration.ofSeconds(10))
        .toCompletableFuture().get(15, TimeUnit.SECONDS);
  }

  /**
   * The shards each node hosts, as its coordinator stored them, by node address; the coordinator
   * runs on {@code coordinatorNode}, where its region's ref has no host.
   */
  private static Map<String, Set<String>> shardsByNode(CoordinatorState state, String coordinatorNode) {
    Map<String, Set<String>> byNode = new HashMap<>();
    state.regions().forEach((region, shards) -> {
      Address address = region.path().address();
      String node = address.hasLocalScope() ? coordinatorNode : address.toString();
      byNode.computeIfAbsent(node, a -> new HashSet<>()).addAll(shards);
    });
    return byNode;
  }

  @Test
  void joiningRegionsGetTheirShareOfTheShardsNobodyStartedWhileStartedShardsStayWithTheirState() throws Exception {
    RecordingStateStore.clear(TYPE);
    STARTS.clear();
    STARTED_ON.clear();
    try (TestCluster cluster = new TestCluster("ToldJoin")) {
      ActorSystem<Void> first = cluster.add(RecordingStateStore.CONFIG);
      cluster.awaitUp(1);
      startSharding(first);
      String firstNode = first.address().toString();
      TestCluster.await(Duration.ofSeconds(15), () -> RecordingStateStore.state(TYPE).shards().size() == SHARDS,
          "every shard placed up front");

      for (int i = 0; i < STARTED_ENTITIES; i++) {
        ClusterSharding.get(first).entityRefFor(KEY, "c" + i).tell(new Add(i + 1));
      }
      for (int i = 0; i < STARTED_ENTITIES; i++) {
        assertEquals(i + 1, total(first, "c" + i), "c" + i + " counted before the join");
      }
      Set<String> started = new HashSet<>();
      ClusterSharding.get(first).shardRegionState(KEY).toCompletableFuture().get(10, TimeUnit.SECONDS).shards()
          .forEach(s -> started.add(s.shardId()));
      assertTrue(!started.isEmpty() && started.size() <= STARTED_ENTITIES, "started shards: " + started);

      ActorSystem<Void> second = cluster.add(RecordingStateStore.CONFIG);
      ActorSystem<Void> third = cluster.add(RecordingStateStore.CONFIG);
      cluster.awaitUp(3);
      startSharding(second);
      startSharding(third);

      int unstarted = SHARDS - started.size();
      int share = unstarted / 3;
      String[] nodes = {firstNode, second.address().toString(), third.address().toString()};
      // Balanced over all shards (the strategy's threshold is 1), with every started shard where it
      // was: then each joining region holds at least its share of the shards nobody started.
      TestCluster.await(Duration.ofSeconds(20), () -> {
        Map<String, Set<String>> byNode = shardsByNode(RecordingStateStore.state(TYPE), firstNode);
        List<Integer> counts = List.of(byNode.getOrDefault(nodes[0], Set.of()).size(),
            byNode.getOrDefault(nodes[1], Set.of()).size(), byNode.getOrDefault(nodes[2], Set.of()).size());
        return counts.stream().mapToInt(Integer::intValue).sum() == SHARDS
            && counts.stream().mapToInt(Integer::intValue).max().getAsInt()
                - counts.stream().mapToInt(Integer::intValue).min().getAsInt() <= 1;
      }, "the three regions hold 30 shards each (within 1)");

      Map<String, Set<String>> byNode = shardsByNode(RecordingStateStore.state(TYPE), firstNode);
      assertTrue(byNode.get(nodes[0]).containsAll(started), "every started shard stayed on the first node: " + byNode);
      for (int n = 1; n < 3; n++) {
        Set<String> held = byNode.get(nodes[n]);
        assertTrue(held.size() >= share, nodes[n] + " holds at least its share (" + share + ") of the " + unstarted
            + " shards nobody started: " + held.size());
      }
      for (int i = 0; i < STARTED_ENTITIES; i++) {
        assertEquals(i + 1, total(third, "c" + i), "c" + i + " kept its in-memory total");
        assertEquals(1, STARTS.get("c" + i).get(), "c" + i + " never moved or restarted");
      }

      // The shards that moved were never started: first messages start them at their new homes.
      for (int i = 0; i < 30; i++) {
        ClusterSharding.get(second).entityRefFor(KEY, "n" + i).tell(new Add(1));
      }
      Set<String> hosts = new HashSet<>();
      for (int i = 0; i < 30; i++) {
        assertEquals(1, total(second, "n" + i), "n" + i + " counted once");
        hosts.add(STARTED_ON.get("n" + i));
      }
      assertEquals(Set.of(nodes), hosts, "new entities start on every node");
    }
  }
}
