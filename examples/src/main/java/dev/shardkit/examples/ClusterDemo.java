package dev.shardkit.examples;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.shardkit.sharding.ClusterSharding;
import dev.shardkit.sharding.ClusterShardingStats;
import dev.shardkit.sharding.Entity;
import dev.shardkit.sharding.EntityRef;
import dev.shardkit.sharding.EntityTypeKey;
import dev.shardkit.sharding.ShardRegionState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.eventstream.EventStream;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.JoinSeedNodes;
import org.apache.pekko.remote.artery.GracefulShutdownQuarantinedEvent;
import org.slf4j.LoggerFactory;

/**
 * Three cluster nodes in one JVM (three actor systems with real Artery remoting on 127.0.0.1)
 * share a {@link Counter} entity type. Every node sends increments to counters it does not know
 * the location of; then a sample of counters is read back and checked, and a table shows how the
 * shards and entities are spread over the nodes.
 *
 * <p>Every message is serialized, even between actors of one node
 * ({@code pekko.actor.serialize-messages = on}), so the demo behaves like a real cluster.
 *
 * <p>Exits normally when every check passed; throws (a non-zero exit) otherwise.
 */
public final class ClusterDemo {
  static final EntityTypeKey<Counter.Command> COUNTER = EntityTypeKey.create(Counter.Command.class, "Counter");

  private static final String SYSTEM_NAME = "ClusterDemo";
  private static final int NODES = 3;
  private static final int ENTITIES = 3_000;
  private static final int INCREMENTS = 20_000;
  private static final int SAMPLE_EVERY = 10;
  private static final Duration FORMATION_TIMEOUT = Duration.ofSeconds(90);
  private static final Duration READ_TIMEOUT = Duration.ofSeconds(60);

  private ClusterDemo() {}

  public static void main(String[] args) throws Exception {
    // Initialize logging before three actor systems start using it at once.
    LoggerFactory.getLogger(ClusterDemo.class);
    List<String> failures = new ArrayList<>();
    List<ActorSystem<Void>> nodes = new ArrayList<>();
    long start = System.nanoTime();
    try {
      run(nodes, failures, start);
    } catch (Exception e) {
      failures.add("the demo failed: " + e);
    } finally {
      shutDown(nodes);
    }
    if (!failures.isEmpty()) {
      System.out.println();
      failures.forEach(f -> System.out.println("FAILED: " + f));
      throw new IllegalStateException("ClusterDemo: " + failures.size() + " check(s) failed");
    }
  }

