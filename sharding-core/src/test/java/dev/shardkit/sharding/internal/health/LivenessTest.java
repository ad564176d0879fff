package dev.shardkit.sharding.internal.health;

import static dev.shardkit.sharding.internal.health.ReadinessTest.REGISTERED;
import static dev.shardkit.sharding.internal.health.ReadinessTest.node;
import static dev.shardkit.sharding.internal.health.ReadinessTest.registered;
import static dev.shardkit.sharding.internal.health.ReadinessTest.registering;
import static dev.shardkit.sharding.internal.health.ReadinessTest.shuttingDown;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.internal.health.NodeHealth.Gate;
import dev.shardkit.sharding.internal.region.RegionStatus.Snapshot;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The liveness decision: it fails only for what a restart alone can mend. */
class LivenessTest {

  @Test
  void whatHealsByItselfIsAlive() {
    assertTrue(Liveness.decide(node(Gate.OPEN)).ok(), "no entity type started");
    assertTrue(Liveness.decide(node(Gate.OPEN, registering("A"))).ok(), "a region still registering");
    assertTrue(Liveness.decide(node(Gate.CLOSED, registered("A"))).ok(), "a gate closed for a while");
  }

  @Test
  void aNodeOutOfTheClusterWhoseShutdownHasNotBegunIsNotAlive() {
    HealthVerdict out = Liveness.decide(node(Gate.DOWN, registered("A")));
    assertFalse(out.ok());
    assertTrue(out.reason().contains("only a restart brings it back"), out.reason());
  }

  @Test
  void aNodeLeavingOnPurposeIsAliveWhateverElseHolds() {
    Snapshot stopped = new Snapshot("A", false, REGISTERED, false, true);
    assertTrue(Liveness.decide(shuttingDown(node(Gate.DOWN, stopped))).ok(),
        "its regions stop and its gate closes for good as it leaves");
  }

  @Test
  void aRegionThatStoppedUnaskedIsNotAliveAndOneAskedToIs() {
    Snapshot unasked = new Snapshot("B", false, REGISTERED, false, true);
    Snapshot asked = new Snapshot("A", true, Optional.empty(), true, true);
    HealthVerdict verdict = Liveness.decide(node(Gate.OPEN, asked, unasked));
    assertFalse(verdict.ok());
    assertEquals("the region of entity type(s) [B] stopped without being asked to; the type cannot be started again "
        + "on this node", verdict.reason());
    assertTrue(Liveness.decide(node(Gate.OPEN, asked, registered("B"))).ok(),
        "a type the application shut down gracefully");
  }

  @Test
  void aNullNodeIsRefusedNamingTheMethod() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Liveness.decide(null));
    assertTrue(e.getMessage().contains("Liveness.decide"), e.getMessage());
  }
}
