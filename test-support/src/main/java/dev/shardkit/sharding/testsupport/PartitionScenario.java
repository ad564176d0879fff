package dev.shardkit.sharding.testsupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.ClusterSharding;
import dev.shardkit.sharding.Entity;
import dev.shardkit.sharding.EntityTypeKey;
import dev.shardkit.sharding.ShardingSettings;
import dev.shardkit.sharding.testkit.TestCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.cluster.Cluster;
import org.apache.pekko.cluster.Member;
import org.apache.pekko.cluster.MemberStatus;

/**
 * A network partition of an in-JVM cluster under traffic from both sides. Every node sends
 * numbered messages to every entity, round after round, from the start to the end. The network
 * between the two sides is cut in both directions (Artery's test transport, {@link Network});
 * the split-brain resolver (keep-majority) downs the minority, whose nodes shut down, and the
 * shards they hosted move to the majority after the removal margin.
 *
 * <p>Asserted, with the {@link Ledger} (one JVM, so one clock for every incarnation):
 *
 * <ul>
 *   <li>no entity is ever alive twice, on either side, at any moment;
 *   <li>every message a majority node sent after it saw the whole minority downed arrives, once;
 *   <li>no message arrives twice, from any sender (what the minority sent, and what the majority
 *       sent into the partition before the minority was downed, may be lost: at most once);
 *   <li>the minority really hosted shards, and they really moved (entities started again).
 * </ul>
 */
public final class PartitionScenario {

  /**
   * @param nodes how many nodes, the first the oldest
   * @param minority the indexes of the nodes cut off (fewer than half)
   * @param entities how many entities every node sends to each round
   * @param shards the type's number of shards
   * @param round how long a sender waits between rounds
   * @param afterDown how long the traffic goes on once the majority has seen the minority downed
   *     (longer than the removal margin, so that the moved shards serve again)
   * @param config HOCON in front of every node's configuration (the split-brain resolver's
   *     {@code stable-after}, the state store)
   */
  public record Plan(int nodes, Set<Integer> minority, int entities, int shards, Duration round,
      Duration afterDown, String config) {
    public Plan {
      if (minority.isEmpty() || minority.size() * 2 >= nodes) {
        throw new IllegalArgumentException("the minority must be non-empty and fewer than half of " + nodes
            + " nodes: " + minority);
      }
    }
  }

  private static final EntityTypeKey<Ledger.Command> KEY = EntityTypeKey.create(Ledger.Command.class, "Partitioned");
  private static final Duration WAIT = Duration.ofSeconds(60);

  private PartitionScenario() {}