  private static void run(List<ActorSystem<Void>> nodes, List<String> failures, long start) throws Exception {
    System.out.printf("shardkit ClusterDemo: %d nodes in one JVM, %,d Counter entities, %,d increments%n%n",
        NODES, ENTITIES, INCREMENTS);

    // 1. Three nodes; the first joins itself (the seed), the others join it.
    for (int i = 0; i < NODES; i++) {
      nodes.add(ActorSystem.create(Behaviors.empty(), SYSTEM_NAME, config()));
    }
    Address seed = Cluster.get(nodes.get(0)).selfMember().address();
    for (ActorSystem<Void> node : nodes) {
      Cluster.get(node).manager().tell(new JoinSeedNodes(List.of(seed)));
    }

    awaitUntil("3 members Up on every node", FORMATION_TIMEOUT,
        () -> nodes.stream().allMatch(n -> upMembers(n) == NODES));

    // 2. Every node starts the entity type; each one hosts a share of the counters. The oldest node
    //    (the first) starts it last: its start starts the coordinator, which then finds every region
    //    in place and spreads the shards over all three at once. Started first, the coordinator
    //    could place them all before the other regions exist, and move them while the demo runs.
    for (int i = nodes.size() - 1; i >= 0; i--) {
      ClusterSharding.get(nodes.get(i)).start(Entity.of(COUNTER, ctx -> Counter.create(ctx.entityId())));
    }
    ClusterSharding first = ClusterSharding.get(nodes.get(0));
    awaitUntil("3 regions registered with the coordinator", FORMATION_TIMEOUT, () -> {
      try {
        ClusterShardingStats stats = first.clusterShardingStats(COUNTER, Duration.ofSeconds(3))
            .toCompletableFuture().get(10, TimeUnit.SECONDS);
        return stats.regions().size() == NODES && stats.failedRegions().isEmpty();
      } catch (Exception e) {
        return false; // the coordinator is not up yet
      }
    });
    long formed = System.nanoTime();
    System.out.printf("cluster formed: %d members Up, %d regions registered (%.1f s)%n", NODES, NODES,
        seconds(start, formed));

    // 3. Traffic: increment i goes to counter (i * 7919 mod ENTITIES) and is sent from node i mod 3.
    //    Each node sends from its own thread, through EntityRefs of its own ClusterSharding.
    int[] expected = new int[ENTITIES];
    for (int i = 0; i < INCREMENTS; i++) {
      expected[entityOf(i)]++;
    }
    List<Thread> senders = new ArrayList<>();
    for (int n = 0; n < NODES; n++) {
      final int node = n;
      ClusterSharding sharding = ClusterSharding.get(nodes.get(node));
      Thread t = new Thread(() -> {
        for (int i = node; i < INCREMENTS; i += NODES) {
          sharding.entityRefFor(COUNTER, id(entityOf(i))).tell(new Counter.Increment(1));
        }
      }, "sender-" + node);
      senders.add(t);
      t.start();
    }
    for (Thread t : senders) {
      t.join();
    }

    // 4. Read back every 10th counter with ask, from a different node each time. Increments from
    //    other nodes may still be on their way, so a counter is asked again until it matches.
    List<CompletableFuture<Boolean>> reads = new ArrayList<>();
    long readDeadline = System.nanoTime() + READ_TIMEOUT.toNanos();
    for (int e = 0; e < ENTITIES; e += SAMPLE_EVERY) {
      ClusterSharding via = ClusterSharding.get(nodes.get((e / SAMPLE_EVERY) % NODES));
      reads.add(readUntil(via.entityRefFor(COUNTER, id(e)), expected[e], readDeadline));
    }
    int correct = 0;
    for (int r = 0; r < reads.size(); r++) {
      if (reads.get(r).get()) {
        correct++;
      } else {
        failures.add("counter " + id(r * SAMPLE_EVERY) + " did not reach " + expected[r * SAMPLE_EVERY]);
      }
    }
    long verified = System.nanoTime();

    // 5. Where did everything end up? Each node's region reports its own shards and entities.
    System.out.println();
    System.out.printf("%-40s %8s %10s%n", "node", "shards", "entities");
    int totalShards = 0;
    int totalEntities = 0;
    Map<String, String> hostOf = new HashMap<>();
    Set<String> shardIds = new HashSet<>();
    for (ActorSystem<Void> node : nodes) {
      ShardRegionState state = ClusterSharding.get(node).shardRegionState(COUNTER)
          .toCompletableFuture().get(15, TimeUnit.SECONDS);
      String address = Cluster.get(node).selfMember().address().toString();
      System.out.printf("%-40s %8d %10d%n", address, state.shards().size(), state.entityCount());
      totalShards += state.shards().size();
      totalEntities += state.entityCount();
      for (ShardRegionState.ShardState shard : state.shards()) {
        if (!shardIds.add(shard.shardId())) {
          failures.add("shard " + shard.shardId() + " is hosted on more than one node");
        }
        for (String entityId : shard.entityIds()) {
          String other = hostOf.put(entityId, address);
          if (other != null) {
            failures.add("entity " + entityId + " lives on " + other + " and on " + address);
          }
        }
      }
    }
    System.out.printf("%-40s %8d %10d%n", "total", totalShards, totalEntities);
    if (totalEntities != ENTITIES) {
      failures.add("expected " + ENTITIES + " live entities in the cluster, found " + totalEntities);
    }

    System.out.println();
    System.out.printf("checks: %d of %d sampled counters read back correct; %s%n", correct, reads.size(),
        hostOf.size() == ENTITIES && totalEntities == ENTITIES
            ? "every entity lives on exactly one node" : "entity placement is WRONG");
    System.out.printf("time: cluster formation %.1f s; %,d increments sent and %d counters verified in %.1f s; "
        + "total %.1f s%n", seconds(start, formed), INCREMENTS, reads.size(), seconds(formed, verified),
        seconds(start, System.nanoTime()));
  }

