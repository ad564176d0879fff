package dev.shardkit.sharding.internal.gate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import dev.shardkit.sharding.ClusterSharding;
import dev.shardkit.sharding.Entity;
import dev.shardkit.sharding.EntityTypeKey;
import dev.shardkit.sharding.testsupport.EntityProbe;
import dev.shardkit.sharding.testsupport.LogCapture;
import dev.shardkit.sharding.testkit.TestCluster;
import java.time.Duration;
import java.util.List;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.NoSerializationVerificationNeeded;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Down;
import org.apache.pekko.cluster.typed.Leave;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The keepers of real nodes: a node that was paused asks the others and goes on once they confirm
 * it; a single node goes on after every pause, having nobody to ask; a node that is downed closes
 * its gate for good, and warns; a node that leaves on purpose says so at INFO, and nothing of
 * shardkit's on any node warns about it.
 */
class GateKeeperTest {
  private static final EntityTypeKey<EntityProbe.Msg> KEY = EntityTypeKey.create(EntityProbe.Msg.class, "Gated");
  private static final String OUT = "is no longer a member of the cluster";

  private TestCluster cluster;

  /** What a second subscriber was told, relayed to the first one's probe. */
  private record Relayed(Object message) implements NoSerializationVerificationNeeded {}

  @AfterEach
  void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  private TestCluster threeNodes(String name) {
    cluster = new TestCluster(name).startNodes(3);
    cluster.systems().forEach(NodeGate::get);
    return cluster;
  }

  private static TestProbe<Object> subscribe(ActorSystem<?> system) {
    TestProbe<Object> probe = TestProbe.create(system);
    NodeGate.get(system).keeper().tell(new GateKeeper.Subscribe(probe.ref()));
    return probe;
  }

  @Test
  void aPausedNodeThatNobodyDownedIsConfirmedAndGoesOn() {
    ActorSystem<Void> node = threeNodes("GatePaused").system(2);
    TestProbe<Object> probe = subscribe(node);
    DeliveryGate gate = NodeGate.get(node).gate();
    assertTrue(gate.isOpen());

    NodeGate.get(node).keeper().tell(new GateKeeper.Paused(Duration.ofSeconds(5).toNanos()));
    probe.expectMessage(Duration.ofSeconds(10), GateKeeper.GateChanged.CLOSED);
    probe.expectMessage(Duration.ofSeconds(10), GateKeeper.GateChanged.OPENED);
    assertTrue(gate.isOpen());
  }

  @Test
  void aSingleNodePausedAgainAndAgainReopensEveryTime() {
    // One node has nobody to ask, and nobody who could have taken its shards: every pause, however
    // many come one after another (a loaded machine's GC pauses), must end with the gate open again.
    cluster = new TestCluster("GateSingle").startNodes(1);
    cluster.awaitUp(1);
    ActorSystem<Void> node = cluster.system(0);
    TestProbe<Object> probe = subscribe(node);
    DeliveryGate gate = NodeGate.get(node).gate();
    for (int pause = 0; pause < 5; pause++) {
      gate.close();
      NodeGate.get(node).keeper().tell(new GateKeeper.Paused(Duration.ofSeconds(2).toNanos()));
      probe.expectMessage(Duration.ofSeconds(10), GateKeeper.GateChanged.CLOSED);
      probe.expectMessage(Duration.ofSeconds(10), GateKeeper.GateChanged.OPENED);
      assertTrue(gate.isOpen(), "open after pause " + pause);
    }
  }

  @Test
  void aDownedNodeClosesItsGateForGood() {
    TestCluster c = threeNodes("GateDowned");
    ActorSystem<Void> node = c.system(2);
    TestProbe<Object> probe = subscribe(node);
    DeliveryGate gate = NodeGate.get(node).gate();

    try (LogCapture log = new LogCapture()) {
      Cluster.get(c.system(0)).manager().tell(new Down(c.address(2)));
      probe.expectMessage(Duration.ofSeconds(20), GateKeeper.GateChanged.DOWN);
      // Logged before the subscribers are told, on the keeper's thread.
      List<ILoggingEvent> out = log.matching(OUT);
      assertEquals(1, out.size(), out.toString());
      assertEquals(Level.WARN, out.get(0).getLevel());
      assertTrue(out.get(0).getFormattedMessage().startsWith("This node was downed "), out.get(0).getFormattedMessage());
    }
    assertEquals(DeliveryGate.State.DOWN, gate.state());
    assertFalse(gate.isOpen());
    // A pause reported now changes nothing: a node that is out never asks to come back. A second
    // subscriber, subscribed after the pause, is told DOWN at once and relays it to the probe:
    // whatever the pause made the keeper tell the probe would have reached it before that.
    NodeGate.get(node).keeper().tell(new GateKeeper.Paused(Duration.ofSeconds(5).toNanos()));
    ActorRef<Object> relay = node.systemActorOf(Behaviors.<Object>receiveMessage(m -> {
      probe.ref().tell(new Relayed(m));
      return Behaviors.same();
    }), "relaying-subscriber", Props.empty());
    NodeGate.get(node).keeper().tell(new GateKeeper.Subscribe(relay));
    assertEquals(new Relayed(GateKeeper.GateChanged.DOWN), probe.receiveMessage(Duration.ofSeconds(10)),
        "the pause told the subscribers nothing");
    assertEquals(DeliveryGate.State.DOWN, gate.state());
  }

