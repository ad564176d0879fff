package dev.shardkit.sharding.testsupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.ClusterSharding;
import dev.shardkit.sharding.Entity;
import dev.shardkit.sharding.EntityTypeKey;
import dev.shardkit.sharding.ShardRegionState;
import dev.shardkit.sharding.ShardingSettings;
import dev.shardkit.sharding.testkit.TestCluster;
import dev.shardkit.sharding.testsupport.EntityProbe.Hello;
import dev.shardkit.sharding.testsupport.EntityProbe.Msg;
import dev.shardkit.sharding.testsupport.EntityProbe.PassivateMe;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.pekko.actor.typed.ActorSystem;
import org.junit.jupiter.api.Test;

/**
 * Remembered entities run again by themselves, before any message reaches them: at their new home
 * after a rebalance, and after the whole cluster stopped and started again. Run once per
 * remember-entities store: a subclass gives each node's store configuration (the same for a node
 * across the restart, as its disk would be).
 *
 * <p>The case of a node's crash ({@link #rememberedEntitiesRunAgainElsewhereAfterTheirNodeCrashes})
 * runs only where a subclass makes it a test: for a store that lives on the nodes themselves
 * (ddata: the crashed node takes its replica with it). For a store outside the nodes (the
 * testkit's, a database) a crash adds nothing the rebalance case does not show: the crashed
 * shards' new homes read the store as a rebalanced shard's new home does; the rest (placing the
 * crashed region's shards at once, after the removal margin) is the coordinator's, the same for
 * every store.
 */
public abstract class RememberEntitiesScenario {

  /** Each node's configuration: the stores, and whatever else a mode needs. */
  protected abstract String nodeConfig(int node);

  /** The {@code remember-entities-store} mode under test. */
  protected abstract String rememberStore();

  private static final int SHARDS = 12;

  private ShardingSettings settings(ActorSystem<?> system) {
    return ShardingSettings.create(system).withNumberOfShards(SHARDS).withRememberEntities(true)
        .withRememberEntitiesStore(rememberStore()).withRebalanceInterval(Duration.ofMillis(500));
  }

  private ActorSystem<Void> addNode(TestCluster cluster, int node, String extra, EntityProbe probe,
      EntityTypeKey<Msg> key) {
    ActorSystem<Void> system = cluster.add(extra + "\n" + nodeConfig(node));
    cluster.awaitUp(cluster.systems().size());
    ClusterSharding.get(system).start(Entity.of(key, probe::behavior).withSettings(settings(system)));
    return system;
  }

