package dev.shardkit.sharding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.SlowToStop.Cmd;
import dev.shardkit.sharding.SlowToStop.Ping;
import dev.shardkit.sharding.SlowToStop.Stop;
import dev.shardkit.sharding.spi.ShardingEvent;
import dev.shardkit.sharding.testsupport.LogCapture;
import dev.shardkit.sharding.testkit.TelemetryRecorder;
import dev.shardkit.sharding.testkit.TestCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Entities that take longer to stop than {@code hand-off-timeout}: the coordinator gives the
 * hand-off up with a warning naming the type, shard and owner, the shard stays where it was and
 * keeps serving, and no message is lost nor any entity alive twice.
 */
class HandOffTimeoutTest {
  static final EntityTypeKey<Cmd> KEY = EntityTypeKey.create(Cmd.class, "SlowToStop");
  static final Map<String, AtomicInteger> LIVE = new ConcurrentHashMap<>();
  static final Set<String> TWICE = ConcurrentHashMap.newKeySet();
  /**
   * Set once the test has asserted what it came for: entities then stop as soon as they are asked,
   * so that the nodes' shutdown does not wait out a slow stop (and a hand-off timeout) per region.
   */
  static volatile boolean stopAtOnce;

  /** Answers pings; asked to stop, it takes four seconds to do so. */
  static Behavior<Cmd> slowToStop(EntityContext<Cmd> ctx) {
    return Behaviors.setup(context -> {
      if (LIVE.computeIfAbsent(ctx.entityId(), k -> new AtomicInteger()).incrementAndGet() > 1) {
        TWICE.add(ctx.entityId());
      }
      return SlowToStop.create(Duration.ofSeconds(4), () -> stopAtOnce, () -> LIVE.get(ctx.entityId()).decrementAndGet());
    });
  }

  TestCluster cluster;

  @AfterEach
  void stop() {
    stopAtOnce = true;
    try {
      cluster.close();
    } finally {
      stopAtOnce = false;
    }
  }

  void start(org.apache.pekko.actor.typed.ActorSystem<?> system) {
    ClusterSharding.get(system).start(Entity.of(KEY, HandOffTimeoutTest::slowToStop)
        .withStopMessage(Stop.INSTANCE)
        .withSettings(ShardingSettings.create(system).withNumberOfShards(4)
            .withHandOffTimeout(Duration.ofSeconds(2))));
  }

  CompletableFuture<Integer> ping(String id, int n) {
    return ClusterSharding.get(cluster.system(0)).entityRefFor(KEY, id)
        .<Integer>ask(r -> new Ping(n, r), Duration.ofSeconds(30)).toCompletableFuture();
  }

  @Test
  void aHandOffThatTakesTooLongIsGivenUpAndTheShardKeepsServing() throws Exception {
    cluster = new TestCluster("HandOffTimeout").startNodes(1);
    start(cluster.system(0));
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      ids.add("s-" + i);
      assertEquals(0, ping("s-" + i, 0).get(10, TimeUnit.SECONDS));
    }
    try (LogCapture logs = new LogCapture()) {
      cluster.addWithRoles();
      cluster.awaitUp(2);
      start(cluster.system(1));
      ShardingEvent.HandOffGivenUp givenUp = TelemetryRecorder.of(cluster.system(0))
          .await(Duration.ofSeconds(30), ShardingEvent.HandOffGivenUp.class, KEY.name());
      String shard = givenUp.shardId();
      assertEquals(Duration.ofSeconds(2), givenUp.timeout());
      // What an operator reads: the warning names the shard and says it stays.
      assertEquals(1, logs.matching("Coordinator of [SlowToStop]", "hand-off of shard [" + shard + "]",
          "did not finish within 2000 ms", "the shard stays where it is").size());
      // Every entity answers, those of the shard whose hand-off was given up included: the pings
      // wait in buffers while a hand-off runs, and nothing is dropped.
      List<CompletableFuture<Integer>> answers = new ArrayList<>();
      for (int i = 0; i < ids.size(); i++) {
        answers.add(ping(ids.get(i), i + 1));
      }
      for (int i = 0; i < ids.size(); i++) {
        assertEquals(i + 1, answers.get(i).get(40, TimeUnit.SECONDS), "answer of " + ids.get(i));
      }
      assertTrue(ids.stream().anyMatch(id -> StableHashMessageExtractor.shardIdFor(id, 4).equals(shard)),
          "the event names a shard of this type: " + shard);
    }
    assertTrue(TWICE.isEmpty(), "entities alive twice: " + TWICE);
  }
}
