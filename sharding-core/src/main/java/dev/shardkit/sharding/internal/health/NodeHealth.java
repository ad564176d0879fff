package dev.shardkit.sharding.internal.health;

import dev.shardkit.sharding.internal.InternalApi;
import dev.shardkit.sharding.internal.StartedType;
import dev.shardkit.sharding.internal.gate.DeliveryGate;
import dev.shardkit.sharding.internal.gate.NodeGate;
import dev.shardkit.sharding.internal.region.RegionStatus;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.apache.pekko.actor.CoordinatedShutdown;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Adapter;

/**
 * What the health checks decide from: this node's sharding at one moment, read without asking any
 * actor. {@link Readiness} and {@link Liveness} decide on it; {@link #observe} reads it.
 *
 * <p>Internal API: public only for the health checks in {@code dev.shardkit.sharding}.
 *
 * @param shuttingDown the node's coordinated shutdown has begun (or its actor system has terminated)
 * @param gate the node's delivery gate; {@link Gate#OPEN} when no entity type was started, since
 *     there is no gate then and nothing waits behind one
 * @param regions every entity type started on the node ({@code start} or {@code startProxy}), one
 *     region each
 */
@InternalApi
public record NodeHealth(boolean shuttingDown, Gate gate, List<RegionStatus.Snapshot> regions) {

  /** The node's delivery gate, as the checks see it. */
  public enum Gate {
    /** Entities may process messages. */
    OPEN,
    /**
     * Closed for a while: the node was paused, others see it unreachable, or it was quarantined;
     * it opens again once the other members confirm the node is still one of them.
     */
    CLOSED,
    /** Closed for good: the node was downed or removed, or its cluster membership shut down. */
    DOWN
  }

  public NodeHealth {
    regions = List.copyOf(regions);
  }

  /**
   * Reads the node's state now: its coordinated shutdown, its delivery gate (only if sharding
   * started something, so a check never starts the gate itself), and each type's region status.
   */
  public static NodeHealth observe(ActorSystem<?> system, Collection<StartedType> types) {
    boolean shuttingDown = CoordinatedShutdown.get(Adapter.toClassic(system)).getShutdownReason().isPresent()
        || system.getWhenTerminated().toCompletableFuture().isDone();
    List<RegionStatus.Snapshot> regions = new ArrayList<>(types.size());
    for (StartedType type : types) {
      regions.add(type.status());
    }
    Gate gate = regions.isEmpty() ? Gate.OPEN : gateOf(NodeGate.get(system).gate());
    return new NodeHealth(shuttingDown, gate, regions);
  }

  private static Gate gateOf(DeliveryGate gate) {
    if (gate.state() == DeliveryGate.State.DOWN) {
      return Gate.DOWN;
    }
    // An expired lease (the node was paused, and the keeper has not closed the gate yet) counts
    // as closed, as it does for the entities' mailboxes.
    return gate.isOpen() ? Gate.OPEN : Gate.CLOSED;
  }
}
