package dev.shardkit.sharding.internal.telemetry;

import dev.shardkit.sharding.internal.InternalApi;
import dev.shardkit.sharding.internal.coordinator.CoordinatorNotice;
import dev.shardkit.sharding.internal.delivery.LinkNotice;
import dev.shardkit.sharding.internal.gate.GateNotice;
import dev.shardkit.sharding.internal.region.RegionNotice;
import dev.shardkit.sharding.spi.CoordinatorEvent;
import dev.shardkit.sharding.spi.ShardingEvent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.apache.pekko.actor.ActorPath;
import org.apache.pekko.actor.Address;

/**
 * The telemetry events the machines' notices report, one mapping per kind of notice: the shells
 * hand each notice here after logging it. A notice telemetry does not report maps to nothing.
 */
@InternalApi
public final class TelemetryEvents {
  private TelemetryEvents() {}

  /** The events a coordinator's notice reports, given to {@code emit} in order. */
  public static void coordinator(CoordinatorNotice notice, Address node, String typeName, Consumer<ShardingEvent> emit) {
    if (notice instanceof CoordinatorNotice.Started n) {
      emit.accept(new ShardingEvent.CoordinatorStarted(node, typeName, n.store(), n.allocation()));
    } else if (notice instanceof CoordinatorNotice.Loaded n) {
      emit.accept(new ShardingEvent.CoordinatorLoaded(node, typeName, n.term(), n.state().regions().size(),
          n.state().shards().size(), n.forgotten()));
    } else if (notice instanceof CoordinatorNotice.Failed n) {
      emit.accept(new ShardingEvent.CoordinatorFailed(node, typeName, String.valueOf(n.cause()), n.backoff()));
    } else if (notice instanceof CoordinatorNotice.Superseded n) {
      emit.accept(new ShardingEvent.CoordinatorSuperseded(node, typeName, n.term()));
    } else if (notice instanceof CoordinatorNotice.Stored n) {
      emit.accept(new ShardingEvent.CoordinatorStoreWrite(node, typeName, n.events().size(), n.latency(), null));
      for (CoordinatorEvent e : n.events()) {
        if (e instanceof CoordinatorEvent.ShardHomeAllocated a) {
          emit.accept(new ShardingEvent.ShardPlaced(node, typeName, a.shardId(), path(a.region().path(), node)));
        }
      }
    } else if (notice instanceof CoordinatorNotice.StoreFailed n) {
      emit.accept(new ShardingEvent.CoordinatorStoreWrite(node, typeName, n.events().size(), n.latency(),
          String.valueOf(n.failure())));
    } else if (notice instanceof CoordinatorNotice.Rebalancing n) {
      List<ShardingEvent.Move> moves = new ArrayList<>(n.moves().size());
      for (int i = 0; i < n.moves().size(); i++) {
        moves.add(new ShardingEvent.Move(n.moves().get(i), path(n.from().get(i), node),
            ShardingEvent.MoveReason.STRATEGY));
      }
      emit.accept(new ShardingEvent.RebalanceRound(node, typeName, List.copyOf(moves)));
    } else if (notice instanceof CoordinatorNotice.RegionShuttingDown n) {
      String from = path(n.region(), node);
      emit.accept(new ShardingEvent.RebalanceRound(node, typeName, n.shards().stream()
          .map(id -> new ShardingEvent.Move(id, from, ShardingEvent.MoveReason.REGION_SHUTTING_DOWN)).toList()));
    } else if (notice instanceof CoordinatorNotice.HandOffGivenUp n) {
      emit.accept(new ShardingEvent.HandOffGivenUp(node, typeName, n.shardId(), path(n.owner(), node), n.timeout()));
    }
  }

  /** The event a region's notice reports; null if none. */
  public static ShardingEvent region(RegionNotice notice, Address node, String typeName) {
    RegionNotice.Fact fact = notice.fact();
    if (fact instanceof RegionNotice.HandOffBegun f) {
      return new ShardingEvent.HandOffStarted(node, typeName, f.shardId());
    } else if (fact instanceof RegionNotice.HandedOff f) {
      return new ShardingEvent.HandOffFinished(node, typeName, f.shardId(), f.took(), f.held());
    } else if (fact instanceof RegionNotice.Released f) {
      return new ShardingEvent.HeldReleased(node, typeName, f.shardId(), f.messages());
    } else if (fact instanceof RegionNotice.ToldUpFront f) {
      return new ShardingEvent.HomesTold(node, typeName, f.region(), f.told(), f.term(), f.learned(), f.placedHere());
    } else if (fact instanceof RegionNotice.ShutDown) {
      return new ShardingEvent.RegionShutDown(node, typeName);
    }
    return null;
  }

  /** The event a gate keeper's notice reports; null if none. */
  public static ShardingEvent gate(GateNotice notice, Address node) {
    if (notice instanceof GateNotice.Closed n) {
      return new ShardingEvent.GateClosed(node, n.reason().render());
    } else if (notice instanceof GateNotice.Reopened n) {
      return new ShardingEvent.GateOpened(node, n.confirmations(), Duration.ofMillis(n.millis()));
    }
    return null;
  }

  /** The event a delivery link's notice reports. */
  public static ShardingEvent link(LinkNotice notice, Address node) {
    if (notice instanceof LinkNotice.ResentOverdue n) {
      return new ShardingEvent.LinkResent(node, path(n.destination().path(), node), n.batches(),
          ShardingEvent.ResendReason.TIMEOUT);
    }
    LinkNotice.ResentNow n = (LinkNotice.ResentNow) notice;
    return new ShardingEvent.LinkResent(node, path(n.destination().path(), node), n.batches(),
        n.why() == LinkNotice.Why.RECEIVER_ASKED ? ShardingEvent.ResendReason.RECEIVER_ASKED
            : ShardingEvent.ResendReason.REACHABLE_AGAIN);
  }

  /** The path with its node's address, also for an actor on this node. */
  private static String path(ActorPath path, Address node) {
    return path == null ? "" : path.toStringWithAddress(node);
  }
}