  /** Runs the plan on a fresh cluster named {@code name}; throws an assertion error if a check fails. */
  public static void run(String name, Plan plan) throws Exception {
    Ledger ledger = new Ledger();
    List<String> ids = IntStream.range(0, plan.entities()).mapToObj(i -> "e" + i).toList();
    List<Integer> majority = IntStream.range(0, plan.nodes()).filter(i -> !plan.minority().contains(i)).boxed()
        .toList();
    try (TestCluster cluster = new TestCluster(name)) {
      for (int i = 0; i < plan.nodes(); i++) {
        cluster.add(Network.TEST_MODE + plan.config());
        cluster.awaitUp(i + 1);
      }
      for (ActorSystem<Void> node : cluster.systems()) {
        ClusterSharding.get(node).start(Entity.of(KEY, ledger::entity)
            .withSettings(ShardingSettings.create(node).withNumberOfShards(plan.shards())));
      }
      warmUp(cluster, plan, ledger, ids);

      List<Sender> senders = new ArrayList<>();
      for (int i = 0; i < plan.nodes(); i++) {
        senders.add(new Sender(cluster.system(i), "n" + i, ids, plan.round()));
      }
      senders.forEach(s -> s.thread.start());
      Thread.sleep(1000);

      for (int a : majority) {
        for (int b : plan.minority()) {
          Network.cut(cluster.system(a), cluster.address(b));
          Network.cut(cluster.system(b), cluster.address(a));
        }
      }
      long cutAt = System.nanoTime();
      List<Address> cutOff = plan.minority().stream().map(cluster::address).toList();
      TestCluster.await(WAIT, () -> majority.stream().allMatch(i -> downed(cluster.system(i), cutOff)),
          "every majority node sees the minority downed");
      Map<String, Integer> sentBeforeDown = new TreeMap<>();
      for (int i : majority) {
        sentBeforeDown.put(senders.get(i).name, senders.get(i).seq.get());
      }
      long downAt = System.nanoTime();
      Thread.sleep(plan.afterDown().toMillis());
      senders.forEach(Sender::stop);
      for (Sender s : senders) {
        s.thread.join(TimeUnit.SECONDS.toMillis(10));
      }
      for (int b : plan.minority()) {
        cluster.system(b).getWhenTerminated().toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);
      }

      // Everything the majority sent once it had seen the minority downed arrives.
      TestCluster.await(WAIT, () -> majority.stream().allMatch(i -> ids.stream().allMatch(id -> ledger
              .missing(id, senders.get(i).name, sentBeforeDown.get(senders.get(i).name) + 1,
                  senders.get(i).seq.get()).isEmpty())),
          "every message the majority sent after the minority was downed arrives");
      List<String> duplicates = new ArrayList<>();
      for (Sender s : senders) {
        int last = s.seq.get();
        for (String id : ids) {
          int distinct = last - ledger.missing(id, s.name, 1, last).size();
          if (ledger.received(id, s.name) != distinct) {
            duplicates.add(id + " from " + s.name + ": " + ledger.received(id, s.name) + " received, " + distinct
                + " distinct");
          }
        }
      }
      for (int i : majority) {
        assertEquals(null, senders.get(i).failure, "sender " + senders.get(i).name + " kept sending");
      }
      assertEquals(List.of(), duplicates, "no message arrived twice");
      assertEquals(Set.of(), ledger.doubleIncarnations(), "no entity was alive twice at any time");
      long moved = ids.stream().filter(id -> ledger.incarnations(id) > 1).count();
      assertTrue(moved > 0, "entities of the minority's shards started again on the majority");
      System.out.printf("PartitionScenario [%s]: %d nodes, minority %s downed %d ms after the cut; %d of %d entities "
              + "started again on the majority; majority senders' rounds after the down: %s of %s%n", name,
          plan.nodes(), plan.minority(), (downAt - cutAt) / 1_000_000, moved, ids.size(), sentBeforeDown,
          senders.stream().map(s -> s.name + "=" + s.seq.get()).toList());
    }
  }

  /** Every entity has had a message, and every node of the minority hosts shards. */
  private static void warmUp(TestCluster cluster, Plan plan, Ledger ledger, List<String> ids) {
    ClusterSharding first = ClusterSharding.get(cluster.system(0));
    TestCluster.await(WAIT, () -> first.clusterShardingStats(KEY, Duration.ofSeconds(3)).toCompletableFuture().join()
        .regions().size() == plan.nodes(), "the coordinator knows every region");
    for (String id : ids) {
      first.entityRefFor(KEY, id).tell(new Ledger.Msg("warm-up", 1));
    }
    assertTrue(ledger.awaitAndCheck(ids, Map.of("warm-up", 1), WAIT).clean(), "the warm-up arrived");
    // Rebalancing spreads the shards; the test needs some on the side that is cut off.
    TestCluster.await(WAIT, () -> plan.minority().stream().allMatch(i -> !ClusterSharding.get(cluster.system(i))
        .shardRegionState(KEY).toCompletableFuture().join().shards().isEmpty()), "the minority hosts shards");
  }

  /** Whether {@code node} sees every one of {@code others} downed or gone. */
  private static boolean downed(ActorSystem<?> node, List<Address> others) {
    Iterable<Member> members = Cluster.get(Adapter.toClassic(node)).state().getMembers();
    for (Member m : members) {
      if (others.contains(m.address()) && m.status() != MemberStatus.down() && m.status() != MemberStatus.removed()) {
        return false;
      }
    }
    return true;
  }

  /** One node's traffic: every round, the next number to every entity, until stopped. */
  private static final class Sender {
    final String name;
    final AtomicInteger seq = new AtomicInteger();
    final AtomicBoolean stopped = new AtomicBoolean();
    final Thread thread;
    volatile RuntimeException failure;

    Sender(ActorSystem<?> node, String name, List<String> ids, Duration round) {
      this.name = name;
      ClusterSharding sharding = ClusterSharding.get(node);
      this.thread = new Thread(() -> {
        while (!stopped.get() && !node.getWhenTerminated().toCompletableFuture().isDone()) {
          // Numbered before it is sent: what the test reads as sent before a moment was sent before it.
          int n = seq.incrementAndGet();
          try {
            for (String id : ids) {
              sharding.entityRefFor(KEY, id).tell(new Ledger.Msg(name, n));
            }
          } catch (RuntimeException e) {
            // A downed node shuts down under its sender; on the majority this fails the test.
            failure = e;
            return;
          }
          try {
            Thread.sleep(round.toMillis());
          } catch (InterruptedException e) {
            return;
          }
        }
      }, "partition-sender-" + name);
    }

    void stop() {
      stopped.set(true);
    }
  }
}
