package dev.shardkit.sharding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.testsupport.EntityProbe;
import dev.shardkit.sharding.testsupport.EntityProbe.Hello;
import dev.shardkit.sharding.testsupport.EntityProbe.Msg;
import dev.shardkit.sharding.testkit.TestCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * With an active-entity limit of L, a stream over 10·L ids never has more than L entities alive
 * at once in the region, even as new shards start and the limit is split again; nothing is lost
 * and each entity's messages arrive in order.
 */
class ActiveEntityLimitTest {
  static TestCluster cluster;

  @BeforeAll
  static void start() {
    cluster = new TestCluster("EntityLimit").startNodes(1);
  }

  @AfterAll
  static void stop() {
    cluster.close();
  }

  @Test
  void neverMoreThanTheLimitAlive() throws Exception {
    int limit = 40;
    int ids = 10 * limit;
    EntityProbe probe = new EntityProbe();
    EntityTypeKey<Msg> key = EntityTypeKey.create(Msg.class, "Limited");
    ClusterSharding sharding = ClusterSharding.get(cluster.system(0));
    sharding.start(Entity.of(key, probe::behavior).withSettings(ShardingSettings.create(cluster.system(0))
        .withNumberOfShards(8).withPassivationActiveEntityLimit(limit)));
    // A skewed stream: some ids come back often (and stay recently used), most rarely.
    Random random = new Random(42);
    int[] sent = new int[ids];
    int total = 20_000;
    for (int i = 0; i < total; i++) {
      int id = random.nextBoolean() ? random.nextInt(limit / 2) : random.nextInt(ids);
      sharding.entityRefFor(key, "e" + id).tell(new Hello(++sent[id]));
      if (i % 500 == 0) {
        Thread.sleep(5);
      }
    }
    try {
      TestCluster.await(Duration.ofSeconds(30), () -> {
        for (int id = 0; id < ids; id++) {
          if (probe.received("e" + id).size() < sent[id]) {
            return false;
          }
        }
        return true;
      }, "every message delivered");
    } catch (AssertionError e) {
      List<String> missing = new ArrayList<>();
      for (int id = 0; id < ids; id++) {
        if (probe.received("e" + id).size() < sent[id]) {
          missing.add("e" + id + " got " + probe.received("e" + id).size() + "/" + sent[id]);
        }
      }
      throw new AssertionError(e.getMessage() + "; missing: " + missing + "; live " + probe.live().size() + "; "
          + sharding.shardRegionState(key).toCompletableFuture().get(), e);
    }
    for (int id = 0; id < ids; id++) {
      List<Integer> expected = new ArrayList<>();
      for (int n = 1; n <= sent[id]; n++) {
        expected.add(n);
      }
      assertEquals(expected, probe.received("e" + id), "all of e" + id + "'s messages, once, in order");
    }
    assertTrue(probe.maxLive() <= limit, "at most " + limit + " alive at once, saw " + probe.maxLive());
    ShardRegionState state = sharding.shardRegionState(key).toCompletableFuture().get();
    assertEquals(limit, state.passivation().activeEntityLimit().orElseThrow());
    assertTrue(state.entityCount() <= limit, "live now: " + state.entityCount());
    assertTrue(state.passivation().limitPassivations() >= ids - limit,
        "entities were passivated to make room: " + state.passivation().limitPassivations());
    assertEquals(8, state.shards().size(), "the stream reached every shard");
  }
}