  private static ShardRegionState state(ActorSystem<?> system, EntityTypeKey<?> key) {
    try {
      return ClusterSharding.get(system).shardRegionState(key).toCompletableFuture().get(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new AssertionError("no region state from " + system.address(), e);
    }
  }

  /** Starts entities with one message each and waits until all have it (so all are remembered). */
  private static Set<String> createEntities(ActorSystem<?> via, EntityTypeKey<Msg> key, EntityProbe probe, int n) {
    Set<String> ids = new HashSet<>();
    for (int i = 0; i < n; i++) {
      String id = "entity-" + i;
      ids.add(id);
      ClusterSharding.get(via).entityRefFor(key, id).tell(new Hello(1));
    }
    TestCluster.await(Duration.ofSeconds(30), () -> ids.stream().allMatch(id -> probe.received(id).size() == 1),
        "every entity got its first message");
    return ids;
  }

  @Test
  void rememberedEntitiesRunAgainAtTheirNewHomeAfterARebalance() {
    EntityProbe probe = new EntityProbe();
    EntityTypeKey<Msg> key = EntityTypeKey.create(Msg.class, "RememberedRebalance");
    try (TestCluster cluster = new TestCluster("RememberRebalance")) {
      addNode(cluster, 0, "", probe, key);
      addNode(cluster, 1, "", probe, key);
      Set<String> ids = createEntities(cluster.system(0), key, probe, 120);
      // Shards placed before the second region registered may move to it: wait for that first.
      awaitBalanced(cluster, key, () -> probe.live().equals(ids), "every entity running");
      Map<String, Set<String>> before = new HashMap<>();
      for (int node = 0; node < 2; node++) {
        state(cluster.system(node), key).shards().forEach(sh -> before.put(sh.shardId(), sh.entityIds()));
      }
      probe.forgetStarts();

      ActorSystem<Void> third = addNode(cluster, 2, "", probe, key);
      String thirdAddress = third.address().toString();
      TestCluster.await(Duration.ofSeconds(60), () -> state(third, key).shards().size() == SHARDS / 3,
          "a third of the shards moved to the new node");
      Set<String> expected = new HashSet<>();
      state(third, key).shards().forEach(sh -> expected.addAll(before.get(sh.shardId())));
      // Nothing is sent after the move: what runs on the new node started because it is remembered.
      TestCluster.await(Duration.ofSeconds(30), () -> entitiesOn(third, key).equals(expected)
          && probe.live().equals(ids), "every entity of the moved shards runs at its new home");
      for (String id : expected) {
        assertEquals(thirdAddress, probe.startedOn(id), id + " runs on the new node");
        assertEquals(1, probe.starts(id), id + " started once at its new home");
        assertEquals(List.of(1), probe.received(id), id + " got no message after the move");
      }
      for (String id : ids) {
        if (!expected.contains(id)) {
          assertEquals(0, probe.starts(id), id + " did not move and was not restarted");
        }
      }
    }
  }

  /**
   * Waits until the cluster's nodes host the same number of shards (no rebalance left) and
   * {@code entities} holds.
   */
  private static void awaitBalanced(TestCluster cluster, EntityTypeKey<?> key, BooleanSupplier entities,
      String what) {
    int nodes = cluster.systems().size();
    TestCluster.await(Duration.ofSeconds(60), () -> cluster.systems().stream()
        .allMatch(s -> state(s, key).shards().size() == SHARDS / nodes) && entities.getAsBoolean(),
        "the " + nodes + " nodes share the shards, " + what);
  }

  private static Set<String> entitiesOn(ActorSystem<?> system, EntityTypeKey<?> key) {
    Set<String> all = new HashSet<>();
    state(system, key).shards().forEach(sh -> all.addAll(sh.entityIds()));
    return all;
  }

  /** A node crashes: its remembered entities run again on the others without a message. */
  protected void rememberedEntitiesRunAgainElsewhereAfterTheirNodeCrashes() {
    EntityProbe probe = new EntityProbe();
    EntityTypeKey<Msg> key = EntityTypeKey.create(Msg.class, "RememberedCrash");
    try (TestCluster cluster = new TestCluster("RememberCrash")) {
      addNode(cluster, 0, "", probe, key);
      addNode(cluster, 1, "", probe, key);
      // Node 2's system stops without leaving the cluster: to the others it has crashed.
      ActorSystem<Void> doomed = addNode(cluster, 2,
          "pekko.coordinated-shutdown.run-by-actor-system-terminate = off", probe, key);
      Set<String> ids = createEntities(cluster.system(0), key, probe, 90);
      awaitBalanced(cluster, key, () -> probe.live().equals(ids), "every entity running");
      Set<String> onDoomed = entitiesOn(doomed, key);
      assertTrue(!onDoomed.isEmpty(), "the crashing node hosts entities");
      String doomedAddress = doomed.address().toString();
      probe.forgetStarts();

      doomed.terminate();
      // Once the node is downed and removed, its shards get new homes without waiting for a
      // message, and start their remembered entities.
      TestCluster.await(Duration.ofSeconds(60), () -> onDoomed.stream().allMatch(id -> probe.starts(id) == 1)
          && probe.live().equals(ids), "every entity of the crashed node runs again elsewhere (running again: "
          + onDoomed.stream().filter(id -> probe.starts(id) > 0).count() + " of " + onDoomed.size() + ")");
      for (String id : onDoomed) {
        assertTrue(!doomedAddress.equals(probe.startedOn(id)), id + " runs on a surviving node");
        assertEquals(List.of(1), probe.received(id), id + " got no message after the crash");
      }
      for (String id : ids) {
        if (!onDoomed.contains(id)) {
          assertEquals(0, probe.starts(id), id + " was not on the crashed node and was not restarted");
        }
      }
    }
  }

  @Test
  void rememberedEntitiesRunAgainAfterTheWholeClusterRestarts() throws Exception {
    int[] ports = {freePort(), freePort()};
    EntityTypeKey<Msg> key = EntityTypeKey.create(Msg.class, "RememberedRestart");
    EntityProbe before = new EntityProbe();
    Set<String> ids;
    Set<String> passivated = new HashSet<>();
    // The second cluster takes over what the first kept outside its systems (the testkit's
    // remember store), as restarted nodes find their database again.
    TestCluster first = new TestCluster("RememberRestart");
    try (TestCluster cluster = first) {
      addNode(cluster, 0, port(ports[0]), before, key);
      addNode(cluster, 1, port(ports[1]), before, key);
      ids = createEntities(cluster.system(0), key, before, 100);
      // A Passivate that reaches a shard while it is handed off is not acted on (the hand-off
      // stops the entity, which stays remembered): passivate once the rebalancing is over.
      awaitBalanced(cluster, key, () -> before.live().equals(ids), "every entity running, before passivating");
      for (int i = 0; i < 10; i++) {
        passivated.add("entity-" + i);
        ClusterSharding.get(cluster.system(0)).entityRefFor(key, "entity-" + i).tell(PassivateMe.INSTANCE);
      }
      TestCluster.await(Duration.ofSeconds(10), () -> passivated.stream().noneMatch(before.live()::contains),
          "the passivated entities stopped");
      // Stopping the nodes hands their shards off, and a shard stops only after its last write.
    }
    Set<String> expected = new HashSet<>(ids);
    expected.removeAll(passivated);

    EntityProbe after = new EntityProbe();
    try (TestCluster cluster = new TestCluster("RememberRestart", first)) {
      addNode(cluster, 0, port(ports[0]), after, key);
      addNode(cluster, 1, port(ports[1]), after, key);
      // No message is sent: every remembered entity must start by itself.
      TestCluster.await(Duration.ofSeconds(60), () -> after.live().containsAll(expected),
          "every remembered entity runs again after the restart (running: " + after.live().size() + " of "
              + expected.size() + ")");
      // Shards placed before the second region registered move to it; check once they have.
      awaitBalanced(cluster, key, () -> after.live().containsAll(expected),
          "every remembered entity running after the restart");
      for (String id : passivated) {
        assertEquals(0, after.starts(id), id + " was passivated, so it is not remembered; yet it started "
            + after.starts(id) + " time(s) after the restart, last on " + after.startedOn(id));
      }
      for (String id : expected) {
        assertEquals(List.of(), after.received(id), id + " started with no message");
      }
      assertEquals(expected, after.live());
    }
  }

  private static String port(int port) {
    return "pekko.remote.artery.canonical.port = " + port;
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
