package dev.shardkit.sharding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import dev.shardkit.sharding.internal.wire.ShardingProtocol;
import dev.shardkit.sharding.spi.ShardingEvent;
import dev.shardkit.sharding.testkit.CborSerializable;
import dev.shardkit.sharding.testsupport.EntityProbe;
import dev.shardkit.sharding.testsupport.LogCapture;
import dev.shardkit.sharding.testsupport.RegionRefs;
import dev.shardkit.sharding.testkit.TelemetryRecorder;
import dev.shardkit.sharding.testkit.TestCluster;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import java.util.stream.StreamSupport;
import org.apache.pekko.Done;
import org.apache.pekko.actor.AllDeadLetters;
import org.apache.pekko.actor.CoordinatedShutdown;
import org.apache.pekko.actor.SuppressedDeadLetter;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Leave;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Hand-offs on a three-node cluster leave no dead letter of shardkit's own messages: neither a
 * rebalance onto a region that joined, nor a node that leaves gracefully, nor a second node that
 * leaves while the first, its region stopped, is still on its way out (Pekko tells no other node
 * that an actor of a node in coordinated shutdown stopped until that node is removed, so the
 * coordinator still counts that region).
 *
 * <p>Every node's event stream is watched for dead letters from before the hand-off. When the
 * hand-off is over, a marker of the test's own is sent from the other nodes to the region that
 * stopped, along the path the coordinator's and the regions' messages to it took: once it has
 * arrived there (as a dead letter itself), everything sent to that region before it has been
 * seen, and the count is final.
 */
class HandOffDeadLettersTest {
  static final EntityTypeKey<EntityProbe.Msg> KEY = EntityTypeKey.create(EntityProbe.Msg.class, "Quiet");
  static final int SHARDS = 30;
  static final List<String> ENTITIES = IntStream.range(0, 300).mapToObj(i -> "q-" + i).toList();

  /** The test's own message to a region that has stopped; it ends as a dead letter where it arrives. */
  public record Marker(String from) implements CborSerializable {}

  /** A dead letter seen on a node: what kind, the message's class, and whom it was for. */
  record Seen(int node, AllDeadLetters letter) {
    @Override
    public String toString() {
      return "node " + node + ": " + letter.getClass().getSimpleName() + " " + letter.message().getClass().getName()
          + " " + letter.message() + " to " + letter.recipient();
    }
  }

  final EntityProbe probe = new EntityProbe();
  final List<Seen> seen = new CopyOnWriteArrayList<>();
  TestCluster cluster;

  @AfterEach
  void stop() {
    cluster.close();
  }

  void startSharding(ActorSystem<?> system) {
    ClusterSharding.get(system).start(Entity.of(KEY, probe::behavior)
        .withSettings(ShardingSettings.create(system).withNumberOfShards(SHARDS)));
  }

  /** Records every dead letter published on the node's event stream from now on. */
  void watchDeadLetters(int node) {
    ActorSystem<Void> system = cluster.system(node);
    ActorRef<AllDeadLetters> listener = system.systemActorOf(Behaviors.receive(AllDeadLetters.class)
        .onAnyMessage(d -> {
          seen.add(new Seen(node, d));
          return Behaviors.same();
        }).build(), "test-dead-letters", Props.empty());
    // The classic event stream subscribes at once: nothing published after this returns is missed.
    Adapter.toClassic(system).eventStream().subscribe(Adapter.toClassic(listener), AllDeadLetters.class);
  }

  /**
   * The dead letters of shardkit's own messages: any that Pekko would log (a {@code DeadLetter} or
   * {@code Dropped} of one of its internal classes), and any of the cross-node protocol even if
   * suppressed. A protocol message is marked as a suppressed dead letter only for the race with a
   * node's departure that no hand-off here has; the local notification a node's gate keeper sends
   * a region that has just stopped may be one.
   */
  List<Seen> shardkitDeadLetters() {
    return seen.stream().filter(s -> {
      Object m = s.letter().message();
      boolean internal = m.getClass().getName().startsWith("dev.shardkit.sharding.internal.");
      return s.letter() instanceof SuppressedDeadLetter ? m instanceof ShardingProtocol : internal;
    }).toList();
  }

