package dev.shardkit.sharding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.testsupport.Ledger;
import dev.shardkit.sharding.testkit.TestCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.RepetitionInfo;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

/**
 * Bursts to entities on other nodes, on the transport settings users get by default (Artery's
 * outbound queue holds 3 072 messages): three nodes start an entity type and, as soon as
 * {@code start} returns, send to 1 000 entities as fast as their threads can. Without flow
 * control the senders overrun remoting's queue and it drops the excess silently; with it, the
 * external ledger finds every message delivered once and in each sender's order.
 */
class BurstDeliveryTest {
  static final int NODES = 3;
  static final int ENTITIES = 1000;
  static final AtomicInteger TYPES = new AtomicInteger();

  static TestCluster cluster;

  @BeforeAll
  static void startCluster() {
    cluster = new TestCluster("Burst").startNodes(NODES);
  }

  @AfterAll
  static void stopCluster() {
    cluster.close();
  }

  /** One thread per node: 20 rounds of one message to each entity, through {@code EntityRef}s. */
  @RepeatedTest(5)
  void oneThreadPerNodeLosesNothing(RepetitionInfo repetition) throws Exception {
    burst("one thread per node, repetition " + repetition.getCurrentRepetition(), 1, 20, false);
  }

  /** Ten threads per node, 60 000 messages per node; half send through the region ref. */
  @RepeatedTest(5)
  void tenThreadsPerNodeLoseNothing(RepetitionInfo repetition) throws Exception {
    burst("ten threads per node, repetition " + repetition.getCurrentRepetition(), 10, 6, true);
  }

  /** The same burst as the first, sent as {@link ShardingEnvelope}s to the ref {@code start} returns. */
  @Test
  void aBurstThroughTheRegionRefLosesNothing() throws Exception {
    burst("region ref", 1, 20, true);
  }

  /**
   * Starts a new entity type on every node and at once sends {@code rounds} numbered messages to
   * every entity from {@code threadsPerNode} threads on each node; then checks the ledger.
   */
  void burst(String what, int threadsPerNode, int rounds, boolean viaRegion) throws Exception {
    EntityTypeKey<Ledger.Command> key = EntityTypeKey.create(Ledger.Command.class, "Burst" + TYPES.incrementAndGet());
    Ledger ledger = new Ledger();
    List<ActorRef<ShardingEnvelope<Ledger.Command>>> regions = new ArrayList<>();
    for (ActorSystem<?> s : cluster.systems()) {
      regions.add(ClusterSharding.get(s).start(Entity.of(key, ledger::entity)
          .withSettings(ShardingSettings.create(s).withNumberOfShards(100))));
    }
    List<String> entities = new ArrayList<>();
    for (int i = 0; i < ENTITIES; i++) {
      entities.add("b-" + i);
    }
    Map<String, Integer> sent = new HashMap<>();
    List<Thread> threads = new ArrayList<>();
    CountDownLatch go = new CountDownLatch(1);
    long started = System.nanoTime();
    for (int n = 0; n < NODES; n++) {
      ActorSystem<?> system = cluster.system(n);
      ActorRef<ShardingEnvelope<Ledger.Command>> region = regions.get(n);
      for (int t = 0; t < threadsPerNode; t++) {
        String sender = "node-" + n + "-thread-" + t;
        sent.put(sender, rounds);
        // With several threads, every other one sends through the region ref.
        boolean envelopes = viaRegion && (threadsPerNode == 1 || t % 2 == 1);
        Thread thread = new Thread(() -> {
          List<EntityRef<Ledger.Command>> refs = new ArrayList<>();
          for (String id : entities) {
            refs.add(ClusterSharding.get(system).entityRefFor(key, id));
          }
          try {
            go.await();
          } catch (InterruptedException e) {
            return;
          }
          for (int seq = 1; seq <= rounds; seq++) {
            for (int i = 0; i < ENTITIES; i++) {
              Ledger.Msg msg = new Ledger.Msg(sender, seq);
              if (envelopes) {
                region.tell(new ShardingEnvelope<>(entities.get(i), msg));
              } else {
                refs.get(i).tell(msg);
              }
            }
          }
        }, "burst-" + sender);
        threads.add(thread);
        thread.start();
      }
    }
    go.countDown();
    for (Thread thread : threads) {
      thread.join();
    }
    Ledger.Report report = ledger.awaitAndCheck(entities, sent, Duration.ofSeconds(60));
    long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
    System.out.println("BurstDeliveryTest [" + what + "]: " + sent.size() * rounds * ENTITIES + " messages, "
        + report + " in " + millis + " ms");
    assertTrue(report.clean(), what + ": " + report);
    for (ActorSystem<?> s : cluster.systems()) {
      ShardRegionState state = ClusterSharding.get(s).shardRegionState(key).toCompletableFuture()
          .get(10, TimeUnit.SECONDS);
      assertEquals(0, state.droppedMessages(), "nothing dropped on " + s.address());
    }
  }
}
