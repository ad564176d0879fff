package dev.shardkit.sharding.internal.coordinator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.LeastShardAllocationStrategy;
import dev.shardkit.sharding.internal.TestRefs;
import dev.shardkit.sharding.internal.coordinator.ManualStateStore.Write;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.GetShardHome;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.Register;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.RegisterAck;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.ShardHome;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.ShardHomes;
import dev.shardkit.sharding.internal.wire.ShardingProtocol;
import dev.shardkit.sharding.spi.CoordinatorEvent.RegionRegistered;
import dev.shardkit.sharding.spi.CoordinatorEvent.ShardHomeAllocated;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The coordinator decides while a write is in flight and stores what it decided meanwhile in one
 * write; nobody hears of a decision before it is stored.
 */
class CoordinatorBatchingTest {
  @RegisterExtension static final TestRefs refs = new TestRefs();

  /** A coordinator that settles at once, never rebalances, and places {@code knownShards} up front. */
  private static ActorRef<Object> coordinator(String typeName, ManualStateStore store, int knownShards) {
    return refs.coordinator(typeName, store, new LeastShardAllocationStrategy(1, 20, 0.1), knownShards,
        s -> s.withHandOffTimeout(Duration.ofSeconds(10)));
  }

  @Test
  void homesDecidedDuringAWriteAreStoredTogetherAndAnnouncedAfterwards() throws Exception {
    ManualStateStore store = new ManualStateStore();
    ActorRef<Object> coordinator = coordinator("batching", store, 0);
    TestProbe<Object> region = refs.testKit().createTestProbe(Object.class);

    coordinator.tell(new Register(region.ref(), Set.of()));
    Write registration = store.next();
    assertEquals(List.of(new RegionRegistered(region.ref())), registration.events());

    // Fifty shards asked for while the registration is still being written.
    for (int i = 0; i < 50; i++) {
      coordinator.tell(new GetShardHome("s" + i, region.ref()));
    }
    region.expectNoMessage(Duration.ofMillis(300));
    assertTrue(store.writes.isEmpty(), "one write at a time");

    registration.done().complete(null);
    assertInstanceOf(RegisterAck.class, region.receiveMessage());
    Write homes = store.next();
    assertEquals(50, homes.events().size(), "the fifty homes go into one write: " + homes.events());
    Set<String> allocated = new HashSet<>();
    homes.events().forEach(e -> allocated.add(((ShardHomeAllocated) e).shardId()));
    assertEquals(50, allocated.size());
    region.expectNoMessage(Duration.ofMillis(300));

    homes.done().complete(null);
    Set<String> announced = new HashSet<>();
    for (int i = 0; i < 50; i++) {
      ShardHome home = (ShardHome) region.receiveMessage();
      assertEquals(region.ref(), home.region());
      announced.add(home.shardId());
    }
    assertEquals(allocated, announced);
    // Asking again for a stored home is answered at once, without a write.
    coordinator.tell(new GetShardHome("s7", region.ref()));
    assertEquals(new ShardHome("s7", region.ref(), 1), region.receiveMessage());
    assertTrue(store.writes.isEmpty());
  }

  @Test
  void knownShardsArePlacedUpFrontInOneWriteSoAFirstMessageNeedsNoWrite() throws Exception {
    ManualStateStore store = new ManualStateStore();
    ActorRef<Object> coordinator = refs.coordinator("up-front", store, new LeastShardAllocationStrategy(1, 20, 0.1),
        100, s -> s.withHandOffTimeout(Duration.ofSeconds(10)).withTellUpFrontHomes(true));
    TestProbe<Object> region = refs.testKit().createTestProbe(Object.class);
    coordinator.tell(new Register(region.ref(), Set.of()));
    Write registration = store.next();
    assertEquals(List.of(new RegionRegistered(region.ref())), registration.events());
    registration.done().complete(null);
    assertInstanceOf(RegisterAck.class, region.receiveMessage());
    // Decided with the registration, stored in the next write: every shard 0..99, once.
    Write placement = store.next();
    Set<String> placed = new HashSet<>();
    placement.events().forEach(e -> placed.add(((ShardHomeAllocated) e).shardId()));
    Set<String> expected = new HashSet<>();
    for (int i = 0; i < 100; i++) {
      expected.add(Integer.toString(i));
    }
    assertEquals(100, placement.events().size());
    assertEquals(expected, placed);
    region.expectNoMessage(Duration.ofMillis(300));
    placement.done().complete(null);
    // Once stored, the region learns every home in one message, at the coordinator's term.
    ShardHomes told = (ShardHomes) region.receiveMessage();
    assertEquals(1, told.term());
    assertEquals(expected, told.homes().keySet());
    assertTrue(told.homes().values().stream().allMatch(region.ref()::equals));
    region.expectNoMessage(Duration.ofMillis(300));

    coordinator.tell(new GetShardHome("42", region.ref()));
    assertEquals(new ShardHome("42", region.ref(), 1), region.receiveMessage());
    assertTrue(store.writes.isEmpty(), "a placed shard's home is answered without a write");
    // A shard outside the known ids is refused, not placed: the region is told why.
    coordinator.tell(new GetShardHome("extra", region.ref()));
    ShardingProtocol.ShardRefused refused = (ShardingProtocol.ShardRefused) region.receiveMessage();
    assertEquals("extra", refused.shardId());
    assertTrue(refused.reason().contains("[up-front]") && refused.reason().contains("0 to 99"), refused.reason());
    assertTrue(store.writes.isEmpty(), "nothing is stored for a refused shard");

    // A region that registers later hears every stored home right behind its acknowledgement.
    // (Its share of the shards nobody started is offered to it next, by hand-offs if unstarted:
    // ToldHomesJoinTest and the Placement tests cover that; this test asks nothing after it.)
    TestProbe<Object> later = refs.testKit().createTestProbe(Object.class);
    coordinator.tell(new Register(later.ref(), Set.of()));
    store.next().done().complete(null);
    assertEquals(new RegisterAck(coordinator, 1), later.receiveMessage());
    assertEquals(new ShardHomes(told.homes(), 1), later.receiveMessage());
  }