  /** Sends every entity a message from {@code node} and waits until each has it. */
  void everyEntityGets(int n, int node) {
    ENTITIES.forEach(id -> ClusterSharding.get(cluster.system(node)).entityRefFor(KEY, id).tell(new EntityProbe.Hello(n)));
    TestCluster.await(Duration.ofSeconds(60), () -> ENTITIES.stream().allMatch(id -> probe.received(id).contains(n)),
        "every entity got message " + n);
  }

  /** The type's stats, asked with a timeout long enough that no answer comes after it (a dead letter). */
  ClusterShardingStats stats(int node) {
    try {
      return ClusterSharding.get(cluster.system(node)).clusterShardingStats(KEY, Duration.ofSeconds(20))
          .toCompletableFuture().get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new AssertionError("no stats from node " + node, e);
    }
  }

  /**
   * Sends a marker from each of {@code from} to {@code region} (on node {@code at}) and waits until
   * each has ended as a dead letter, there or, if the sender's node no longer delivers to {@code at},
   * at the sender.
   */
  void markersArrive(ActorRef<Object> region, int at, int... from) {
    String path = org.apache.pekko.actor.typed.ActorRefResolver.get(cluster.system(at)).toSerializationFormat(region);
    for (int node : from) {
      org.apache.pekko.actor.typed.ActorRefResolver.get(cluster.system(node)).<Object>resolveActorRef(path)
          .tell(new Marker("node-" + node));
    }
    TestCluster.await(Duration.ofSeconds(30), () -> seen.stream().filter(s -> s.letter().message() instanceof Marker)
        .count() == from.length, "the markers have reached the stopped region on node " + at + "; seen " + seen);
  }

  boolean removedEverywhere(org.apache.pekko.actor.Address node, int... views) {
    for (int v : views) {
      if (StreamSupport.stream(Cluster.get(cluster.system(v)).state().getMembers().spliterator(), false)
          .anyMatch(m -> m.address().equals(node))) {
        return false;
      }
    }
    return true;
  }

  @Test
  void aRebalanceOntoARegionThatJoinedLeavesNoDeadLetters() {
    cluster = new TestCluster("QuietRebalance").startNodes(3);
    startSharding(cluster.system(0));
    startSharding(cluster.system(1));
    TestCluster.await(Duration.ofSeconds(30), () -> stats(0).regions().size() == 2, "two regions registered");
    everyEntityGets(0, 0);
    TestCluster.await(Duration.ofSeconds(30), () -> stats(0).shardCount() == SHARDS, "every shard placed");
    for (int n = 0; n < 3; n++) {
      watchDeadLetters(n);
    }

    startSharding(cluster.system(2));
    TestCluster.await(Duration.ofSeconds(60), () -> RebalanceTest.evenlySpread(stats(0), 3, SHARDS),
        "the shards spread over three regions");
    // The moves are over once every region routes every shard to its new home.
    everyEntityGets(1, 0);
    everyEntityGets(2, 1);
    everyEntityGets(3, 2);
    assertTrue(ENTITIES.stream().anyMatch(id -> probe.startedOn(id).equals(cluster.address(2).toString())),
        "entities moved to the region that joined");

    assertEquals(List.of(), shardkitDeadLetters());
  }

  /**
   * Node 2 leaves; it stays in its last shutdown phase, its actor system running, until the test
   * has seen what reached its stopped region.
   */
  @Test
  void aNodeThatLeavesGracefullyLeavesNoDeadLetters() throws Exception {
    cluster = new TestCluster("QuietLeave");
    CompletableFuture<Done> letGo = new CompletableFuture<>();
    ActorSystem<Void> leaving = startHeldNodes(letGo, "before-actor-system-terminate");
    ActorRef<Object> region = RegionRefs.regionOf(cluster, 2, 2, KEY.name());
    org.apache.pekko.actor.Address address = cluster.address(2);
    try (LogCapture log = new LogCapture()) {
      Cluster.get(leaving).manager().tell(new Leave(address));
      TestCluster.await(Duration.ofSeconds(60), () -> removedEverywhere(address, 0, 1), "the node has been removed");
      // Read from the log, not asked: asked now, the coordinator might still ask the stopped region.
      log.await(Duration.ofSeconds(30), "Coordinator of [" + KEY.name() + "]: region " + address
          + region.path().toStringWithoutAddress() + " is gone");
      markersArrive(region, 2, 0, 1);
      assertTrue(seen.stream().filter(s -> s.letter().message() instanceof Marker).allMatch(s -> s.node() == 2),
          "the markers reached node 2: " + seen);
      everyEntityGets(1, 0);
      assertEquals(List.of(), shardkitDeadLetters());
      assertEquals(List.of(), shardkitWarnings(log));
    } finally {
      letGo.complete(Done.getInstance());
    }
  }

