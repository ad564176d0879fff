package dev.shardkit.sharding.internal;

import dev.shardkit.sharding.spi.ShardingEvent;
import dev.shardkit.sharding.spi.ShardingTelemetry;
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
      var j = new JfrTelemetryEvents.CoordinatorStarted();
      if (!j.isEnabled()) {
        return null;
      }
      j.store = e.store();
      j.allocation = e.allocation();
      return j;
    } else if (event instanceof ShardingEvent.CoordinatorLoaded e) {
      var j = new JfrTelemetryEvents.CoordinatorLoaded();
      if (!j.isEnabled()) {
        return null;
      }
      j.term = e.term();
      j.regions = e.regions();
      j.shards = e.shards();
      j.forgotten = e.forgotten();
      return j;
    } else if (event instanceof ShardingEvent.CoordinatorFailed e) {
      var j = new JfrTelemetryEvents.CoordinatorFailed();
      if (!j.isEnabled()) {
        return null;
      }
      j.failure = e.failure();
      j.restartIn = e.restartIn().toMillis();
      return j;
    } else if (event instanceof ShardingEvent.CoordinatorSuperseded e) {
      var j = new JfrTelemetryEvents.CoordinatorSuperseded();
      if (!j.isEnabled()) {
        return null;
      }
      j.term = e.term();
      return j;
    } else if (event instanceof ShardingEvent.CoordinatorStoreWrite e) {
      var j = new JfrTelemetryEvents.CoordinatorStoreWrite();
      if (!j.isEnabled()) {
        return null;
      }
      j.changes = e.changes();
      j.latency = e.latency().toNanos();
      j.failure = e.failure();
      return j;
    } else if (event instanceof ShardingEvent.ShardPlaced e) {
      var j = new JfrTelemetryEvents.ShardPlaced();
      if (!j.isEnabled()) {
        return null;
      }
      j.shardId = e.shardId();
      j.region = e.region();
      return j;
    } else if (event instanceof ShardingEvent.RebalanceRound e) {
      var j = new JfrTelemetryEvents.RebalanceRound();
      if (!j.isEnabled()) {
        return null;
      }
      j.moveCount = e.moves().size();
      j.moves = e.moves().stream().map(m -> m.shardId() + ": " + m.from() + " (" + m.reason() + ")")
          .collect(Collectors.joining(", "));
      return j;
    } else if (event instanceof ShardingEvent.HandOffGivenUp e) {
      var j = new JfrTelemetryEvents.HandOffGivenUp();
      if (!j.isEnabled()) {
        return null;
      }
      j.shardId = e.shardId();
      j.region = e.region();
      j.timeout = e.timeout().toMillis();
      return j;
    } else if (event instanceof ShardingEvent.HandOffStarted e) {
      var j = new JfrTelemetryEvents.HandOffStarted();
      if (!j.isEnabled()) {
        return null;
      }
      j.shardId = e.shardId();
      return j;
    } else if (event instanceof ShardingEvent.HandOffFinished e) {
      var j = new JfrTelemetryEvents.HandOffFinished();
      if (!j.isEnabled()) {
        return null;
      }
      j.shardId = e.shardId();
      j.handOffDuration = e.duration().toNanos();
      j.held = e.held();
      return j;
    } else if (event instanceof ShardingEvent.HeldReleased e) {
      var j = new JfrTelemetryEvents.HeldReleased();
      if (!j.isEnabled()) {
        return null;
      }
      j.shardId = e.shardId();
      j.messages = e.messages();
      return j;
    } else if (event instanceof ShardingEvent.HomesTold e) {
      var j = new JfrTelemetryEvents.HomesTold();
      if (!j.isEnabled()) {
        return null;
      }
      j.region = e.region();
      j.told = e.told();
      j.term = e.term();
      j.learned = e.learned();
      j.placedHere = e.placedHere();
      return j;
    } else if (event instanceof ShardingEvent.RegionShutDown) {
      var j = new JfrTelemetryEvents.RegionShutDown();
      return j.isEnabled() ? j : null;
    } else if (event instanceof ShardingEvent.MessageDropped e) {
      var j = new JfrTelemetryEvents.MessageDropped();
      if (!j.isEnabled()) {
        return null;
      }
      j.reason = e.reason();
      return j;
    } else if (event instanceof ShardingEvent.GateClosed e) {
      var j = new JfrTelemetryEvents.GateClosed();
      if (!j.isEnabled()) {
        return null;
      }
      j.reason = e.reason();
      return j;
    } else if (event instanceof ShardingEvent.GateOpened e) {
      var j = new JfrTelemetryEvents.GateOpened();
      if (!j.isEnabled()) {
        return null;
      }
      j.confirmations = e.confirmations();
      j.closedFor = e.closedFor().toNanos();
      return j;
    } else if (event instanceof ShardingEvent.LinkResent e) {
      var j = new JfrTelemetryEvents.LinkResent();
      if (!j.isEnabled()) {
        return null;
      }
      j.destination = e.destination();
      j.batches = e.batches();
      j.reason = e.reason().name();
      return j;
    }
    return null;
  }
}