  /**
   * One node after the other, the seed last: each leaves the cluster gracefully (terminate runs
   * Pekko's coordinated shutdown: its shards are handed off, then it leaves), and the next one
   * leaves only once the others have let go of it: they removed it from the cluster, and closed
   * their connection to it. A node that began its own shutdown before that could still be waiting
   * for the one that left to acknowledge a system message (a watch, say); Pekko then ends that
   * connection as failed ("Association ... is irrecoverably failed ... SystemMessageDelivery
   * stopped with [1] pending system messages"), with a warning.
   */
  private static void shutDown(List<ActorSystem<Void>> nodes) throws Exception {
    for (int i = nodes.size() - 1; i >= 0; i--) {
      ActorSystem<Void> leaving = nodes.get(i);
      List<ActorSystem<Void>> staying = nodes.subList(0, i);
      org.apache.pekko.cluster.UniqueAddress gone = Cluster.get(leaving).selfMember().uniqueAddress();
      List<ActorSystem<Void>> knowIt = staying.stream().filter(node -> isMember(node, gone)).toList();
      List<CompletableFuture<Void>> letGo = new ArrayList<>();
      for (ActorSystem<Void> node : knowIt) {
        letGo.add(connectionClosed(node, gone));
      }
      leaving.terminate();
      leaving.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
      awaitUntil("the other nodes to remove " + gone.address(), Duration.ofSeconds(30),
          () -> knowIt.stream().noneMatch(node -> isMember(node, gone)));
      CompletableFuture.allOf(letGo.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
    }
  }

  private static boolean isMember(ActorSystem<Void> node, org.apache.pekko.cluster.UniqueAddress member) {
    return java.util.stream.StreamSupport.stream(Cluster.get(node).state().getMembers().spliterator(), false)
        .anyMatch(m -> m.uniqueAddress().equals(member));
  }

  /** Completes when {@code node} has closed its connection to the node {@code gone} that left the cluster. */
  private static CompletableFuture<Void> connectionClosed(ActorSystem<Void> node,
      org.apache.pekko.cluster.UniqueAddress gone) {
    CompletableFuture<Void> closed = new CompletableFuture<>();
    // Remoting says so on the event stream; this listener stops once it has heard it.
    ActorRef<GracefulShutdownQuarantinedEvent> listener = node.systemActorOf(
        Behaviors.receive(GracefulShutdownQuarantinedEvent.class)
            .onMessage(GracefulShutdownQuarantinedEvent.class, e -> {
              if (e.uniqueAddress().address().equals(gone.address()) && e.uniqueAddress().uid() == gone.longUid()) {
                closed.complete(null);
                return Behaviors.stopped();
              }
              return Behaviors.same();
            }).build(),
        "demo-connection-closed-" + gone.longUid(), Props.empty());
    node.eventStream().tell(new EventStream.Subscribe<>(GracefulShutdownQuarantinedEvent.class, listener));
    return closed;
  }

  private static CompletableFuture<Boolean> readUntil(EntityRef<Counter.Command> ref, int expected, long deadline) {
    return ref.<Integer>ask(Counter.Get::new, Duration.ofSeconds(10)).toCompletableFuture()
        .handle((value, error) -> error == null && value == expected)
        .thenCompose(ok -> {
          if (ok) {
            return CompletableFuture.completedFuture(true);
          }
          if (System.nanoTime() > deadline) {
            return CompletableFuture.completedFuture(false);
          }
          return CompletableFuture.supplyAsync(() -> null,
                  CompletableFuture.delayedExecutor(200, TimeUnit.MILLISECONDS))
              .thenCompose(x -> readUntil(ref, expected, deadline));
        });
  }

  private static int entityOf(int increment) {
    return (int) ((increment * 7919L) % ENTITIES);
  }

  private static String id(int entity) {
    return "counter-" + entity;
  }

  private static long upMembers(ActorSystem<Void> node) {
    return java.util.stream.StreamSupport.stream(Cluster.get(node).state().getMembers().spliterator(), false)
        .filter(m -> m.status().equals(MemberStatus.up()))
        .count();
  }

  private static void awaitUntil(String what, Duration timeout, BooleanSupplier condition)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("timed out after " + timeout.toSeconds() + " s waiting for " + what);
      }
      Thread.sleep(200);
    }
  }

  private static double seconds(long fromNanos, long toNanos) {
    return (toNanos - fromNanos) / 1e9;
  }

  private static Config config() {
    return ConfigFactory.parseString("""
        pekko {
          loglevel = WARNING
          loggers = ["org.apache.pekko.event.slf4j.Slf4jLogger"]
          logging-filter = "org.apache.pekko.event.slf4j.Slf4jLoggingFilter"
          actor {
            provider = cluster
            # Serialize every message, even between actors of one node, as a real cluster would.
            serialize-messages = on
            serialization-bindings {
              "dev.shardkit.examples.CborSerializable" = jackson-cbor
            }
          }
          remote.artery {
            canonical {
              hostname = "127.0.0.1"
              port = 0  # any free port; the nodes join the first one's actual address
            }
          }
          cluster {
            downing-provider-class = "org.apache.pekko.cluster.sbr.SplitBrainResolverProvider"
            # Three cluster nodes share this JVM's MBean server.
            jmx.multi-mbeans-in-same-jvm = on
          }
          coordinated-shutdown.exit-jvm = off
        }
        """).withFallback(ConfigFactory.load());
  }
}
