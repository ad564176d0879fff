package dev.shardkit.sharding.internal.telemetry;

import dev.shardkit.sharding.spi.ShardingEvent;
import dev.shardkit.sharding.spi.ShardingTelemetry;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * The JDK Flight Recorder binding ({@code shardkit.sharding.telemetry.jfr}, on by default): each
 * {@link ShardingEvent} becomes the {@link JfrTelemetryEvents} event of its kind, committed only
 * if a recording has that event enabled; without a recording it costs a check per control-plane
 * event.
 */
final class JfrTelemetry implements ShardingTelemetry {

  @Override
  public void onEvent(ShardingEvent event) {
    JfrTelemetryEvents.Base jfr = of(event);
    if (jfr != null) {
      jfr.node = event.node().toString();
      if (jfr instanceof JfrTelemetryEvents.Typed typed && event instanceof ShardingEvent.Typed e) {
        typed.typeName = e.typeName();
      }
      jfr.commit();
    }
  }

  /** The JFR event for {@code event}, filled but for node and type; null if none is enabled. */
  private static JfrTelemetryEvents.Base of(ShardingEvent event) {
    if (event instanceof ShardingEvent.CoordinatorStarted e) {
      return ifEnabled(new JfrTelemetryEvents.CoordinatorStarted(), j -> {
        j.store = e.store();
        j.allocation = e.allocation();
      });
    } else if (event instanceof ShardingEvent.CoordinatorLoaded e) {
      return ifEnabled(new JfrTelemetryEvents.CoordinatorLoaded(), j -> {
        j.term = e.term();
        j.regions = e.regions();
        j.shards = e.shards();
        j.forgotten = e.forgotten();
      });
    } else if (event instanceof ShardingEvent.CoordinatorFailed e) {
      return ifEnabled(new JfrTelemetryEvents.CoordinatorFailed(), j -> {
        j.failure = e.failure();
        j.restartIn = e.restartIn().toMillis();
      });
    } else if (event instanceof ShardingEvent.CoordinatorSuperseded e) {
      return ifEnabled(new JfrTelemetryEvents.CoordinatorSuperseded(), j -> {
        j.term = e.term();
      });
    } else if (event instanceof ShardingEvent.CoordinatorStoreWrite e) {
      return ifEnabled(new JfrTelemetryEvents.CoordinatorStoreWrite(), j -> {
        j.changes = e.changes();
        j.latency = e.latency().toNanos();
        j.failure = e.failure();
      });
    } else if (event instanceof ShardingEvent.ShardPlaced e) {
      return ifEnabled(new JfrTelemetryEvents.ShardPlaced(), j -> {
        j.shardId = e.shardId();
        j.region = e.region();
      });
    } else if (event instanceof ShardingEvent.RebalanceRound e) {
      return ifEnabled(new JfrTelemetryEvents.RebalanceRound(), j -> {
        j.moveCount = e.moves().size();
        j.moves = e.moves().stream().map(m -> m.shardId() + ": " + m.from() + " (" + m.reason() + ")")
            .collect(Collectors.joining(", "));
      });
    } else if (event instanceof ShardingEvent.HandOffGivenUp e) {
      return ifEnabled(new JfrTelemetryEvents.HandOffGivenUp(), j -> {
        j.shardId = e.shardId();
        j.region = e.region();
        j.timeout = e.timeout().toMillis();
      });
    } else if (event instanceof ShardingEvent.HandOffStarted e) {
      return ifEnabled(new JfrTelemetryEvents.HandOffStarted(), j -> {
        j.shardId = e.shardId();
      });
    } else if (event instanceof ShardingEvent.HandOffFinished e) {
      return ifEnabled(new JfrTelemetryEvents.HandOffFinished(), j -> {
        j.shardId = e.shardId();
        j.handOffDuration = e.duration().toNanos();
        j.held = e.held();
      });
    } else if (event instanceof ShardingEvent.HeldReleased e) {
      return ifEnabled(new JfrTelemetryEvents.HeldReleased(), j -> {
        j.shardId = e.shardId();
        j.messages = e.messages();
      });
    } else if (event instanceof ShardingEvent.HomesTold e) {
      return ifEnabled(new JfrTelemetryEvents.HomesTold(), j -> {
        j.region = e.region();
        j.told = e.told();
        j.term = e.term();
        j.learned = e.learned();
        j.placedHere = e.placedHere();
      });
    } else if (event instanceof ShardingEvent.RegionShutDown) {
      return ifEnabled(new JfrTelemetryEvents.RegionShutDown(), j -> { });
    } else if (event instanceof ShardingEvent.MessageDropped e) {
      return ifEnabled(new JfrTelemetryEvents.MessageDropped(), j -> {
        j.reason = e.reason();
      });
    } else if (event instanceof ShardingEvent.GateClosed e) {
      return ifEnabled(new JfrTelemetryEvents.GateClosed(), j -> {
        j.reason = e.reason();
      });
    } else if (event instanceof ShardingEvent.GateOpened e) {
      return ifEnabled(new JfrTelemetryEvents.GateOpened(), j -> {
        j.confirmations = e.confirmations();
        j.closedFor = e.closedFor().toNanos();
      });
    } else if (event instanceof ShardingEvent.LinkResent e) {
      return ifEnabled(new JfrTelemetryEvents.LinkResent(), j -> {
        j.destination = e.destination();
        j.batches = e.batches();
        j.reason = e.reason().name();
      });
    }
    return null;
  }

  /** {@code j} filled by {@code fill} if a recording has it enabled; null otherwise. */
  private static <J extends JfrTelemetryEvents.Base> J ifEnabled(J j, Consumer<J> fill) {
    if (!j.isEnabled()) {
      return null;
    }
    fill.accept(j);
    return j;
  }
}
