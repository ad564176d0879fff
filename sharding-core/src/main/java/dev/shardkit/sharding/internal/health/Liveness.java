package dev.shardkit.sharding.internal.health;

import dev.shardkit.sharding.internal.InternalApi;
import java.util.List;

/**
 * Whether this node's sharding is alive, in the sense of a Kubernetes liveness probe: whether it
 * is in a state from which only a restart of the process brings it back. The decision behind
 * {@code dev.shardkit.sharding.ShardingLivenessCheck}. Pure.
 *
 * <p>A failed liveness probe restarts the container, so this decision is conservative: it fails
 * only for states that never heal while the actor system runs.
 *
 * <ul>
 *   <li><b>The node is out of the cluster</b> (its delivery gate closed for good: it was downed or
 *       removed, or its cluster membership shut down) while its coordinated shutdown has not begun.
 *       A Pekko actor system cannot join a cluster again once removed: its entities never process
 *       anything again and its regions have stopped. With Pekko's default
 *       {@code pekko.cluster.run-coordinated-shutdown-when-down = on} the shutdown begins at once,
 *       and this case lasts only a moment.
 *   <li><b>A region stopped without being asked to</b> (neither {@code gracefulShutdown} nor the
 *       node's coordinated shutdown asked it), while the node is not shutting down: its entity type
 *       cannot be started again on this node.
 * </ul>
 *
 * <p>Everything else is alive: a region still registering, a coordinator that moved or is away, a
 * delivery gate closed for a while, unreachable members. Those heal by themselves, and restarting
 * a node in such a moment would turn a short wait into lost work. A node whose coordinated
 * shutdown has begun is alive too: it is leaving on purpose, handing its shards off, and a restart
 * would cut that short.
 *
 * <p>Internal API: public only for the health checks in {@code dev.shardkit.sharding}.
 */
@InternalApi
public final class Liveness {

  private Liveness() {}

  /** @throws IllegalArgumentException if {@code node} is null */
  public static HealthVerdict decide(NodeHealth node) {
    if (node == null) {
      throw new IllegalArgumentException("Liveness.decide needs a NodeHealth, got null");
    }
    if (node.shuttingDown()) {
      return HealthVerdict.ok("alive: coordinated shutdown has begun, the node is leaving on purpose");
    }
    if (node.gate() == NodeHealth.Gate.DOWN) {
      return HealthVerdict.failed("this node was downed or removed from the cluster while its actor system still "
          + "runs: it can never be a member again, only a restart brings it back");
    }
    List<String> stoppedUnasked = Readiness.typeNames(node, r -> r.stopped() && !r.stopAsked());
    if (!stoppedUnasked.isEmpty()) {
      return HealthVerdict.failed("the region of entity type(s) " + stoppedUnasked + " stopped without being asked "
          + "to; the type cannot be started again on this node");
    }
    return HealthVerdict.ok("alive");
  }
}
