package dev.shardkit.sharding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.ActorSystem;
import org.junit.jupiter.api.Test;

/** What the checks' constructor, the one Pekko Management calls, refuses, and how it says so. */
class HealthCheckConstructionTest {

  @Test
  void aNullSystemIsRefusedNamingTheConstructor() {
    IllegalArgumentException ready = assertThrows(IllegalArgumentException.class,
        () -> new ShardingReadinessCheck(null));
    assertEquals("ShardingReadinessCheck: system must not be null", ready.getMessage());
    IllegalArgumentException alive = assertThrows(IllegalArgumentException.class,
        () -> new ShardingLivenessCheck(null));
    assertEquals("ShardingLivenessCheck: system must not be null", alive.getMessage());
  }

  @Test
  void aSystemThatIsNotClusteredIsRefused() throws Exception {
    ActorSystem local = ActorSystem.create("NotClustered", ConfigFactory.parseString("pekko.actor.provider = local")
        .withFallback(ConfigFactory.load()));
    try {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> new ShardingReadinessCheck(local));
      assertTrue(e.getMessage().contains("pekko.actor.provider = cluster"), e.getMessage());
      assertThrows(IllegalArgumentException.class, () -> new ShardingLivenessCheck(local));
    } finally {
      local.terminate();
      local.getWhenTerminated().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void aBadWindowIsRefusedNamingTheKey() throws Exception {
    ActorSystem system = ActorSystem.create("BadWindow", ConfigFactory.parseString(
        "shardkit.sharding.health-check.readiness.disabled-after = -5s").withFallback(ConfigFactory.load()));
    try {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> new ShardingReadinessCheck(system));
      assertTrue(e.getMessage().contains("shardkit.sharding.health-check.readiness.disabled-after"), e.getMessage());
    } finally {
      system.terminate();
      system.getWhenTerminated().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
  }
}
