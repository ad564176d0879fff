package dev.shardkit.sharding.internal.gate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.internal.gate.Departure.ShutdownReason;
import java.util.EnumSet;
import java.util.Optional;
import org.apache.pekko.actor.CoordinatedShutdown;
import org.junit.jupiter.api.Test;

class DepartureTest {

  @Test
  void pekkosReasonsAreTold() {
    assertEquals(ShutdownReason.NONE, Departure.reason(Optional.empty()));
    assertEquals(ShutdownReason.CLUSTER_LEAVING, Departure.reason(Optional.of(CoordinatedShutdown.clusterLeavingReason())));
    assertEquals(ShutdownReason.ACTOR_SYSTEM_TERMINATE,
        Departure.reason(Optional.of(CoordinatedShutdown.actorSystemTerminateReason())));
    assertEquals(ShutdownReason.JVM_EXIT, Departure.reason(Optional.of(CoordinatedShutdown.jvmExitReason())));
    assertEquals(ShutdownReason.CLUSTER_DOWNING, Departure.reason(Optional.of(CoordinatedShutdown.clusterDowningReason())));
    assertEquals(ShutdownReason.CLUSTER_JOIN_UNSUCCESSFUL,
        Departure.reason(Optional.of(CoordinatedShutdown.clusterJoinUnsuccessfulReason())));
    assertEquals(ShutdownReason.INCOMPATIBLE_CONFIGURATION,
        Departure.reason(Optional.of(CoordinatedShutdown.incompatibleConfigurationDetectedReason())));
  }

  @Test
  void aReasonPekkoDoesNotNameIsTheApplications() {
    assertEquals(ShutdownReason.APPLICATION, Departure.reason(Optional.of(CoordinatedShutdown.unknownReason())));
    assertEquals(ShutdownReason.APPLICATION, Departure.reason(Optional.of(new CoordinatedShutdown.Reason() {})));
  }

  @Test
  void aShutdownStartedOnThisNodeIsOnPurpose() {
    for (ShutdownReason reason : EnumSet.of(ShutdownReason.CLUSTER_LEAVING, ShutdownReason.ACTOR_SYSTEM_TERMINATE,
        ShutdownReason.JVM_EXIT, ShutdownReason.APPLICATION)) {
      for (boolean left : new boolean[] {false, true}) {
        Departure.Verdict verdict = Departure.of("shut down", false, false, left, reason);
        assertTrue(verdict.onPurpose(), reason + ", left " + left);
        assertTrue(verdict.how().startsWith("left on purpose ("), verdict.how());
      }
    }
    assertTrue(Departure.of("shut down", false, false, false, ShutdownReason.ACTOR_SYSTEM_TERMINATE).how()
        .contains("ActorSystem.terminate()"));
  }

  @Test
  void aNodeThatWasAskedToLeaveAndIsRemovedLeftOnPurpose() {
    // Removed before its own shutdown began: Leaving and Exiting say that it was asked to go.
    Departure.Verdict verdict = Departure.of("removed", false, false, true, ShutdownReason.NONE);
    assertTrue(verdict.onPurpose());
  }

  @Test
  void aNodeRemovedWithoutHavingBeenAskedToLeaveWasPutOut() {
    Departure.Verdict verdict = Departure.of("removed", false, false, false, ShutdownReason.NONE);
    assertFalse(verdict.onPurpose());
    assertEquals("was removed", verdict.how());
  }

  @Test
  void aDownedNodeWasPutOutEvenIfItHadBegunToLeaveOrToShutDown() {
    for (ShutdownReason reason : ShutdownReason.values()) {
      for (boolean left : new boolean[] {false, true}) {
        Departure.Verdict verdict = Departure.of("shut down", true, false, left, reason);
        assertFalse(verdict.onPurpose(), reason + ", left " + left);
        assertEquals("was downed", verdict.how());
      }
    }
  }

  @Test
  void aQuarantinedNodeWasPutOut() {
    for (ShutdownReason reason : ShutdownReason.values()) {
      Departure.Verdict verdict = Departure.of("removed", false, true, true, reason);
      assertFalse(verdict.onPurpose(), reason.toString());
      assertEquals("was removed after another member quarantined it", verdict.how());
    }
  }

  @Test
  void aShutdownForDowningOrAFailedJoinWasNotChosen() {
    for (ShutdownReason reason : EnumSet.of(ShutdownReason.CLUSTER_DOWNING, ShutdownReason.CLUSTER_JOIN_UNSUCCESSFUL,
        ShutdownReason.INCOMPATIBLE_CONFIGURATION)) {
      // Even a node that had begun to leave: the downing came first, or the node never got in.
      Departure.Verdict verdict = Departure.of("shut down", false, false, true, reason);
      assertFalse(verdict.onPurpose(), reason.toString());
      assertEquals("was shut down", verdict.how());
    }
  }
}
