package dev.shardkit.sharding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.testsupport.Recorder;
import dev.shardkit.sharding.testsupport.Recorder.Command;
import dev.shardkit.sharding.testkit.TestCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.pekko.Done;
import org.apache.pekko.actor.CoordinatedShutdown;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The readiness and liveness checks on three nodes: a node whose region or proxy has not
 * registered with the type's coordinator is not ready, it is once registered, and it is not ready
 * from the moment its coordinated shutdown begins, while it stays alive as it leaves.
 */
class HealthChecksTest {
  static final EntityTypeKey<Command> KEY = EntityTypeKey.create(Command.class, "Probed");
  /** Registration counts for as long as the test takes, however slow the machine. */
  static final String REGISTRATION_ALWAYS_COUNTS = "shardkit.sharding.health-check.readiness.disabled-after = off";
  static final Duration WAIT = Duration.ofSeconds(30);

  TestCluster cluster;

  @AfterEach
  void stop() {
    cluster.close();
  }

  static boolean answer(Supplier<java.util.concurrent.CompletionStage<Boolean>> check) {
    try {
      return check.get().toCompletableFuture().get(5, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new AssertionError("the check did not answer: " + e, e);
    }
  }

  @Test
  void readyOnceRegisteredAndNotReadyFromTheMomentShutdownBegins() throws Exception {
    cluster = new TestCluster("Health");
    // Node 0 is Up first, so it is the oldest; the other two join together.
    cluster.add(REGISTRATION_ALWAYS_COUNTS);
    cluster.awaitUp(1);
    cluster.add(REGISTRATION_ALWAYS_COUNTS);
    cluster.add(REGISTRATION_ALWAYS_COUNTS);
    cluster.awaitUp(3);
    List<ShardingReadinessCheck> ready = new ArrayList<>();
    List<ShardingLivenessCheck> alive = new ArrayList<>();
    for (ActorSystem<Void> system : cluster.systems()) {
      ready.add(new ShardingReadinessCheck(Adapter.toClassic(system)));
      alive.add(new ShardingLivenessCheck(Adapter.toClassic(system)));
    }
    for (int i = 0; i < 3; i++) {
      assertTrue(answer(ready.get(i)), "node " + i + " started no entity type: ready");
      assertTrue(answer(alive.get(i)), "node " + i + " started no entity type: alive");
    }

    // The type's coordinator can run only on the oldest node, which has not started the type:
    // the proxy on node 1 and the region on node 2 cannot register until it does.
    ClusterSharding.get(cluster.system(1)).startProxy(KEY, Optional.empty());
    ClusterSharding.get(cluster.system(2)).start(Entity.of(KEY, Recorder::create));
    for (int i = 1; i < 3; i++) {
      assertEquals(Optional.empty(), ClusterSharding.get(cluster.system(i)).nodeHealth().regions().get(0).registered(),
          "node " + i + " has no coordinator to register with");
      assertFalse(answer(ready.get(i)), "node " + i + " has not registered: not ready");
      assertTrue(answer(alive.get(i)), "node " + i + " is registering: alive");
    }

    ClusterSharding.get(cluster.system(0)).start(Entity.of(KEY, Recorder::create));
    for (int i = 0; i < 3; i++) {
      int node = i;
      TestCluster.await(WAIT, () -> answer(ready.get(node)), "node " + node + " is ready");
      assertTrue(ClusterSharding.get(cluster.system(node)).nodeHealth().regions().get(0).registered().isPresent(),
          "node " + node + " is ready because it registered");
    }

    // What the checks answer in the shutdown's first phase, before the region hands anything off.
    ActorSystem<Void> leaving = cluster.system(2);
    CompletableFuture<List<Boolean>> asShutdownBegins = new CompletableFuture<>();
    CoordinatedShutdown.get(Adapter.toClassic(leaving)).addTask(CoordinatedShutdown.PhaseBeforeServiceUnbind(),
        "health-check-answers", () -> {
          asShutdownBegins.complete(List.of(answer(ready.get(2)), answer(alive.get(2))));
          return CompletableFuture.completedFuture(Done.getInstance());
        });
    cluster.leave(leaving);
    assertEquals(List.of(false, true), asShutdownBegins.get(10, TimeUnit.SECONDS),
        "as its shutdown begins, the node that was ready is not any more, and is still alive");
    assertFalse(answer(ready.get(2)), "not ready once it has left");
    for (int i = 0; i < 2; i++) {
      int node = i;
      // Awaited: a pause of this loaded machine's threads may close a node's gate for a moment.
      TestCluster.await(WAIT, () -> answer(ready.get(node)), "node " + node + " is ready after node 2 left");
      assertTrue(answer(alive.get(i)), "node " + i + " stays alive");
    }
  }
}
