package dev.shardkit.sharding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.SlowToStop.Cmd;
import dev.shardkit.sharding.SlowToStop.Ping;
import dev.shardkit.sharding.SlowToStop.Stop;
import dev.shardkit.sharding.spi.ShardingEvent;
import dev.shardkit.sharding.spi.ShardingEvent.CoordinatorLoaded;
import dev.shardkit.sharding.spi.ShardingEvent.CoordinatorStarted;
import dev.shardkit.sharding.spi.ShardingEvent.CoordinatorStoreWrite;
import dev.shardkit.sharding.spi.ShardingEvent.HandOffFinished;
import dev.shardkit.sharding.spi.ShardingEvent.HandOffStarted;
import dev.shardkit.sharding.spi.ShardingEvent.HeldReleased;
import dev.shardkit.sharding.spi.ShardingEvent.RebalanceRound;
import dev.shardkit.sharding.spi.ShardingEvent.ShardPlaced;
import dev.shardkit.sharding.testkit.TelemetryRecorder;
import dev.shardkit.sharding.testkit.TestCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.apache.pekko.actor.typed.ActorSystem;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A second node joins a node hosting four shards in use: the coordinator rebalances, a shard is
 * handed off while messages for it arrive, and what sharding reports is seen twice, by the test
 * binding ({@link TelemetryRecorder}) and in a JDK Flight Recorder file: the placements stored,
 * the store writes with their latency, the round with each move's reason, the hand-off with its
 * duration and the messages held meanwhile, and those messages released to the next home.
 */
class TelemetryClusterTest {
  static final EntityTypeKey<Cmd> KEY = EntityTypeKey.create(Cmd.class, "Watched");
  static final int SHARDS = 4;
  /** How long an entity takes to stop: the hand-off lasts at least this long, and messages are held meanwhile. */
  static final Duration STOPPING = Duration.ofMillis(1500);
  static final Duration WAIT = Duration.ofSeconds(30);
  static volatile boolean stopAtOnce;

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

  void start(ActorSystem<?> system) {
    ClusterSharding.get(system).start(Entity.of(KEY, ctx -> SlowToStop.create(STOPPING, () -> stopAtOnce, () -> { }))
        .withStopMessage(Stop.INSTANCE)
        .withSettings(ShardingSettings.create(system).withNumberOfShards(SHARDS)
            .withRebalanceInterval(Duration.ofMillis(500))));
  }

  CompletableFuture<Integer> ping(String id, int n) {
    return ClusterSharding.get(cluster.system(0)).entityRefFor(KEY, id)
        .<Integer>ask(r -> new Ping(n, r), WAIT).toCompletableFuture();
  }

  /** An entity id of each shard. */
  static Map<String, String> idPerShard() {
    Map<String, String> ids = new java.util.TreeMap<>();
    for (int i = 0; ids.size() < SHARDS; i++) {
      ids.putIfAbsent(StableHashMessageExtractor.shardIdFor("e-" + i, SHARDS), "e-" + i);
    }
    return ids;
  }