  /** How many regions the type's coordinator knows, asked from {@code node}; 0 while it cannot say. */
  private static int regions(ActorSystem<?> node) {
    try {
      return ClusterSharding.get(node).clusterShardingStats(KEY, Duration.ofSeconds(3)).toCompletableFuture()
          .get(5, java.util.concurrent.TimeUnit.SECONDS).regions().size();
    } catch (Exception e) {
      return 0;
    }
  }

  /**
   * An ordinary shutdown, both ways a user does it: one node is asked to leave ({@code Leave}),
   * another is terminated ({@code ActorSystem.terminate()}). Each hands its shards off, and its
   * keeper says at INFO that it left on purpose; shardkit warns of nothing, on any node (neither its
   * own loggers nor what it logs about the type through the actor system's log).
   */
  @Test
  void aNodeThatLeavesOnPurposeSaysSoAtInfoAndNothingOfShardkitsWarns() {
    TestCluster c = threeNodes("GateLeave");
    EntityProbe probe = new EntityProbe();
    c.systems().forEach(s -> ClusterSharding.get(s).start(Entity.of(KEY, probe::behavior)));
    // The coordinator knows every region before the entities start, so they start on every node.
    // (A region that runs no shard stops the moment its shutdown begins, before the coordinator
    // hands off the shards it placed there up front; the other regions' markers for those then
    // reach it too late, and are reported as unacknowledged: a gap of its own, not this test's.)
    TestCluster.await(Duration.ofSeconds(30), () -> regions(c.system(0)) == 3, "the coordinator knows every region");
    List<String> ids = java.util.stream.IntStream.range(0, 60).mapToObj(i -> "g-" + i).toList();
    ids.forEach(id -> ClusterSharding.get(c.system(0)).entityRefFor(KEY, id).tell(new EntityProbe.Hello(1)));
    TestCluster.await(Duration.ofSeconds(30), () -> ids.stream().allMatch(id -> probe.received(id).size() == 1),
        "every entity got its message");
    Address askedToLeave = c.address(2);
    Address terminated = c.address(1);
    for (Address leaving : List.of(askedToLeave, terminated)) {
      assertTrue(ids.stream().anyMatch(id -> leaving.toString().equals(probe.startedOn(id))),
          "entities run on " + leaving);
    }

    try (LogCapture log = new LogCapture()) {
      Cluster.get(c.system(2)).manager().tell(new Leave(askedToLeave));
      TestCluster.await(Duration.ofSeconds(60), () -> c.system(2).getWhenTerminated().toCompletableFuture().isDone(),
          "the node asked to leave has stopped");
      c.system(1).terminate();
      TestCluster.await(Duration.ofSeconds(60), () -> c.system(1).getWhenTerminated().toCompletableFuture().isDone(),
          "the terminated node has stopped");
      // What the last node logs about them comes with their removal from its view.
      TestCluster.await(Duration.ofSeconds(30), () -> {
        var members = Cluster.get(c.system(0)).state().getMembers();
        return java.util.stream.StreamSupport.stream(members.spliterator(), false)
            .noneMatch(m -> m.address().equals(askedToLeave) || m.address().equals(terminated));
      }, "the last node has removed both");

      List<ILoggingEvent> out = log.matching(OUT);
      assertEquals(2, out.size(), out.toString());
      out.forEach(e -> assertEquals(Level.INFO, e.getLevel(), e.getFormattedMessage()));
      assertEquals(1, log.matching("This node left on purpose (it was asked to leave the cluster)").size(),
          out.toString());
      assertEquals(1, log.matching("This node left on purpose (ActorSystem.terminate() ran its coordinated "
          + "shutdown)").size(), out.toString());
      List<String> warnings = log.events().stream()
          .filter(e -> e.getLevel().isGreaterOrEqual(Level.WARN) && (e.getLoggerName().startsWith("dev.shardkit")
              || e.getFormattedMessage().contains("Entity type [" + KEY.name() + "]")))
          .map(e -> e.getLoggerName() + ": " + LogCapture.fullText(e)).toList();
      assertEquals(List.of(), warnings);
    }
  }
}
