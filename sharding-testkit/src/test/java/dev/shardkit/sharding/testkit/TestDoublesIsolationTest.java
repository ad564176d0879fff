package dev.shardkit.sharding.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import dev.shardkit.sharding.ClusterSharding;
import dev.shardkit.sharding.Entity;
import dev.shardkit.sharding.EntityTypeKey;
import java.time.Duration;
import java.util.Set;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.Test;

/**
 * Two clusters in one JVM, alike in every name, as two test classes running in parallel would be:
 * each has its own remember store and its own leases.
 */
class TestDoublesIsolationTest {
  interface Command extends CborSerializable {}

  static final EntityTypeKey<Command> KEY = EntityTypeKey.create(Command.class, "Same");

  @Test
  void twoTestKitsOfTheSameNameDoNotShareTheirRememberStores() {
    try (ShardingTestKit one = ShardingTestKit.create(); ShardingTestKit two = ShardingTestKit.create()) {
      one.rememberStore().preload("Same", "0", Set.of("a"));
      assertEquals(Set.of("a"), one.rememberStore().remembered("Same"));
      assertEquals(Set.of(), two.rememberStore().remembered("Same"));
      two.rememberStore().closeGate();
      assertEquals(0, one.rememberStore().heldWrites());
      two.rememberStore().openGate();
    }
  }

  @Test
  void aRestartedClusterTakesOverItsPredecessorsStore() {
    TestCluster first = new TestCluster("Restarted");
    first.close();
    first.rememberStore().preload("Same", "3", Set.of("b"));
    try (TestCluster second = new TestCluster("Restarted", first)) {
      assertSame(first.rememberStore(), second.rememberStore());
      assertEquals(Set.of("b"), second.rememberStore().remembered("Same"));
    }
  }

  @Test
  void twoClustersOfTheSameNameHoldTheirOwnCoordinatorLeases() {
    String config = TestLease.CONFIG + "shardkit.sharding.coordinator-lease = " + TestLease.CONFIG_PATH + "\n";
    try (TestCluster one = new TestCluster("Leased"); TestCluster two = new TestCluster("Leased")) {
      for (TestCluster cluster : new TestCluster[] {one, two}) {
        ActorSystem<Void> node = cluster.add(config);
        cluster.awaitUp(1);
        ClusterSharding.get(node).start(Entity.of(KEY, ctx -> Behaviors.<Command>ignore()));
        // Each coordinator takes the lease of the same name, in its own cluster: with one lease
        // for both, the second would be refused and its coordinator would never act.
        TestCluster.await(Duration.ofSeconds(20), () -> cluster.hasLease("shardkit-coordinator-Same")
            && cluster.lease("shardkit-coordinator-Same").holder().isPresent(), "the coordinator holds its lease");
      }
      assertEquals(one.lease("shardkit-coordinator-Same").name(), two.lease("shardkit-coordinator-Same").name());
      assertEquals(0, one.lease("shardkit-coordinator-Same").refusals());
      assertEquals(0, two.lease("shardkit-coordinator-Same").refusals());
      assertTrue(one.lease("Same") != two.lease("Same"));
    }
  }

  @Test
  void theDoublesRefuseASystemNoTestClusterStarted() {
    ActorSystem<Void> plain = ActorSystem.create(Behaviors.empty(), "Plain",
        ConfigFactory.parseString(TestCluster.BASE_CONFIG).withFallback(ConfigFactory.load()));
    try {
      IllegalStateException e = assertThrows(IllegalStateException.class, () -> new TestRememberStore.Provider()
          .rememberedShards(plain, "Same", null));
      assertTrue(e.getMessage().contains("TestCluster"), e.getMessage());
    } finally {
      plain.terminate();
    }
  }
}
