package dev.shardkit.sharding.internal.health;

import dev.shardkit.sharding.internal.InternalApi;
import dev.shardkit.sharding.internal.region.RegionStatus;
import java.util.List;
import java.util.function.Predicate;

/**
 * Whether this node's sharding is ready to serve: the decision behind
 * {@code dev.shardkit.sharding.ShardingReadinessCheck}. Pure.
 *
 * <p>Two kinds of conditions count. Those that never heal by themselves always do: coordinated
 * shutdown has begun, the node is out of the cluster, a region was asked to stop or has stopped.
 * Those that heal by themselves count only while {@code registrationChecked}: a region still
 * registering (none yet, or again after its coordinator moved) and a delivery gate closed for a
 * while. Past the start-up window ({@link ReadinessWindow}) they no longer do, so that a
 * coordinator moving, or a gate closing on every node at once in a partition, does not take every
 * node out of service together, while the routes they know keep working.
 *
 * <p>Internal API: public only for the health checks in {@code dev.shardkit.sharding}.
 */
@InternalApi
public final class Readiness {

  private Readiness() {}

  /**
   * @param registrationChecked whether registration and the gate count (the start-up window is open)
   * @throws IllegalArgumentException if {@code node} is null
   */
  public static HealthVerdict decide(NodeHealth node, boolean registrationChecked) {
    if (node == null) {
      throw new IllegalArgumentException("Readiness.decide needs a NodeHealth, got null");
    }
    if (node.shuttingDown()) {
      return HealthVerdict.failed("coordinated shutdown has begun: this node is leaving");
    }
    if (node.gate() == NodeHealth.Gate.DOWN) {
      return HealthVerdict.failed("this node is no longer a member of the cluster (downed or removed)");
    }
    List<String> stopping = typeNames(node, r -> r.stopAsked() || r.stopped());
    if (!stopping.isEmpty()) {
      return HealthVerdict.failed("the region of entity type(s) " + stopping + " is shutting down or has stopped");
    }
    if (!registrationChecked) {
      return HealthVerdict.ok("ready: past the start-up window, only shutdown, membership and stopped regions count");
    }
    if (node.gate() == NodeHealth.Gate.CLOSED) {
      return HealthVerdict.failed("the delivery gate is closed until the other members confirm that this node is "
          + "still one of them");
    }
    List<String> registering = typeNames(node, r -> r.registered().isEmpty());
    if (!registering.isEmpty()) {
      return HealthVerdict.failed("the region of entity type(s) " + registering
          + " has not registered with a coordinator yet");
    }
    return HealthVerdict.ok(node.regions().isEmpty() ? "ready: no entity type started"
        : "ready: the region of every entity type " + typeNames(node, r -> true) + " is registered");
  }

  /** The names of the types whose region matches, sorted so that the same state reads the same. */
  static List<String> typeNames(NodeHealth node, Predicate<RegionStatus.Snapshot> which) {
    return node.regions().stream().filter(which).map(RegionStatus.Snapshot::typeName).sorted().toList();
  }
}