  @Test
  void aRebalanceIsReportedToBindingsAndToTheFlightRecorder(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("rebalance.jfr");
    // Nothing enabled by name: shardkit's events are on in any recording.
    try (Recording recording = new Recording()) {
      recording.start();
      cluster = new TestCluster("Telemetry").startNodes(1);
      start(cluster.system(0));
      Map<String, String> ids = idPerShard();
      for (String id : ids.values()) {
        assertEquals(0, ping(id, 0).get(WAIT.toSeconds(), TimeUnit.SECONDS));
      }
      TelemetryRecorder first = TelemetryRecorder.of(cluster.system(0));
      ActorSystem<?> node0 = cluster.system(0);
      CoordinatorStarted started = first.await(WAIT, CoordinatorStarted.class, KEY.name());
      assertEquals(node0.address(), started.node());
      assertTrue(first.await(WAIT, CoordinatorLoaded.class, KEY.name()).term() > 0);
      List<ShardPlaced> placed = first.awaitCount(WAIT, SHARDS, ShardPlaced.class,
          p -> p.typeName().equals(KEY.name()));
      assertEquals(ids.keySet(), placed.stream().map(ShardPlaced::shardId).collect(Collectors.toSet()));
      CoordinatorStoreWrite write = first.await(WAIT, CoordinatorStoreWrite.class, KEY.name());
      assertNull(write.failure());
      assertTrue(write.changes() > 0 && !write.latency().isNegative(), write.toString());

      cluster.addWithRoles();
      cluster.awaitUp(2);
      start(cluster.system(1));
      RebalanceRound round = first.await(WAIT, RebalanceRound.class, KEY.name());
      ShardingEvent.Move move = round.moves().get(0);
      assertEquals(ShardingEvent.MoveReason.STRATEGY, move.reason());
      assertTrue(move.from().startsWith(node0.address().toString()), move.toString());
      String shard = move.shardId();
      first.await(WAIT, HandOffStarted.class, s -> s.shardId().equals(shard) && s.typeName().equals(KEY.name()));
      // The shard's routes are closed and its entity takes STOPPING to stop: these wait here.
      List<CompletableFuture<Integer>> held = new ArrayList<>();
      for (int n = 1; n <= 3; n++) {
        held.add(ping(ids.get(shard), n));
      }
      HandOffFinished finished = first.await(WAIT, HandOffFinished.class, f -> f.shardId().equals(shard));
      assertTrue(finished.held() >= held.size(), finished.toString());
      assertTrue(finished.duration().compareTo(STOPPING) >= 0, finished.toString());
      for (int n = 1; n <= held.size(); n++) {
        assertEquals(n, held.get(n - 1).get(WAIT.toSeconds(), TimeUnit.SECONDS));
      }
      ShardPlaced next = first.await(WAIT, ShardPlaced.class, p -> p.shardId().equals(shard)
          && p.region().startsWith(cluster.system(1).address().toString()));
      assertEquals(node0.address(), next.node(), "the coordinator's node reports placements");
      // The release that follows the hand-off (the shard's first placement may have released some too).
      HeldReleased released = first.await(WAIT, HeldReleased.class, r -> r.shardId().equals(shard)
          && first.events().indexOf(r) > first.events().indexOf(finished));
      assertTrue(released.messages() >= held.size(), released.toString());
      recording.dump(file);
    }

    Map<String, List<RecordedEvent>> recorded = RecordingFile.readAllEvents(file).stream()
        .filter(e -> e.getEventType().getName().startsWith("shardkit."))
        .collect(Collectors.groupingBy(e -> e.getEventType().getName()));
    assertTrue(recorded.keySet().containsAll(List.of("shardkit.CoordinatorStarted", "shardkit.CoordinatorLoaded",
        "shardkit.ShardPlaced", "shardkit.CoordinatorStoreWrite", "shardkit.RebalanceRound", "shardkit.HandOffStarted",
        "shardkit.HandOffFinished", "shardkit.HeldReleased")), recorded.keySet().toString());
    RecordedEvent round = recorded.get("shardkit.RebalanceRound").get(0);
    assertEquals(KEY.name(), round.getString("typeName"));
    assertTrue(round.getInt("moveCount") > 0 && round.getString("moves").contains("(STRATEGY)"), round.toString());
    RecordedEvent finished = recorded.get("shardkit.HandOffFinished").stream()
        .filter(e -> e.getInt("held") >= 3).findFirst().orElseThrow();
    assertTrue(finished.getDuration("handOffDuration").compareTo(STOPPING) >= 0, finished.toString());
    assertEquals(cluster.system(0).address().toString(), finished.getString("node"));
    assertFalse(recorded.get("shardkit.ShardPlaced").isEmpty());
    assertTrue(recorded.get("shardkit.CoordinatorStoreWrite").stream().allMatch(e -> e.getLong("latency") >= 0));
    assertFalse(recorded.get("shardkit.HeldReleased").isEmpty());
    assertTrue(recorded.get("shardkit.HandOffStarted").stream().allMatch(e -> e.getStackTrace() == null),
        "recorded without stack traces");
    if (System.getProperty("shardkit.telemetry.keep-jfr") != null) {
      Files.copy(file, Path.of(System.getProperty("shardkit.telemetry.keep-jfr")),
          java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }
  }
}
