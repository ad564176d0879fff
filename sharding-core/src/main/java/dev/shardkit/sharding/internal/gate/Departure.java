package dev.shardkit.sharding.internal.gate;

import java.util.Optional;
import org.apache.pekko.actor.CoordinatedShutdown;

/**
 * Whether this node, now out of the cluster, left on purpose or was put out: the gate keeper says
 * the first at INFO and warns about the second. An ordinary shutdown ({@code Cluster.leave},
 * coordinated shutdown, {@code ActorSystem.terminate()}, SIGTERM) is what every rolling restart
 * does, and a warning there reads as a fault; being downed, quarantined or removed while
 * unreachable is one. Pure.
 */
final class Departure {

  private Departure() {}

  /**
   * What started this node's coordinated shutdown, as far as the verdict cares; Pekko's reasons
   * mapped by {@link #reason}. A reason Pekko does not name was given by the application.
   */
  enum ShutdownReason {
    /** Coordinated shutdown has not started. */
    NONE,
    /** The cluster moved this node to Exiting: it was asked to leave. */
    CLUSTER_LEAVING,
    /** {@code ActorSystem.terminate()}. */
    ACTOR_SYSTEM_TERMINATE,
    /** The JVM's shutdown hook (SIGTERM, {@code System.exit}). */
    JVM_EXIT,
    /** The cluster downed this node (or the cluster daemon stopped without a leave). */
    CLUSTER_DOWNING,
    /** This node could not join its seed nodes. */
    CLUSTER_JOIN_UNSUCCESSFUL,
    /** The cluster refused this node's configuration when it joined. */
    INCOMPATIBLE_CONFIGURATION,
    /** The application ran coordinated shutdown itself, with Pekko's unknown reason or its own. */
    APPLICATION
  }

  /**
   * How the node left.
   *
   * @param onPurpose it left on purpose: say so at INFO; otherwise warn
   * @param how for the log, worded to follow "This node ": "left on purpose (...)" or "was ..."
   */
  record Verdict(boolean onPurpose, String how) {}

  /** Pekko's reason, from {@code CoordinatedShutdown.getShutdownReason()}. */
  static ShutdownReason reason(Optional<CoordinatedShutdown.Reason> reason) {
    if (reason.isEmpty()) {
      return ShutdownReason.NONE;
    }
    CoordinatedShutdown.Reason r = reason.get();
    if (r == CoordinatedShutdown.clusterLeavingReason()) {
      return ShutdownReason.CLUSTER_LEAVING;
    } else if (r == CoordinatedShutdown.actorSystemTerminateReason()) {
      return ShutdownReason.ACTOR_SYSTEM_TERMINATE;
    } else if (r == CoordinatedShutdown.jvmExitReason()) {
      return ShutdownReason.JVM_EXIT;
    } else if (r == CoordinatedShutdown.clusterDowningReason()) {
      return ShutdownReason.CLUSTER_DOWNING;
    } else if (r == CoordinatedShutdown.clusterJoinUnsuccessfulReason()) {
      return ShutdownReason.CLUSTER_JOIN_UNSUCCESSFUL;
    } else if (r == CoordinatedShutdown.incompatibleConfigurationDetectedReason()) {
      return ShutdownReason.INCOMPATIBLE_CONFIGURATION;
    }
    return ShutdownReason.APPLICATION;
  }

  /**
   * The verdict on a node that is out of the cluster.
   *
   * @param how what the keeper saw ("downed", "removed", "shut down"), for a node put out
   * @param downed this node was seen Down: whoever downed it (the split-brain resolver, an
   *     operator), it was not a leave, even if it had begun one
   * @param quarantined another member quarantined this node: only a node that is downed or
   *     unreachable is, never one that leaves (its removal is a harmless quarantine that this node
   *     is not told of)
   * @param left this node was seen Leaving or Exiting (or preparing for a full-cluster shutdown):
   *     it was asked to leave, by itself or by an operator
   * @param reason what started this node's coordinated shutdown
   */
  static Verdict of(String how, boolean downed, boolean quarantined, boolean left, ShutdownReason reason) {
    if (downed) {
      return new Verdict(false, "was downed");
    }
    if (quarantined) {
      return new Verdict(false, "was " + how + " after another member quarantined it");
    }
    switch (reason) {
      case CLUSTER_DOWNING, CLUSTER_JOIN_UNSUCCESSFUL, INCOMPATIBLE_CONFIGURATION:
        return new Verdict(false, "was " + how);
      case CLUSTER_LEAVING:
        return new Verdict(true, "left on purpose (it was asked to leave the cluster)");
      case ACTOR_SYSTEM_TERMINATE:
        return new Verdict(true, "left on purpose (ActorSystem.terminate() ran its coordinated shutdown)");
      case JVM_EXIT:
        return new Verdict(true, "left on purpose (the JVM's shutdown hook, on SIGTERM or System.exit, ran its "
            + "coordinated shutdown)");
      case APPLICATION:
        return new Verdict(true, "left on purpose (the application ran its coordinated shutdown)");
      case NONE:
      default:
        // Out with no shutdown of its own started: a node that had begun to leave is removed as it
        // asked; one that had not was removed by the others (while unreachable, say).
        return left ? new Verdict(true, "left on purpose (it was asked to leave the cluster)")
            : new Verdict(false, "was " + how);
    }
  }
}
