package dev.shardkit.sharding.internal.coordinator;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.shardkit.sharding.LeastShardAllocationStrategy;
import dev.shardkit.sharding.internal.TestRefs;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.GetShardHome;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.Register;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.RegisterAck;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.ShardHome;
import dev.shardkit.sharding.spi.CoordinatorEvent.RegionRegistered;
import dev.shardkit.sharding.spi.CoordinatorEvent.ShardHomeAllocated;
import dev.shardkit.sharding.spi.CoordinatorState;
import dev.shardkit.sharding.spi.CoordinatorStateSupersededException;
import java.util.List;
import java.util.Set;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A coordinator whose write the store refuses as superseded (another coordinator took over) tells
 * nothing it decided from its stale state, does not retry the write, and loads again: with the
 * new term it serves again.
 */
class CoordinatorSupersededTest {
  @RegisterExtension static final TestRefs refs = new TestRefs();

  @Test
  void aSupersededWriteIsNotRetriedAndTheCoordinatorLoadsAgainUnderANewTerm() throws Exception {
    ActorTestKit testKit = refs.testKit();
    ManualStateStore store = new ManualStateStore(true);
    ActorRef<Object> coordinator = refs.coordinator("superseded", store, new LeastShardAllocationStrategy(), 0, s -> s);
    TestProbe<Object> region = testKit.createTestProbe(Object.class);

    store.nextLoad().complete(CoordinatorState.empty());
    coordinator.tell(new Register(region.ref(), Set.of()));
    assertEquals(List.of(new RegionRegistered(region.ref())), store.completeNext().events());
    assertEquals(new RegisterAck(coordinator, 1), region.receiveMessage());

    coordinator.tell(new GetShardHome("a", region.ref()));
    ManualStateStore.Write refused = store.next();
    assertEquals(List.of(new ShardHomeAllocated("a", region.ref())), refused.events());
    refused.done().completeExceptionally(new CoordinatorStateSupersededException("taken over by term 7"));

    // It loads again instead of writing the refused home again, and never announces that home.
    // The successor stored nothing this test needs: the state loaded again is empty.
    store.nextLoad().complete(CoordinatorState.empty());

    // Loaded again as term 2 (the second load), it serves from the stored state: the region
    // registers again, and the next write is that registration, not the refused one.
    coordinator.tell(new Register(region.ref(), Set.of()));
    coordinator.tell(new GetShardHome("a", region.ref()));
    assertEquals(List.of(new RegionRegistered(region.ref())), store.completeNext().events(),
        "the refused write was not retried");
    assertEquals(new RegisterAck(coordinator, 2), region.receiveMessage(), "nothing was told from the stale state");
    assertEquals(List.of(new ShardHomeAllocated("a", region.ref())), store.completeNext().events());
    assertEquals(new ShardHome("a", region.ref(), 2), region.receiveMessage());
  }
}
