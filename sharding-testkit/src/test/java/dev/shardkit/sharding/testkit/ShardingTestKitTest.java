package dev.shardkit.sharding.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.ClusterSharding;
import dev.shardkit.sharding.Entity;
import dev.shardkit.sharding.EntityTypeKey;
import dev.shardkit.sharding.ShardRegionState;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.typed.Cluster;
import org.junit.jupiter.api.Test;

/** One node, Up when created, sharding on the in-memory store; closing stops it. */
class ShardingTestKitTest {

  /** Answers every message with its entity id. */
  record WhoAreYou(ActorRef<String> replyTo) implements CborSerializable {}

  static final EntityTypeKey<WhoAreYou> KEY = EntityTypeKey.create(WhoAreYou.class, "Echo");

  static Behavior<WhoAreYou> echo(String entityId) {
    return Behaviors.receiveMessage(m -> {
      m.replyTo().tell(entityId);
      return Behaviors.same();
    });
  }

  @Test
  void aSingleUpNodeServesEntitiesOnTheInMemoryStore() throws Exception {
    long start = System.nanoTime();
    try (ShardingTestKit kit = ShardingTestKit.create()) {
      long upMillis = (System.nanoTime() - start) / 1_000_000;
      assertEquals(MemberStatus.up(), Cluster.get(kit.system()).selfMember().status());
      assertEquals(1, Cluster.get(kit.system()).state().getMembers().spliterator().getExactSizeIfKnown());
      assertEquals("memory", kit.system().settings().config().getString("shardkit.sharding.state-store-mode"));
      assertTrue(kit.sharding() == ClusterSharding.get(kit.system()));

      kit.sharding().start(Entity.of(KEY, ctx -> echo(ctx.entityId())));
      String answer = kit.sharding().entityRefFor(KEY, "e-1").<String>ask(WhoAreYou::new, Duration.ofSeconds(5))
          .toCompletableFuture().get(10, TimeUnit.SECONDS);
      long firstAnswerMillis = (System.nanoTime() - start) / 1_000_000;
      assertEquals("e-1", answer);
      ShardRegionState state = kit.sharding().shardRegionState(KEY).toCompletableFuture().get(10, TimeUnit.SECONDS);
      assertEquals(1, state.shards().stream().mapToInt(s -> s.entityIds().size()).sum());
      // Reported, not asserted: timings depend on the machine.
      System.out.println("ShardingTestKit: Up after " + upMillis + " ms, first answer after " + firstAnswerMillis
          + " ms (both from create, in a JVM that had started no actor system yet)");

      // The testkit's probes run on the same system.
      var probe = kit.testKit().<String>createTestProbe();
      kit.sharding().entityRefFor(KEY, "e-2").tell(new WhoAreYou(probe.ref()));
      probe.expectMessage("e-2");
    }
  }

  @Test
  void closingStopsTheSystem() throws Exception {
    ShardingTestKit kit = ShardingTestKit.create("Closing", "");
    kit.close();
    kit.system().getWhenTerminated().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  @Test
  void extraConfigGoesInFrontOfTheBase() {
    try (ShardingTestKit kit = ShardingTestKit.create("shardkit.sharding.number-of-shards = 7")) {
      assertEquals(7, kit.system().settings().config().getInt("shardkit.sharding.number-of-shards"));
      assertEquals("cluster", kit.system().settings().config().getString("pekko.actor.provider"));
    }
  }

  @Test
  void badArgumentsAreRefusedClearly() {
    IllegalArgumentException noConfig = assertThrows(IllegalArgumentException.class,
        () -> ShardingTestKit.create("Kit", null));
    assertEquals("ShardingTestKit.create: extraConfig must not be null; pass \"\" for none", noConfig.getMessage());
    IllegalArgumentException noName = assertThrows(IllegalArgumentException.class,
        () -> ShardingTestKit.create(null, ""));
    assertEquals("ShardingTestKit.create: name must not be null", noName.getMessage());
    // Pekko's own message names the bad system name.
    IllegalArgumentException badName = assertThrows(IllegalArgumentException.class,
        () -> ShardingTestKit.create("no spaces allowed", ""));
    assertTrue(badName.getMessage().contains("no spaces allowed"), badName.getMessage());
  }
}
