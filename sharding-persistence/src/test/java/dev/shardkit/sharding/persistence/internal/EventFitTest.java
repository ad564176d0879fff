package dev.shardkit.sharding.persistence.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.spi.CoordinatorEvent;
import dev.shardkit.sharding.spi.CoordinatorEvent.ProxyRegistered;
import dev.shardkit.sharding.spi.CoordinatorEvent.ProxyTerminated;
import dev.shardkit.sharding.spi.CoordinatorEvent.RegionRegistered;
import dev.shardkit.sharding.spi.CoordinatorEvent.RegionTerminated;
import dev.shardkit.sharding.spi.CoordinatorEvent.ShardHomeAllocated;
import dev.shardkit.sharding.spi.CoordinatorEvent.ShardHomeDeallocated;
import dev.shardkit.sharding.spi.CoordinatorState;
import java.util.List;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class EventFitTest {
  private static ActorTestKit testKit;
  private static ActorRef<Object> r1;
  private static ActorRef<Object> r2;
  private static ActorRef<Object> p1;

  @BeforeAll
  static void start() {
    testKit = ActorTestKit.create();
    // Probes only provide distinct, real references; no messages are exchanged.
    r1 = testKit.createTestProbe(Object.class).ref();
    r2 = testKit.createTestProbe(Object.class).ref();
    p1 = testKit.createTestProbe(Object.class).ref();
  }

  @AfterAll
  static void stop() {
    testKit.shutdownTestKit();
  }

  private static CoordinatorState state(CoordinatorEvent... events) {
    CoordinatorState s = CoordinatorState.empty();
    for (CoordinatorEvent e : events) {
      s = s.applied(e);
    }
    return s;
  }

  @Test
  void anEventThatChangesTheStateApplies() {
    CoordinatorState before = state(new RegionRegistered(r1));
    ShardHomeAllocated e = new ShardHomeAllocated("7", r1);
    EventFit.Applies fit = assertInstanceOf(EventFit.Applies.class, EventFit.of(before, e));
    assertEquals(before.applied(e), fit.after());
  }

  @Test
  void everyEventAppliedTwiceIsAlreadyReflectedTheSecondTime() {
    List<CoordinatorEvent> events = List.of(new RegionRegistered(r1), new ProxyRegistered(p1),
        new ShardHomeAllocated("1", r1), new ShardHomeDeallocated("1"), new ProxyTerminated(p1),
        new RegionTerminated(r1));
    CoordinatorState s = CoordinatorState.empty();
    for (CoordinatorEvent e : events) {
      s = assertInstanceOf(EventFit.Applies.class, EventFit.of(s, e), "first " + e).after();
      assertInstanceOf(EventFit.AlreadyReflected.class, EventFit.of(s, e), "second " + e);
    }
  }

  @Test
  void aShardGivenAnotherHomeConflicts() {
    CoordinatorState s = state(new RegionRegistered(r1), new RegionRegistered(r2), new ShardHomeAllocated("1", r1));
    EventFit.Conflicts fit = assertInstanceOf(EventFit.Conflicts.class,
        EventFit.of(s, new ShardHomeAllocated("1", r2)));
    assertTrue(fit.reason().contains("already has a home"), fit.reason());
  }

  @Test
  void aShardAllocatedToAnUnknownRegionConflicts() {
    EventFit.Conflicts fit = assertInstanceOf(EventFit.Conflicts.class,
        EventFit.of(CoordinatorState.empty(), new ShardHomeAllocated("1", r1)));
    assertTrue(fit.reason().contains("unregistered region"), fit.reason());
  }

  @Test
  void aRegionTerminatedAfterItsShardsWereReallocatedIsStillReflected() {
    // A terminated region is gone with its shards; a repeated termination changes nothing.
    CoordinatorState s = state(new RegionRegistered(r1), new ShardHomeAllocated("1", r1), new RegionTerminated(r1),
        new RegionRegistered(r2), new ShardHomeAllocated("1", r2));
    assertInstanceOf(EventFit.AlreadyReflected.class, EventFit.of(s, new RegionTerminated(r1)));
  }
}
