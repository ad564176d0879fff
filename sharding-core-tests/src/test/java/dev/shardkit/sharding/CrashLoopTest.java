package dev.shardkit.sharding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.testsupport.EntityProbe;
import dev.shardkit.sharding.testsupport.EntityProbe.Fail;
import dev.shardkit.sharding.testsupport.EntityProbe.Hello;
import dev.shardkit.sharding.testsupport.EntityProbe.Msg;
import dev.shardkit.sharding.testsupport.LogCapture;
import dev.shardkit.sharding.testkit.TestCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * An entity that fails on every message is backed off, and logged, while the other entities of
 * its shard go on getting every message.
 */
class CrashLoopTest {
  static TestCluster cluster;

  @BeforeAll
  static void start() {
    cluster = new TestCluster("CrashLoop").startNodes(1);
  }

  @AfterAll
  static void stop() {
    cluster.close();
  }

  @Test
  void aCrashLoopingEntityIsBackedOffAndItsShardKeepsServing() throws Exception {
    EntityProbe probe = new EntityProbe();
    EntityTypeKey<Msg> key = EntityTypeKey.create(Msg.class, "Crashing");
    ClusterSharding sharding = ClusterSharding.get(cluster.system(0));
    // One shard: the failing entity and the healthy ones share it.
    sharding.start(Entity.of(key, probe::behavior).withSettings(ShardingSettings.create(cluster.system(0))
        .withNumberOfShards(1).withEntityRestartBackoff(Duration.ofMillis(100), Duration.ofMillis(800))));
    try (LogCapture log = new LogCapture()) {
      List<String> healthy = List.of("h1", "h2", "h3");
      int rounds = 150;
      for (int n = 1; n <= rounds; n++) {
        sharding.entityRefFor(key, "bad").tell(Fail.INSTANCE);
        for (String id : healthy) {
          sharding.entityRefFor(key, id).tell(new Hello(n));
        }
        Thread.sleep(20);
      }
      List<Integer> all = new ArrayList<>();
      for (int n = 1; n <= rounds; n++) {
        all.add(n);
      }
      for (String id : healthy) {
        TestCluster.await(Duration.ofSeconds(10), () -> probe.received(id).size() >= rounds, id + " got everything");
        assertEquals(all, probe.received(id), id + " got every message in order");
        assertEquals(1, probe.starts(id), id + " never restarted");
      }
      // 150 failing messages over ~3 s: without back-off, one incarnation each.
      int incarnations = probe.starts("bad");
      assertTrue(incarnations >= 3 && incarnations <= 15, "the failing entity was backed off: " + incarnations
          + " incarnations for " + rounds + " messages");
      // The crash loop is logged.
      log.await(Duration.ofSeconds(5), "entity [bad]", "times in a row");
      ShardRegionState state = sharding.shardRegionState(key).toCompletableFuture().get();
      assertEquals(1, state.shards().size(), "the shard kept running");
      assertTrue(state.shards().iterator().next().entityIds().containsAll(healthy));
    }
  }
}