  @Test
  void aRegionThatRegistersAgainIsNotToldEveryHomeAgain() throws Exception {
    ManualStateStore store = new ManualStateStore();
    ActorRef<Object> coordinator = refs.coordinator("told-once", store, new LeastShardAllocationStrategy(1, 20, 0.1),
        100, s -> s.withHandOffTimeout(Duration.ofSeconds(10)).withTellUpFrontHomes(true));
    TestProbe<Object> region = refs.testKit().createTestProbe(Object.class);
    coordinator.tell(new Register(region.ref(), Set.of()));
    store.next().done().complete(null);
    assertInstanceOf(RegisterAck.class, region.receiveMessage());
    Write placement = store.next();
    assertEquals(100, placement.events().size());
    // Registrations the region repeated while it looked for the coordinator arrive late: one while
    // the placement is being written, one after.
    coordinator.tell(new Register(region.ref(), Set.of()));
    placement.done().complete(null);
    assertEquals(100, ((ShardHomes) region.receiveMessage()).homes().size(), "the placement, told once");
    assertEquals(new RegisterAck(coordinator, 1), region.receiveMessage());
    coordinator.tell(new Register(region.ref(), Set.of()));
    assertEquals(new RegisterAck(coordinator, 1), region.receiveMessage());
    region.expectNoMessage(Duration.ofMillis(300));
    assertTrue(store.writes.isEmpty(), "a repeated registration stores nothing");
  }

  @Test
  void messagesWithoutTheirIdsOrRefsAreDroppedAndTheCoordinatorGoesOnServing() throws Exception {
    ManualStateStore store = new ManualStateStore();
    ActorRef<Object> coordinator = coordinator("guarded", store, 0);
    TestProbe<Object> region = refs.registeredRegion(coordinator, store);
    // Locally sent (no serializer checks them): each would throw in a handler.
    coordinator.tell(new GetShardHome("a", null));
    coordinator.tell(new GetShardHome("", region.ref()));
    coordinator.tell(new GetShardHome(null, region.ref()));
    coordinator.tell(new Register(null, Set.of()));
    coordinator.tell(new ShardingProtocol.ShardStopped("a", null, 1));
    region.expectNoMessage(Duration.ofMillis(200));
    assertTrue(store.writes.isEmpty(), "nothing is decided for them");
    coordinator.tell(new GetShardHome("a", region.ref()));
    Write write = store.next();
    assertEquals(List.of(new ShardHomeAllocated("a", region.ref())), write.events());
    write.done().complete(null);
    assertEquals(new ShardHome("a", region.ref(), 1), region.receiveMessage());
  }

  @Test
  void beyondMaxShardsANewShardIsRefusedAndOneWithAHomeIsStillServed() throws Exception {
    ManualStateStore store = new ManualStateStore();
    ActorRef<Object> coordinator = refs.coordinator("capped", store, new LeastShardAllocationStrategy(1, 20, 0.1), 0,
        s -> s.withMaxShards(1));
    TestProbe<Object> region = refs.registeredRegion(coordinator, store);
    coordinator.tell(new GetShardHome("a", region.ref()));
    store.next().done().complete(null);
    assertEquals(new ShardHome("a", region.ref(), 1), region.receiveMessage());
    coordinator.tell(new GetShardHome("b", region.ref()));
    ShardingProtocol.ShardRefused refused = (ShardingProtocol.ShardRefused) region.receiveMessage();
    assertTrue(refused.shardId().equals("b") && refused.reason().contains("[capped]")
        && refused.reason().contains("shardkit.sharding.max-shards = 1"), refused.reason());
    assertTrue(store.writes.isEmpty(), "nothing is stored for a refused shard");
    coordinator.tell(new GetShardHome("a", region.ref()));
    assertEquals(new ShardHome("a", region.ref(), 1), region.receiveMessage());
  }

  @Test
  void aFailedWriteIsRetriedTogetherWithWhatWasDecidedMeanwhile() throws Exception {
    ManualStateStore store = new ManualStateStore();
    ActorRef<Object> coordinator = coordinator("retrying", store, 0);
    TestProbe<Object> region = refs.testKit().createTestProbe(Object.class);
    coordinator.tell(new Register(region.ref(), Set.of()));
    store.next().done().complete(null);
    region.expectMessageClass(RegisterAck.class);

    coordinator.tell(new GetShardHome("a", region.ref()));
    Write first = store.next();
    // Reaches the coordinator's mailbox before the failure does.
    coordinator.tell(new GetShardHome("b", region.ref()));
    first.done().completeExceptionally(new IllegalStateException("database away"));
    // The retry (after the first back-off) carries both homes.
    Write retry = store.next();
    assertEquals(2, retry.events().size(), "retried with what was decided meanwhile: " + retry.events());
    region.expectNoMessage(Duration.ofMillis(200));
    retry.done().complete(null);
    Set<String> announced = new HashSet<>();
    announced.add(((ShardHome) region.receiveMessage()).shardId());
    announced.add(((ShardHome) region.receiveMessage()).shardId());
    assertEquals(Set.of("a", "b"), announced);
  }
}
