package dev.shardkit.sharding.internal.coordinator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import dev.shardkit.sharding.CoordinatorBacklog;
import dev.shardkit.sharding.LeastShardAllocationStrategy;
import dev.shardkit.sharding.internal.TestRefs;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.GetShardHome;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.Register;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.RegisterAck;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.ShardHome;
import dev.shardkit.sharding.spi.CoordinatorEvent.RegionRegistered;
import dev.shardkit.sharding.spi.CoordinatorEvent.ShardHomeAllocated;
import dev.shardkit.sharding.spi.CoordinatorState;
import java.util.List;
import java.util.Set;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.LoggingTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * While the coordinator loads its state, requests wait (a repeated one once), and a failed load is
 * tried again; once loaded, the requests are handled in the order they came.
 */
class CoordinatorLoadingTest {
  @RegisterExtension static final TestRefs refs = new TestRefs();

  @Test
  void requestsWaitForTheLoadOnceEachAndAFailedLoadIsTriedAgain() throws Exception {
    ActorTestKit testKit = refs.testKit();
    ManualStateStore store = new ManualStateStore(true);
    ActorRef<Object> coordinator = refs.coordinator("loading", store, new LeastShardAllocationStrategy(), 0, s -> s);
    TestProbe<Object> region = testKit.createTestProbe(Object.class);

    store.nextLoad().completeExceptionally(new IllegalStateException("store unavailable"));
    coordinator.tell(new Register(region.ref(), Set.of()));
    coordinator.tell(new Register(region.ref(), Set.of()));
    coordinator.tell(new GetShardHome("a", region.ref()));
    store.nextLoad().complete(CoordinatorState.empty());

    assertEquals(List.of(new RegionRegistered(region.ref())), store.completeNext().events());
    assertInstanceOf(RegisterAck.class, region.receiveMessage());
    assertEquals(List.of(new ShardHomeAllocated("a", region.ref())), store.completeNext().events());
    assertEquals(new ShardHome("a", region.ref(), 2), region.receiveMessage(),
        "acknowledged once: the repeated registration waited only once");
  }

  @Test
  void requestsBeyondTheStashAreRefusedCountedAndWarnedAboutOncePerLoad() throws Exception {
    ActorTestKit testKit = refs.testKit();
    ManualStateStore store = new ManualStateStore(true);
    // A buffer size of 0 leaves the stash at its floor of 1000.
    ActorRef<Object> coordinator = refs.coordinator("stash-full", store, new LeastShardAllocationStrategy(), 0,
        s -> s.withBufferSize(0));
    TestProbe<Object> region = testKit.createTestProbe(Object.class);
    LoggingTestKit.warn("its stash of 1000 messages").withMessageContains("[stash-full]").withOccurrences(1)
        .expect(testKit.system(), () -> {
          for (int i = 0; i < 1010; i++) {
            coordinator.tell(new GetShardHome("s" + i, region.ref()));
          }
          return null;
        });
    store.nextLoad().complete(CoordinatorState.empty());
    TestProbe<CoordinatorBacklog> backlog = testKit.createTestProbe(CoordinatorBacklog.class);
    coordinator.tell(new ShardCoordinator.GetBacklog(backlog.ref()));
    assertEquals(10, backlog.receiveMessage().refusedRequests(), "the ten beyond the stash were counted");
  }
}
