package dev.shardkit.sharding.internal.telemetry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.shardkit.sharding.internal.TestRefs;
import dev.shardkit.sharding.internal.coordinator.CoordinatorNotice;
import dev.shardkit.sharding.internal.region.RegionNotice;
import dev.shardkit.sharding.spi.CoordinatorEvent;
import dev.shardkit.sharding.spi.ShardingEvent.Move;
import dev.shardkit.sharding.spi.ShardingEvent.MoveReason;
import dev.shardkit.sharding.spi.ShardingEvent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Notices to telemetry events: which notice reports what, with paths that name their node. */
class TelemetryEventsTest {
  @RegisterExtension static final TestRefs refs = new TestRefs();
  static final Address NODE = TestRefs.node(1);

  List<ShardingEvent> coordinator(CoordinatorNotice notice) {
    List<ShardingEvent> events = new ArrayList<>();
    TelemetryEvents.coordinator(notice, NODE, "T", events::add);
    return events;
  }

  @Test
  void aStoredWriteReportsItsLatencyAndTheShardsItPlaced() {
    ActorRef<Object> remote = refs.region(2);
    List<ShardingEvent> events = coordinator(new CoordinatorNotice.Stored(List.of(
        new CoordinatorEvent.RegionRegistered(remote), new CoordinatorEvent.ShardHomeAllocated("7", remote)),
        Duration.ofMillis(3)));
    assertEquals(List.of(new ShardingEvent.CoordinatorStoreWrite(NODE, "T", 2, Duration.ofMillis(3), null),
        new ShardingEvent.ShardPlaced(NODE, "T", "7", remote.path().toString())), events);
  }

  @Test
  void aFailedWriteNamesItsFailureAndPlacesNothing() {
    List<ShardingEvent> events = coordinator(new CoordinatorNotice.StoreFailed(List.of(
        new CoordinatorEvent.ShardHomeAllocated("7", refs.region(2))), new IllegalStateException("away"),
        Duration.ofSeconds(1), Duration.ofMillis(9)));
    assertEquals(List.of(new ShardingEvent.CoordinatorStoreWrite(NODE, "T", 1, Duration.ofMillis(9),
        "java.lang.IllegalStateException: away")), events);
  }

  @Test
  void aRoundNamesEachMoveWithItsRegionOnItsNodeAndItsReason() {
    ActorRef<Object> local = refs.local();
    ActorRef<Object> remote = refs.region(2);
    assertEquals(List.of(new ShardingEvent.RebalanceRound(NODE, "T", List.of(
            new Move("1", local.path().toStringWithAddress(NODE), MoveReason.STRATEGY),
            new Move("2", remote.path().toString(), MoveReason.STRATEGY)))),
        coordinator(new CoordinatorNotice.Rebalancing(List.of("1", "2"), List.of(local.path(), remote.path()))));
    assertEquals(List.of(new ShardingEvent.RebalanceRound(NODE, "T", List.of(
            new Move("3", remote.path().toString(), MoveReason.REGION_SHUTTING_DOWN)))),
        coordinator(new CoordinatorNotice.RegionShuttingDown(remote.path(), List.of("3"))));
  }

  @Test
  void regionNoticesWithoutAFactReportNothing() {
    assertNull(TelemetryEvents.region(RegionNotice.shuttingDown("T", 3), NODE, "T"));
    assertEquals(new ShardingEvent.HandOffFinished(NODE, "T", "s", Duration.ofMillis(5), 2),
        TelemetryEvents.region(RegionNotice.handedOff("T", "s", Duration.ofMillis(5), 2), NODE, "T"));
  }
}
