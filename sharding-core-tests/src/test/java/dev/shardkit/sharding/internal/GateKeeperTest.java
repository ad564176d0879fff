package dev.shardkit.sharding.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.testkit.TestCluster;
import java.time.Duration;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Down;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The keepers of real nodes: a node that was paused asks the others and goes on once they confirm
 * it; a single node goes on after every pause, having nobody to ask; a node that is downed closes
 * its gate for good.
 */
class GateKeeperTest {
  private TestCluster cluster;

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

    Cluster.get(c.system(0)).manager().tell(new Down(c.address(2)));
    probe.expectMessage(Duration.ofSeconds(20), GateKeeper.GateChanged.DOWN);
    assertEquals(DeliveryGate.State.DOWN, gate.state());
    assertFalse(gate.isOpen());
    // A pause reported now changes nothing: a node that is out never asks to come back.
    NodeGate.get(node).keeper().tell(new GateKeeper.Paused(Duration.ofSeconds(5).toNanos()));
    probe.expectNoMessage(Duration.ofMillis(500));
    assertEquals(DeliveryGate.State.DOWN, gate.state());
  }
}
