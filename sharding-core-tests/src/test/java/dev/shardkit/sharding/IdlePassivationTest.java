package dev.shardkit.sharding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.testsupport.EntityProbe;
import dev.shardkit.sharding.testsupport.EntityProbe.Hello;
import dev.shardkit.sharding.testsupport.EntityProbe.Msg;
import dev.shardkit.sharding.testkit.TestCluster;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The idle timeout passivates exactly the entities that got no message for that long, while busy
 * ones in the same shards keep running; a passivated entity comes back with its next message.
 */
class IdlePassivationTest {
  static TestCluster cluster;

  @BeforeAll
  static void start() {
    cluster = new TestCluster("IdlePassivation").startNodes(1);
  }

  @AfterAll
  static void stop() {
    cluster.close();
  }

  @Test
  void onlyIdleEntitiesArePassivated() throws Exception {
    EntityProbe probe = new EntityProbe();
    EntityTypeKey<Msg> key = EntityTypeKey.create(Msg.class, "Idle");
    ClusterSharding sharding = ClusterSharding.get(cluster.system(0));
    Duration idle = Duration.ofMillis(800);
    sharding.start(Entity.of(key, probe::behavior).withSettings(ShardingSettings.create(cluster.system(0))
        .withNumberOfShards(4).withPassivationIdleTimeout(idle)));
    Set<String> busy = new HashSet<>();
    Set<String> quiet = new HashSet<>();
    for (int i = 0; i < 20; i++) {
      (i % 2 == 0 ? busy : quiet).add("e" + i);
    }
    for (String id : quiet) {
      sharding.entityRefFor(key, id).tell(new Hello(0));
    }
    // Busy entities get a message every 100 ms for four idle timeouts.
    long end = System.nanoTime() + idle.multipliedBy(4).toNanos();
    int n = 0;
    while (System.nanoTime() < end) {
      n++;
      for (String id : busy) {
        sharding.entityRefFor(key, id).tell(new Hello(n));
      }
      Thread.sleep(100);
    }
    TestCluster.await(Duration.ofSeconds(10), () -> probe.live().equals(busy), "only the busy entities are live");
    for (String id : busy) {
      assertEquals(1, probe.starts(id), id + " was never passivated");
      assertEquals(n + 0, probe.received(id).size(), id + " got every message");
    }
    for (String id : quiet) {
      assertEquals(1, probe.starts(id), id + " started once");
    }
    ShardRegionState state = sharding.shardRegionState(key).toCompletableFuture().get();
    assertEquals(busy.size(), state.entityCount());
    assertEquals(Duration.ofMillis(800), state.passivation().idleTimeout().orElseThrow());
    assertEquals(quiet.size(), state.passivation().idlePassivations());
    assertEquals(0, state.passivation().limitPassivations());
    assertTrue(state.passivation().activeEntityLimit().isEmpty());

    // A passivated entity starts again with its next message, which it gets.
    String back = quiet.iterator().next();
    sharding.entityRefFor(key, back).tell(new Hello(99));
    TestCluster.await(Duration.ofSeconds(5), () -> probe.received(back).contains(99), back + " came back");
    assertEquals(2, probe.starts(back));
  }
}
