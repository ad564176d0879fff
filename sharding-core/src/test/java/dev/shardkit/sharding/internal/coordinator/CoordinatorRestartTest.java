package dev.shardkit.sharding.internal.coordinator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import dev.shardkit.sharding.LeastShardAllocationStrategy;
import dev.shardkit.sharding.RegionInfo;
import dev.shardkit.sharding.ShardAllocation;
import dev.shardkit.sharding.ShardAllocationStrategy;
import dev.shardkit.sharding.internal.TestRefs;
import dev.shardkit.sharding.internal.coordinator.ManualStateStore.Write;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.GetShardHome;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.Register;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.RegisterAck;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.ShardHome;
import dev.shardkit.sharding.spi.CoordinatorEvent.ShardHomeAllocated;
import dev.shardkit.sharding.spi.CoordinatorEvent;
import dev.shardkit.sharding.spi.CoordinatorState;
import dev.shardkit.sharding.spi.CoordinatorStateStore;
import dev.shardkit.sharding.spi.LoadedCoordinatorState;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Join;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A coordinator that fails starts again in place and reloads its state from the same store; the
 * answer to a write of the failed incarnation, arriving late, is not taken for the answer to the
 * new incarnation's write, so nothing is announced before the store holds it.
 */
class CoordinatorRestartTest {
  @RegisterExtension static final TestRefs refs = new TestRefs();

  @BeforeAll
  static void start() {
    // A member: the reloaded state's region must be on a node that has not left the cluster.
    Cluster cluster = Cluster.get(refs.testKit().system());
    cluster.manager().tell(new Join(cluster.selfMember().address()));
    TestProbe<Object> probe = refs.testKit().createTestProbe();
    probe.awaitAssert(Duration.ofSeconds(10), () -> {
      assertEquals(MemberStatus.up(), cluster.selfMember().status());
      return null;
    });
  }

  /** The default strategy, except that placing shard "boom" throws an undeclared checked exception. */
  private static final class BoomStrategy implements ShardAllocationStrategy {
    private final LeastShardAllocationStrategy least = new LeastShardAllocationStrategy(1, 20, 0.1);

    @Override
    public RegionInfo allocateShard(RegionInfo requester, String shardId, ShardAllocation allocation) {
      if (shardId.equals("boom")) {
        throw CoordinatorRestartTest.<RuntimeException>sneaky(new IOException("placing [boom] fails on purpose"));
      }
      return least.allocateShard(requester, shardId, allocation);
    }

    @Override
    public Set<String> rebalance(ShardAllocation allocation, Set<String> rebalanceInProgress) {
      return Set.of();
    }
  }

  /** A coordinator that settles at once, never rebalances, and restarts 100 ms after a failure. */
  private static ActorRef<Object> coordinator(String typeName, CoordinatorStateStore store) {
    return refs.coordinator(typeName, store, new BoomStrategy(), 0,
        s -> s.withCoordinatorFailureBackoff(Duration.ofMillis(100), Duration.ofMillis(100)));
  }

  @Test
  void aRestartedCoordinatorReloadsAndIgnoresTheLateAnswerToItsPredecessorsWrite() throws Exception {
    ManualStateStore store = new ManualStateStore(true);
    ActorRef<Object> coordinator = coordinator("restarting", store);
    TestProbe<Object> region = refs.testKit().createTestProbe(Object.class);
    store.nextLoad().complete(CoordinatorState.empty());
    coordinator.tell(new Register(region.ref(), Set.of()));
    Write registration = store.completeNext();
    assertInstanceOf(RegisterAck.class, region.receiveMessage());

    // s1's home is being written when the coordinator fails.
    coordinator.tell(new GetShardHome("s1", region.ref()));
    Write lost = store.next();
    assertEquals(List.of(new ShardHomeAllocated("s1", region.ref())), lost.events());
    coordinator.tell(new GetShardHome("boom", region.ref()));

    // The next incarnation loads again, from the same store, and finds what was stored.
    store.nextLoad().complete(registration.after());
    coordinator.tell(new GetShardHome("s1", region.ref()));
    Write again = store.next();
    assertEquals(List.of(new ShardHomeAllocated("s1", region.ref())), again.events());

    // The failed incarnation's write completes late: nothing may be announced for it.
    lost.done().complete(null);
    region.expectNoMessage(Duration.ofMillis(300));
    again.done().complete(null);
    assertEquals(new ShardHome("s1", region.ref(), 2), region.receiveMessage());
  }

  @Test
  void aCoordinatorWhoseStoreThrowsWhileLoadingStartsAgainAndLoads() throws Exception {
    ManualStateStore manual = new ManualStateStore(true);
    AtomicInteger loads = new AtomicInteger();
    // The first load throws from the call itself, not as a failed stage.
    CoordinatorStateStore store = new CoordinatorStateStore() {
      @Override
      public CompletionStage<LoadedCoordinatorState> load() {
        if (loads.incrementAndGet() == 1) {
          throw CoordinatorRestartTest.<RuntimeException>sneaky(new IOException("the first load fails on purpose"));
        }
        return manual.load();
      }

      @Override
      public CompletionStage<Void> store(List<CoordinatorEvent> events, CoordinatorState stateAfter) {
        return manual.store(events, stateAfter);
      }

      @Override
      public String describe() {
        return "throws on its first load";
      }
    };
    ActorRef<Object> coordinator = coordinator("load-fails", store);
    TestProbe<Object> region = refs.testKit().createTestProbe(Object.class);
    // Sent once its first load threw, so while it fails and waits to start again: kept for the
    // next incarnation.
    region.awaitAssert(Duration.ofSeconds(5), () -> {
      assertEquals(1, loads.get(), "the first load was tried");
      return null;
    });
    coordinator.tell(new Register(region.ref(), Set.of()));
    manual.nextLoad().complete(CoordinatorState.empty());
    manual.completeNext();
    assertInstanceOf(RegisterAck.class, region.receiveMessage());
    assertEquals(2, loads.get(), "loaded again after the failure");
  }

  @SuppressWarnings("unchecked")
  private static <T extends Throwable> RuntimeException sneaky(Throwable t) throws T {
    throw (T) t;
  }
}