  /**
   * Node 2's region has handed off its shards and stopped, and its node is held in the shutdown
   * phase right after (it stays a member): the coordinator cannot see that the region stopped.
   * Node 1 leaves meanwhile; its hand-offs go to everyone but that region, so nothing reaches it,
   * and node 1 does not wait for a marker from it.
   */
  @Test
  void aNodeThatLeavesWhileAnotherIsOnItsWayOutLeavesNoDeadLetters() throws Exception {
    cluster = new TestCluster("QuietTwoLeave");
    CompletableFuture<Done> letGo = new CompletableFuture<>();
    ActorSystem<Void> first = startHeldNodes(letGo, "cluster-sharding-shutdown-region");
    ActorRef<Object> region = RegionRefs.regionOf(cluster, 2, 2, KEY.name());
    try (LogCapture log = new LogCapture()) {
      first.terminate();
      TelemetryRecorder.of(first).await(Duration.ofSeconds(60), ShardingEvent.RegionShutDown.class, KEY.name());
      ActorSystem<Void> second = cluster.system(1);
      second.terminate();
      TestCluster.await(Duration.ofSeconds(60), () -> second.getWhenTerminated().toCompletableFuture().isDone(),
          "the second node has left and stopped");
      // Every shard lives on the last node now (the first's region, stopped, hosts none).
      everyEntityGets(1, 0);
      markersArrive(region, 2, 0);
      assertEquals(List.of(), shardkitDeadLetters());
      assertEquals(List.of(), shardkitWarnings(log));
    } finally {
      letGo.complete(Done.getInstance());
    }
  }

  /**
   * Three nodes with the type started and every entity running; the third's coordinated shutdown
   * waits in {@code phase} until {@code letGo} completes. Every node's dead letters are watched.
   */
  ActorSystem<Void> startHeldNodes(CompletableFuture<Done> letGo, String phase) {
    // The others keep delivering to the removed node (rather than quarantine it after Pekko's 5 s)
    // until the markers have reached it there.
    cluster.add("pekko.cluster.quarantine-removed-node-after = 60 s");
    cluster.add("pekko.cluster.quarantine-removed-node-after = 60 s");
    ActorSystem<Void> held = cluster.add("pekko.coordinated-shutdown.phases." + phase + ".timeout = 120 s");
    cluster.awaitUp(3);
    CoordinatedShutdown.get(Adapter.toClassic(held)).addTask(phase, "held-by-test", () -> letGo);
    cluster.systems().forEach(this::startSharding);
    TestCluster.await(Duration.ofSeconds(30), () -> stats(0).regions().size() == 3, "three regions registered");
    everyEntityGets(0, 0);
    TestCluster.await(Duration.ofSeconds(30), () -> stats(0).shardCount() == SHARDS, "every shard placed");
    assertTrue(ENTITIES.stream().anyMatch(id -> probe.startedOn(id).equals(cluster.address(2).toString())),
        "entities run on the node that leaves");
    for (int n = 0; n < 3; n++) {
      watchDeadLetters(n);
    }
    return held;
  }

  /** Warnings of shardkit's loggers, and those it logs through the actor system's log about the type. */
  static List<String> shardkitWarnings(LogCapture log) {
    return log.events().stream()
        .filter(e -> e.getLevel().isGreaterOrEqual(Level.WARN) && (e.getLoggerName().startsWith("dev.shardkit")
            || e.getFormattedMessage().contains("Entity type [" + KEY.name() + "]")))
        .map(LogCapture::fullText).toList();
  }
}
