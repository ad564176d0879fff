package dev.shardkit.sharding.internal.health;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.internal.health.NodeHealth.Gate;
import dev.shardkit.sharding.internal.region.RegionStatus.Registered;
import dev.shardkit.sharding.internal.region.RegionStatus.Snapshot;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The readiness decision, input by input, inside the start-up window and after it. */
class ReadinessTest {
  static final Optional<Registered> REGISTERED = Optional.of(new Registered("coordinator", 3));

  static Snapshot registered(String type) {
    return new Snapshot(type, false, REGISTERED, false, false);
  }

  static Snapshot registering(String type) {
    return new Snapshot(type, false, Optional.empty(), false, false);
  }

  static NodeHealth node(Gate gate, Snapshot... regions) {
    return new NodeHealth(false, gate, List.of(regions));
  }

  static NodeHealth shuttingDown(NodeHealth node) {
    return new NodeHealth(true, node.gate(), node.regions());
  }

  @Test
  void aNodeWithNoEntityTypeIsReadyUntilItsShutdownBegins() {
    assertTrue(Readiness.decide(node(Gate.OPEN), true).ok());
    assertTrue(Readiness.decide(node(Gate.OPEN), false).ok());
    assertFalse(Readiness.decide(shuttingDown(node(Gate.OPEN)), true).ok());
  }

  @Test
  void readyOnlyOnceEveryRegionAndProxyHasRegistered() {
    Snapshot proxyRegistering = new Snapshot("Client", true, Optional.empty(), false, false);
    HealthVerdict waiting = Readiness.decide(node(Gate.OPEN, registered("A"), registering("C"), proxyRegistering), true);
    assertFalse(waiting.ok());
    assertEquals("the region of entity type(s) [C, Client] has not registered with a coordinator yet",
        waiting.reason(), "both names, sorted; a proxy counts like a region");

    Snapshot proxyRegistered = new Snapshot("Client", true, REGISTERED, false, false);
    assertTrue(Readiness.decide(node(Gate.OPEN, registered("A"), registered("C"), proxyRegistered), true).ok());
  }

  @Test
  void aClosedGateMakesTheNodeUnreadyInTheWindow() {
    HealthVerdict closed = Readiness.decide(node(Gate.CLOSED, registered("A")), true);
    assertFalse(closed.ok());
    assertTrue(closed.reason().contains("delivery gate is closed"), closed.reason());
  }

  @Test
  void pastTheWindowRegistrationAndTheGateNoLongerCount() {
    assertTrue(Readiness.decide(node(Gate.CLOSED, registering("A")), false).ok(),
        "a coordinator move and a gate closed for a while, past the window");
  }

  @Test
  void aShutdownMakesAReadyNodeUnreadyInTheWindowAndPastIt() {
    NodeHealth ready = node(Gate.OPEN, registered("A"));
    assertTrue(Readiness.decide(ready, true).ok());
    for (boolean window : new boolean[] {true, false}) {
      HealthVerdict verdict = Readiness.decide(shuttingDown(ready), window);
      assertFalse(verdict.ok());
      assertEquals("coordinated shutdown has begun: this node is leaving", verdict.reason());
    }
  }

  @Test
  void aNodeOutOfTheClusterIsNeverReady() {
    for (boolean window : new boolean[] {true, false}) {
      HealthVerdict verdict = Readiness.decide(node(Gate.DOWN, registered("A")), window);
      assertFalse(verdict.ok());
      assertTrue(verdict.reason().contains("no longer a member"), verdict.reason());
    }
  }

  @Test
  void aRegionShuttingDownOrStoppedMakesTheNodeUnreadyInTheWindowAndPastIt() {
    Snapshot asked = new Snapshot("A", false, REGISTERED, true, false);
    Snapshot stopped = new Snapshot("B", false, REGISTERED, false, true);
    for (boolean window : new boolean[] {true, false}) {
      HealthVerdict verdict = Readiness.decide(node(Gate.OPEN, asked, stopped, registered("C")), window);
      assertFalse(verdict.ok());
      assertEquals("the region of entity type(s) [A, B] is shutting down or has stopped", verdict.reason());
    }
  }

  @Test
  void theShutdownIsNamedBeforeAnythingElse() {
    NodeHealth everythingWrong = new NodeHealth(true, Gate.DOWN,
        List.of(registering("A"), new Snapshot("B", false, REGISTERED, false, true)));
    assertEquals("coordinated shutdown has begun: this node is leaving",
        Readiness.decide(everythingWrong, true).reason());
  }

  @Test
  void aNullNodeIsRefusedNamingTheMethod() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Readiness.decide(null, true));
    assertTrue(e.getMessage().contains("Readiness.decide"), e.getMessage());
  }
}
