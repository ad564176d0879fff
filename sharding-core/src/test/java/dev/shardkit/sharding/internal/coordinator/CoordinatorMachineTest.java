package dev.shardkit.sharding.internal.coordinator;

import static dev.shardkit.sharding.internal.TestRefs.node;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.CoordinatorBacklog;
import dev.shardkit.sharding.LeastShardAllocationStrategy;
import dev.shardkit.sharding.internal.TestRefs;
import dev.shardkit.sharding.internal.coordinator.CoordinatorEffect.Announce;
import dev.shardkit.sharding.internal.coordinator.CoordinatorEffect.Load;
import dev.shardkit.sharding.internal.coordinator.CoordinatorEffect.Report;
import dev.shardkit.sharding.internal.coordinator.CoordinatorEffect.Send;
import dev.shardkit.sharding.internal.coordinator.CoordinatorEffect.StartTimer;
import dev.shardkit.sharding.internal.coordinator.CoordinatorEffect.Store;
import dev.shardkit.sharding.internal.coordinator.CoordinatorInput.Protocol;
import dev.shardkit.sharding.internal.coordinator.CoordinatorMachine.Phase;
import dev.shardkit.sharding.internal.membership.ClusterChange;
import dev.shardkit.sharding.internal.membership.MembersFold;
import dev.shardkit.sharding.internal.util.ShardIdBounds;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.BeginHandOff;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.GetShardHome;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.GracefulShutdownReq;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.Register;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.RegisterAck;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.ShardHome;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.ShardHomes;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.ShardRefused;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.ShardStopped;
import dev.shardkit.sharding.internal.wire.ShardingProtocol;
import dev.shardkit.sharding.spi.CoordinatorEvent.RegionRegistered;
import dev.shardkit.sharding.spi.CoordinatorEvent.RegionTerminated;
import dev.shardkit.sharding.spi.CoordinatorEvent.ShardHomeAllocated;
import dev.shardkit.sharding.spi.CoordinatorEvent.ShardHomeDeallocated;
import dev.shardkit.sharding.spi.CoordinatorEvent;
import dev.shardkit.sharding.spi.CoordinatorState;
import dev.shardkit.sharding.spi.CoordinatorStateSupersededException;
import dev.shardkit.sharding.spi.LoadedCoordinatorState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorRefResolver;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.UniqueAddress;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The coordinator's decisions, input by input: the effects each input gives. */
class CoordinatorMachineTest {
  @RegisterExtension static final TestRefs refs = new TestRefs();

  private static final Duration SETTLE = Duration.ofSeconds(3);
  private static final Duration MARGIN = Duration.ofSeconds(5);
  private static final Duration HAND_OFF = Duration.ofSeconds(10);

  private static ActorRef<Object> r(int n) {
    return refs.region(n);
  }

  private static ActorRef<Object> coordinatorRef() {
    return ActorRefResolver.get(refs.testKit().system())
        .resolveActorRef(node(1) + "/system/shardkit-coordinator-Test/singleton");
  }

  private static ClusterChange.Node member(int n, MemberStatus status) {
    return new ClusterChange.Node(new UniqueAddress(node(n), n), status, Set.of(), n, "0.0.0");
  }

  private static ClusterChange.Members members(ClusterChange.Node... nodes) {
    return new ClusterChange.Members(List.of(nodes), Set.of());
  }

  private static ClusterChange.Members up(int... nodes) {
    List<ClusterChange.Node> members = new ArrayList<>();
    for (int n : nodes) {
      members.add(member(n, MemberStatus.up()));
    }
    return new ClusterChange.Members(members, Set.of());
  }

  private static CoordinatorConfig config(int knownShards, boolean tellsHomes) {
    return new CoordinatorConfig("Test", Optional.empty(), new LeastShardAllocationStrategy(1, 20, 0.1), knownShards,
        new ShardIdBounds("Test", knownShards, 100_000, null), false, tellsHomes, SETTLE, Duration.ofSeconds(10),
        HAND_OFF, MARGIN, 1000, 10, node(1), "test store");
  }

  /** A machine and its clock, fed input by input; hand-off ids count from 1. */
  private static final class Driven {
    final CoordinatorMachine machine;
    /** The timers started so far, each with its latest generation. */
    final java.util.Map<CoordinatorTimer, Long> timers = new java.util.HashMap<>();
    /** The id of the last write started. */
    long lastStore;
    long now;

    Driven(CoordinatorConfig config, long incarnation, MembersFold members) {
      AtomicInteger ids = new AtomicInteger();
      machine = new CoordinatorMachine(config, coordinatorRef(), incarnation, ids::incrementAndGet, members);
    }

    Driven(CoordinatorConfig config) {
      this(config, 0, new MembersFold(node(1)));
    }

    List<CoordinatorEffect> handle(CoordinatorInput input) {
      now += 1_000_000;
      List<CoordinatorEffect> effects = List.copyOf(machine.handle(input, now));
      all(effects, StartTimer.class).forEach(t -> timers.put(t.key(), t.generation()));
      all(effects, Store.class).forEach(w -> lastStore = w.writeId());
      return effects;
    }

    /** The latest timer of {@code key} fires. */
    List<CoordinatorEffect> fire(CoordinatorTimer key) {
      Long generation = timers.get(key);
      assertTrue(generation != null, "no " + key + " was started");
      return handle(new CoordinatorInput.TimerFired(key, generation));
    }

    List<CoordinatorEffect> protocol(ShardingProtocol message) {
      return handle(new Protocol(message));
    }

    /**
     * The load that {@code effects} lead to: the machine waits for the node's delivery gate, which
     * is open here, before it loads.
     */
    Load loadAfterGate(List<CoordinatorEffect> effects) {
      only(effects, CoordinatorEffect.AwaitGate.class);
      assertFalse(has(effects, e -> e instanceof Load), "no load before the gate is open");
      return only(handle(new CoordinatorInput.GateOpened()), Load.class);
    }

    /** Membership, start, and the load of {@code state} at term 1. */
    List<CoordinatorEffect> loaded(ClusterChange.Members members, CoordinatorState state) {
      handle(new CoordinatorInput.Membership(members));
      Load load = loadAfterGate(handle(new CoordinatorInput.Start()));
      return handle(new CoordinatorInput.Loaded(load.attempt(), new LoadedCoordinatorState(1, state)));
    }

    /** Completes the one write among {@code effects}. */
    List<CoordinatorEffect> stored(List<CoordinatorEffect> effects) {
      return handle(new CoordinatorInput.Stored(only(effects, Store.class).writeId()));
    }

    /** The timer started among {@code effects} fires. */
    List<CoordinatorEffect> fire(List<CoordinatorEffect> effects, Class<? extends CoordinatorTimer> key) {
      StartTimer timer = all(effects, StartTimer.class).stream().filter(t -> key.isInstance(t.key())).findFirst()
          .orElseThrow(() -> new AssertionError("no " + key.getSimpleName() + " started: " + effects));
      return handle(new CoordinatorInput.TimerFired(timer.key(), timer.generation()));
    }

    /** A region registers and its registration is stored; the effects of storing it. */
    List<CoordinatorEffect> registered(ActorRef<Object> region, Set<String> hosted) {
      return stored(protocol(new Register(region, hosted)));
    }
  }

  private static <T> List<T> all(List<CoordinatorEffect> effects, Class<T> type) {
    return effects.stream().filter(type::isInstance).map(type::cast).toList();
  }

  private static <T> T only(List<CoordinatorEffect> effects, Class<T> type) {
    List<T> found = all(effects, type);
    assertEquals(1, found.size(), "one " + type.getSimpleName() + " in " + effects);
    return found.get(0);
  }

  /** The messages sent to {@code to}, in order. */
  private static List<ShardingProtocol> sentTo(List<CoordinatorEffect> effects, ActorRef<Object> to) {
    return all(effects, Send.class).stream().filter(s -> s.to().equals(to)).map(Send::message).toList();
  }

  private static <T> List<T> sent(List<CoordinatorEffect> effects, Class<T> type) {
    return all(effects, Send.class).stream().map(Send::message).filter(type::isInstance).map(type::cast).toList();
  }

  private static boolean reports(List<CoordinatorEffect> effects, Class<? extends CoordinatorNotice> type) {
    return all(effects, Report.class).stream().anyMatch(r -> type.isInstance(r.notice()));
  }

  private static List<CoordinatorEvent> events(List<CoordinatorEffect> effects) {
    return only(effects, Store.class).events();
  }

  private static boolean has(List<CoordinatorEffect> effects, Predicate<CoordinatorEffect> p) {
    return effects.stream().anyMatch(p);
  }

  // ---- loading

  @Test
  void itLoadsOnceTheMembershipIsKnownAndAnnouncesItselfToEveryHostingNode() {
    Driven d = new Driven(config(0, false));
    List<CoordinatorEffect> start = d.handle(new CoordinatorInput.Start());
    assertTrue(reports(start, CoordinatorNotice.Started.class));
    Load load = d.loadAfterGate(start);
    List<CoordinatorEffect> early = d.handle(new CoordinatorInput.Loaded(load.attempt(),
        new LoadedCoordinatorState(7, CoordinatorState.empty())));
    assertEquals(List.of(), early, "nothing is decided before the members are known");
    assertEquals(Phase.LOADING, d.machine.phase());
    List<CoordinatorEffect> known = d.handle(new CoordinatorInput.Membership(up(1, 2)));
    assertTrue(reports(known, CoordinatorNotice.Loaded.class));
    Announce announce = only(known, Announce.class);
    assertEquals(List.of(node(1), node(2)), announce.nodes());
    assertEquals(new RegisterAck(coordinatorRef(), 7), announce.hello());
    assertEquals(SETTLE, only(known, StartTimer.class).delay(), "settling waits for both regions");
    assertEquals(Phase.SETTLING, d.machine.phase());
  }

  @Test
  void aFailedLoadIsRetriedAfterTheBackOffAndAStaleAnswerIsIgnored() {
    Driven d = new Driven(config(0, false));
    d.handle(new CoordinatorInput.Membership(up(1)));
    Load first = d.loadAfterGate(d.handle(new CoordinatorInput.Start()));
    List<CoordinatorEffect> failed = d.handle(new CoordinatorInput.LoadFailed(first.attempt(),
        new IllegalStateException("away")));
    assertTrue(reports(failed, CoordinatorNotice.LoadFailed.class));
    assertEquals(Duration.ofMillis(100), only(failed, StartTimer.class).delay());
    Load second = d.loadAfterGate(d.fire(failed, CoordinatorTimer.RetryLoad.class));
    assertNotEquals(first.attempt(), second.attempt());
    List<CoordinatorEffect> stale = d.handle(new CoordinatorInput.Loaded(first.attempt(),
        new LoadedCoordinatorState(1, CoordinatorState.empty())));
    assertFalse(has(stale, e -> e instanceof Announce), "an answer to the first attempt is not the load");
    assertEquals(Phase.LOADING, d.machine.phase());
    List<CoordinatorEffect> loaded = d.handle(new CoordinatorInput.Loaded(second.attempt(),
        new LoadedCoordinatorState(1, CoordinatorState.empty())));
    assertTrue(has(loaded, e -> e instanceof Announce));
    assertEquals(Phase.SETTLING, d.machine.phase());
  }

  @Test
  void requestsWaitForTheLoadOnceEachAndBeyondTheStashAreRefusedAndCounted() {
    CoordinatorConfig small = new CoordinatorConfig("Test", Optional.empty(), new LeastShardAllocationStrategy(),
        0, new ShardIdBounds("Test", 0, 100_000, null), false, false, SETTLE, Duration.ofSeconds(10), HAND_OFF,
        MARGIN, 2, 10, node(1), "test store");
    Driven d = new Driven(small);
    d.handle(new CoordinatorInput.Membership(up(2)));
    Load load = d.loadAfterGate(d.handle(new CoordinatorInput.Start()));
    d.protocol(new Register(r(2), Set.of()));
    d.protocol(new Register(r(2), Set.of()));
    d.protocol(new GetShardHome("a", r(2)));
    List<CoordinatorEffect> full = d.protocol(new GetShardHome("b", r(2)));
    assertTrue(reports(full, CoordinatorNotice.StashFull.class));
    assertFalse(reports(d.protocol(new GetShardHome("c", r(2))), CoordinatorNotice.StashFull.class),
        "reported once per episode");
    List<CoordinatorEffect> loaded = d.handle(new CoordinatorInput.Loaded(load.attempt(),
        new LoadedCoordinatorState(1, CoordinatorState.empty())));
    assertEquals(List.of(new RegionRegistered(r(2))), events(loaded), "the stashed registration, once");
    List<CoordinatorEffect> stored = d.stored(loaded);
    assertEquals(List.of(new RegisterAck(coordinatorRef(), 1)), sentTo(stored, r(2)));
    assertEquals(List.of(new ShardHomeAllocated("a", r(2))), events(stored), "then the stashed request");
    TestProbe<CoordinatorBacklog> probe = refs.testKit().createTestProbe(CoordinatorBacklog.class);
    CoordinatorEffect.ReplyBacklog backlog = only(d.handle(new CoordinatorInput.GetBacklog(probe.ref())),
        CoordinatorEffect.ReplyBacklog.class);
    assertEquals(2, backlog.backlog().refusedRequests());
  }

  @Test
  void regionsOfNodesThatLeftAreForgottenAndStoredBeforeTheAnnouncement() {
    Driven d = new Driven(config(0, false));
    CoordinatorState state = TestRefs.applied(CoordinatorState.empty(), List.of(new RegionRegistered(r(1)),
        new RegionRegistered(r(3)), new ShardHomeAllocated("a", r(3))));
    List<CoordinatorEffect> loaded = d.loaded(up(1), state);
    assertEquals(List.of(new RegionTerminated(r(3))), events(loaded));
    assertFalse(has(loaded, e -> e instanceof Announce), "announced once the forgetting is stored");
    assertTrue(has(loaded, e -> e instanceof CoordinatorEffect.Watch w && w.ref().equals(r(1))));
    List<CoordinatorEffect> stored = d.stored(loaded);
    assertEquals(List.of(node(1)), only(stored, Announce.class).nodes());
  }

  // ---- settling and registration

  @Test
  void whileSettlingHomelessShardsWaitAndAreServedOnceEveryHostingNodeIsHeardFrom() {
    Driven d = new Driven(config(0, false));
    List<CoordinatorEffect> loaded = d.loaded(up(1, 2, 3), CoordinatorState.empty());
    d.registered(r(1), Set.of());
    assertEquals(List.of(), d.protocol(new GetShardHome("x", r(1))), "deferred while settling");
    d.handle(new CoordinatorInput.NodeIdentified(node(3), false));
    assertEquals(Phase.SETTLING, d.machine.phase());
    List<CoordinatorEffect> last = d.protocol(new Register(r(2), Set.of()));
    assertEquals(Phase.SETTLING, d.machine.phase(), "heard from once the registration is stored");
    List<CoordinatorEffect> settled = d.stored(last);
    assertEquals(Phase.ACTIVE, d.machine.phase());
    assertTrue(has(settled, e -> e instanceof StartTimer t && t.key() instanceof CoordinatorTimer.RebalanceTick));
    assertTrue(has(settled, e -> e instanceof CoordinatorEffect.CancelTimer c
        && c.key() instanceof CoordinatorTimer.SettleTimeout));
    assertEquals(List.of(new ShardHomeAllocated("x", r(1))), events(settled), "the deferred request, placed");
    assertTrue(loaded.stream().anyMatch(e -> e instanceof Announce));
  }

  @Test
  void theSettleTimeoutEndsSettlingWhoeverWasNotHeardFrom() {
    Driven d = new Driven(config(0, false));
    List<CoordinatorEffect> loaded = d.loaded(up(1, 2), CoordinatorState.empty());
    List<CoordinatorEffect> timedOut = d.fire(loaded, CoordinatorTimer.SettleTimeout.class);
    assertTrue(reports(timedOut, CoordinatorNotice.NotAllRegistered.class));
    assertEquals(Phase.ACTIVE, d.machine.phase());
  }

  @Test
  void aRegistrationIsAcknowledgedOnceStoredAndARepeatWhileItWaitsIsAcknowledgedOnce() {
    Driven d = new Driven(config(0, false));
    d.loaded(up(1), CoordinatorState.empty());
    List<CoordinatorEffect> first = d.protocol(new Register(r(1), Set.of()));
    assertTrue(reports(first, CoordinatorNotice.Registered.class));
    assertEquals(List.of(), sent(first, RegisterAck.class), "not before it is stored");
    assertEquals(List.of(), d.protocol(new Register(r(1), Set.of())), "its acknowledgement waits already");
    List<CoordinatorEffect> stored = d.stored(first);
    assertEquals(List.of(new RegisterAck(coordinatorRef(), 1)), sentTo(stored, r(1)));
    assertEquals(List.of(new RegisterAck(coordinatorRef(), 1)), sentTo(d.protocol(new Register(r(1), Set.of())), r(1)),
        "stored: acknowledged again at once");
  }

  @Test
  void hostedShardsReportedAtRegistrationAreLearnedInIdOrder() {
    Driven d = new Driven(config(0, false));
    d.loaded(up(1), CoordinatorState.empty());
    List<CoordinatorEffect> registered = d.protocol(new Register(r(1), Set.of("c", "a", "b")));
    assertEquals(List.of(new RegionRegistered(r(1)), new ShardHomeAllocated("a", r(1)),
        new ShardHomeAllocated("b", r(1)), new ShardHomeAllocated("c", r(1))), events(registered));
  }

  // ---- placement and answers

  @Test
  void aNewShardIsStoredThenAnnouncedToItsHomeAndTheAsker() {
    Driven d = new Driven(config(0, false));
    d.loaded(up(1, 2), CoordinatorState.empty());
    d.registered(r(1), Set.of());
    d.registered(r(2), Set.of());
    List<CoordinatorEffect> asked = d.protocol(new GetShardHome("s", r(2)));
    ShardHomeAllocated allocated = (ShardHomeAllocated) events(asked).get(0);
    assertEquals(List.of(), sent(asked, ShardHome.class), "nothing told before it is stored");
    List<CoordinatorEffect> stored = d.stored(asked);
    ShardHome home = new ShardHome("s", allocated.region(), 1);
    assertEquals(List.of(home), sentTo(stored, r(2)));
    assertEquals(List.of(home), sentTo(stored, allocated.region()));
    assertEquals(List.of(home), sentTo(d.protocol(new GetShardHome("s", r(2))), r(2)), "stored: answered at once");
  }

  @Test
  void aHomeDecidedButNotStoredIsAnsweredOnceItIsStored() {
    Driven d = new Driven(config(0, false));
    d.loaded(up(1), CoordinatorState.empty());
    d.registered(r(1), Set.of());
    List<CoordinatorEffect> write = d.protocol(new GetShardHome("s", r(1)));
    assertEquals(List.of(), d.protocol(new GetShardHome("s", r(1))));
    List<CoordinatorEffect> stored = d.stored(write);
    assertEquals(2, sentTo(stored, r(1)).size(), "the allocation's answer and the pending one");
  }

  @Test
  void aStoredWriteIsReportedWithItsLatencyOnTheMachinesClock() {
    Driven d = new Driven(config(0, false));
    d.loaded(up(1), CoordinatorState.empty());
    d.registered(r(1), Set.of());
    List<CoordinatorEffect> write = d.protocol(new GetShardHome("s", r(1)));
    d.protocol(new GetShardHome("s", r(1)));
    // Each input comes 1 ms after the one before: the answer is the second input after the write.
    List<CoordinatorNotice.Stored> stored = all(d.stored(write), CoordinatorEffect.Report.class).stream()
        .map(CoordinatorEffect.Report::notice).filter(CoordinatorNotice.Stored.class::isInstance)
        .map(CoordinatorNotice.Stored.class::cast).toList();
    assertEquals(List.of(new CoordinatorNotice.Stored(only(write, Store.class).events(), Duration.ofMillis(2))),
        stored);
  }

  @Test
  void aShardOutsideTheKnownIdsIsRefusedAndDropped() {
    Driven d = new Driven(config(10, false));
    d.loaded(up(1), CoordinatorState.empty());
    d.registered(r(1), Set.of());
    List<CoordinatorEffect> refused = d.protocol(new GetShardHome("extra", r(1)));
    assertEquals("extra", ((ShardRefused) sentTo(refused, r(1)).get(0)).shardId());
    assertTrue(has(refused, e -> e instanceof CoordinatorEffect.Drop));
    assertFalse(has(refused, e -> e instanceof Store));
  }

  @Test
  void knownShardsArePlacedUpFrontOnceEveryRegionIsUpAndToldAfterTheWrite() {
    Driven d = new Driven(config(6, true));
    d.loaded(members(member(1, MemberStatus.up()), member(2, MemberStatus.joining())), CoordinatorState.empty());
    List<CoordinatorEffect> first = d.registered(r(1), Set.of());
    assertEquals(6, events(first).size(), "node 2 hosts nothing yet: placed over node 1's region");
    List<CoordinatorEffect> told = d.stored(first);
    assertEquals(6, ((ShardHomes) sentTo(told, r(1)).get(0)).homes().size());
    // A region joins and its node comes Up: the next round starts at once, to offer it told shards.
    d.registered(r(2), Set.of());
    List<CoordinatorEffect> upNow = d.handle(new CoordinatorInput.Membership(
        new ClusterChange.MemberChanged(member(2, MemberStatus.up()))));
    StartTimer round = only(upNow, StartTimer.class);
    assertEquals(Duration.ZERO, round.delay());
    List<CoordinatorEffect> offered = d.fire(upNow, CoordinatorTimer.RebalanceTick.class);
    assertTrue(reports(offered, CoordinatorNotice.OfferingTold.class));
    List<BeginHandOff> begins = sent(offered, BeginHandOff.class);
    assertFalse(begins.isEmpty());
    assertTrue(begins.stream().allMatch(BeginHandOff::ifUnstarted));
  }

  // ---- the store

  @Test
  void aFailedWriteIsRetriedWithWhatWasDecidedMeanwhile() {
    Driven d = new Driven(config(0, false));
    d.loaded(up(1), CoordinatorState.empty());
    d.registered(r(1), Set.of());
    Store first = only(d.protocol(new GetShardHome("a", r(1))), Store.class);
    d.protocol(new GetShardHome("b", r(1)));
    List<CoordinatorEffect> failed = d.handle(new CoordinatorInput.StoreFailed(first.writeId(),
        new IllegalStateException("database away")));
    assertTrue(reports(failed, CoordinatorNotice.StoreFailed.class));
    List<CoordinatorEffect> retry = d.fire(failed, CoordinatorTimer.RetryStore.class);
    assertEquals(2, events(retry).size());
    assertEquals(List.of(), d.handle(new CoordinatorInput.Stored(first.writeId())).stream()
        .filter(e -> e instanceof Send).toList(), "the failed write's late success is not the retry's");
    assertEquals(2, sentTo(d.stored(retry), r(1)).size());
  }

  @Test
  void aWriteRefusedAsSupersededIsNotRetriedTheCoordinatorLoadsAgainOnceItsNodesGateIsOpen() {
    Driven d = new Driven(config(0, false));
    d.loaded(up(1), CoordinatorState.empty());
    d.registered(r(1), Set.of());
    Store refused = only(d.protocol(new GetShardHome("a", r(1))), Store.class);
    List<CoordinatorEffect> reload = d.handle(new CoordinatorInput.StoreFailed(refused.writeId(),
        new java.util.concurrent.CompletionException(new CoordinatorStateSupersededException("term 7"))));
    assertTrue(reports(reload, CoordinatorNotice.Superseded.class));
    assertTrue(has(reload, e -> e instanceof CoordinatorEffect.CancelAllTimers));
    only(reload, CoordinatorEffect.AwaitGate.class);
    assertFalse(has(reload, e -> e instanceof Load), "no load before the node is confirmed a member");
    assertEquals(Phase.LOADING, d.machine.phase());
    assertFalse(has(d.handle(new CoordinatorInput.Stored(refused.writeId())), e -> e instanceof Send));
    // Requests wait, as while loading, and nothing is written while the gate is closed.
    assertFalse(has(d.protocol(new GetShardHome("b", r(1))), e -> e instanceof Store || e instanceof Send));
    Load load = only(d.handle(new CoordinatorInput.GateOpened()), Load.class);
    d.handle(new CoordinatorInput.Loaded(load.attempt(), new LoadedCoordinatorState(2, CoordinatorState.empty())));
    assertEquals(2, d.machine.term());
  }

  @Test
  void aLoadRetriedAfterAPauseWaitsForTheGateAndRequestsWaitMeanwhile() {
    Driven d = new Driven(config(0, false));
    d.handle(new CoordinatorInput.Membership(up(1)));
    Load first = d.loadAfterGate(d.handle(new CoordinatorInput.Start()));
    List<CoordinatorEffect> failed = d.handle(new CoordinatorInput.LoadFailed(first.attempt(),
        new IllegalStateException("store away")));
    // The node was paused: the retry fires at the thaw, and the gate is closed until other
    // members confirm the node. No load (which would take the store at a new term) before that.
    List<CoordinatorEffect> retry = d.fire(failed, CoordinatorTimer.RetryLoad.class);
    only(retry, CoordinatorEffect.AwaitGate.class);
    assertFalse(has(retry, e -> e instanceof Load));
    assertFalse(has(d.protocol(new GetShardHome("a", r(1))), e -> e instanceof Load || e instanceof Store));
    assertEquals(Phase.LOADING, d.machine.phase());
    Load second = only(d.handle(new CoordinatorInput.GateOpened()), Load.class);
    assertNotEquals(first.attempt(), second.attempt());
  }

  @Test
  void aGateThatOpensWithoutASupersededWriteChangesNothing() {
    Driven d = new Driven(config(0, false));
    d.loaded(up(1), CoordinatorState.empty());
    Phase before = d.machine.phase();
    List<CoordinatorEffect> effects = d.handle(new CoordinatorInput.GateOpened());
    assertFalse(has(effects, e -> e instanceof Load || e instanceof Store || e instanceof Send));
    assertEquals(before, d.machine.phase());
    assertEquals(1, d.machine.term());
  }

  @Test
  void anAnswerToAnEarlierIncarnationsWriteIsNotTakenForOneOfItsOwn() {
    MembersFold members = new MembersFold(node(1));
    Driven before = new Driven(config(0, false), 0, members);
    before.loaded(up(1), CoordinatorState.empty());
    Store lost = only(before.protocol(new Register(r(1), Set.of())), Store.class);
    Driven after = new Driven(config(0, false), 1, members);
    Load load = after.loadAfterGate(after.handle(new CoordinatorInput.Start()));
    after.handle(new CoordinatorInput.Loaded(load.attempt(), new LoadedCoordinatorState(2, CoordinatorState.empty())));
    Store again = only(after.protocol(new Register(r(1), Set.of())), Store.class);
    assertNotEquals(lost.writeId(), again.writeId());
    assertFalse(has(after.handle(new CoordinatorInput.Stored(lost.writeId())), e -> e instanceof Send));
    assertEquals(List.of(new RegisterAck(coordinatorRef(), 2)), sentTo(after.stored(List.of(again)), r(1)));
  }

  // ---- hand-offs and rounds

  /** An active coordinator with regions 1 and 2, shards a..e at region 1 and none at region 2. */
  private static Driven unbalanced() {
    Driven d = new Driven(config(0, false));
    d.loaded(up(1, 2), CoordinatorState.empty());
    d.registered(r(1), Set.of("a", "b", "c", "d", "e"));
    d.registered(r(2), Set.of());
    assertEquals(Phase.ACTIVE, d.machine.phase());
    return d;
  }

  private static List<CoordinatorEffect> roundOf(Driven d) {
    return d.fire(new CoordinatorTimer.RebalanceTick());
  }

  @Test
  void aRoundHandsOffWhatTheStrategyMovesAndTheStoppedShardGetsItsNextHome() {
    Driven d = unbalanced();
    List<CoordinatorEffect> round = roundOf(d);
    assertTrue(reports(round, CoordinatorNotice.Rebalancing.class));
    BeginHandOff begin = sent(round, BeginHandOff.class).get(0);
    assertEquals(r(1), begin.owner());
    assertEquals(Set.of(r(1), r(2)), begin.regions());
    assertEquals(1, begin.handOffId());
    assertTrue(has(round, e -> e instanceof StartTimer t && t.key() instanceof CoordinatorTimer.HandOffTimeout
        && t.delay().equals(HAND_OFF)));
    // A region asks meanwhile: it waits for the new home.
    assertEquals(List.of(), d.protocol(new GetShardHome(begin.shardId(), r(2))));
    List<CoordinatorEffect> stopped = d.protocol(new ShardStopped(begin.shardId(), r(1), begin.handOffId()));
    assertEquals(List.of(new ShardHomeDeallocated(begin.shardId()), new ShardHomeAllocated(begin.shardId(), r(2))),
        events(stopped));
    List<CoordinatorEffect> told = d.stored(stopped);
    assertTrue(sentTo(told, r(2)).contains(new ShardHome(begin.shardId(), r(2), 1)));
    assertTrue(sentTo(told, r(1)).contains(new ShardHome(begin.shardId(), r(2), 1)));
  }

  @Test
  void aHandOffThatTakesTooLongIsGivenUpAndTheShardStays() {
    Driven d = unbalanced();
    List<CoordinatorEffect> round = roundOf(d);
    BeginHandOff begin = sent(round, BeginHandOff.class).get(0);
    List<CoordinatorEffect> gaveUp = d.fire(round, CoordinatorTimer.HandOffTimeout.class);
    assertTrue(reports(gaveUp, CoordinatorNotice.HandOffGivenUp.class));
    assertTrue(sentTo(gaveUp, r(2)).contains(new ShardHome(begin.shardId(), r(1), 1)));
    List<CoordinatorEffect> late = d.protocol(new ShardStopped(begin.shardId(), r(1), begin.handOffId()));
    assertTrue(reports(late, CoordinatorNotice.HandOffAnswerIgnored.class), "the given-up hand-off's late report");
    assertFalse(has(late, e -> e instanceof Store));
  }

  @Test
  void aRegionShuttingDownHasAllItsShardsHandedOff() {
    Driven d = unbalanced();
    List<CoordinatorEffect> shutdown = d.protocol(new GracefulShutdownReq(r(1)));
    assertTrue(reports(shutdown, CoordinatorNotice.RegionShuttingDown.class));
    assertEquals(5, sent(shutdown, BeginHandOff.class).stream().map(BeginHandOff::shardId).distinct().count());
  }

  // ---- regions that are gone

  @Test
  void aRegionWhoseNodeWasRemovedKeepsItsShardsForTheRemovalMargin() {
    Driven d = unbalanced();
    d.handle(new CoordinatorInput.Membership(new ClusterChange.MemberChanged(member(1, MemberStatus.down()))));
    List<CoordinatorEffect> terminated = d.handle(new CoordinatorInput.Terminated(r(1)));
    assertTrue(reports(terminated, CoordinatorNotice.RemovalMarginWait.class));
    assertEquals(MARGIN, only(terminated, StartTimer.class).delay());
    assertFalse(has(terminated, e -> e instanceof Store));
    assertEquals(List.of(), d.handle(new CoordinatorInput.Terminated(r(1))), "it waits already");
    List<CoordinatorEffect> gone = d.fire(terminated, CoordinatorTimer.RemovalMarginPassed.class);
    assertTrue(reports(gone, CoordinatorNotice.RegionGone.class));
    assertEquals(List.of(new RegionTerminated(r(1))), events(gone));
  }

  /**
   * Seeds 1085 and 7196 of the cluster simulation: a region that joined while another waited out
   * its removal margin was answered with that gone region, opened a link to it, and what the link
   * handed back when it closed arrived after newer messages had gone to the shard's new home.
   */
  @Test
  void aShardWhoseRegionWaitsOutItsRemovalMarginGetsNoAnswerUntilItHasANewHome() {
    Driven d = unbalanced();
    d.handle(new CoordinatorInput.Membership(new ClusterChange.MemberChanged(member(1, MemberStatus.down()))));
    List<CoordinatorEffect> terminated = d.handle(new CoordinatorInput.Terminated(r(1)));
    assertTrue(reports(terminated, CoordinatorNotice.RemovalMarginWait.class));
    assertEquals(List.of(), sent(d.protocol(new GetShardHome("a", r(2))), ShardHome.class),
        "no home at a region that is gone: the asker holds and asks again");

    List<CoordinatorEffect> gone = d.fire(terminated, CoordinatorTimer.RemovalMarginPassed.class);
    assertTrue(reports(gone, CoordinatorNotice.RegionGone.class));
    d.stored(gone);
    List<CoordinatorEffect> asked = d.protocol(new GetShardHome("a", r(2)));
    if (has(asked, e -> e instanceof Store)) {
      asked = d.stored(asked);
    }
    assertEquals(List.of(new ShardHome("a", r(2), 1)), sent(asked, ShardHome.class), "its new home, once it has one");
  }

  @Test
  void aHomeReplacedInTheSameWriteIsNeverAnnounced() {
    Driven d = unbalanced();
    Store busy = only(d.protocol(new GetShardHome("x", r(1))), Store.class);
    // While that write is in flight: f is placed at region 2, region 2 stops, f is asked for again.
    d.protocol(new GetShardHome("f", r(1)));
    assertEquals(r(2), d.machine.decided().shards().get("f"));
    d.handle(new CoordinatorInput.Terminated(r(2)));
    d.protocol(new GetShardHome("f", r(1)));
    List<CoordinatorEffect> stored = d.stored(d.stored(List.of(busy)));
    List<ShardHome> homes = sent(stored, ShardHome.class);
    assertFalse(homes.stream().anyMatch(h -> h.shardId().equals("f") && h.region().equals(r(2))),
        "f's first home was replaced in the same write, so the store never held it: " + homes);
    assertEquals(List.of(new ShardHome("f", r(1), 1)), sentTo(stored, r(1)));
  }

  @Test
  void aRegionThatStoppedWhileItsNodeIsAMemberIsGoneAtOnce() {
    Driven d = unbalanced();
    List<CoordinatorEffect> terminated = d.handle(new CoordinatorInput.Terminated(r(1)));
    assertTrue(reports(terminated, CoordinatorNotice.RegionGone.class));
    assertEquals(List.of(new RegionTerminated(r(1))), events(terminated));
  }

  @Test
  void aStopStopsItForGood() {
    Driven d = unbalanced();
    assertEquals(List.of(new CoordinatorEffect.Stopped()), d.handle(new CoordinatorInput.Stop()));
    assertEquals(Phase.STOPPED, d.machine.phase());
    assertEquals(List.of(), d.protocol(new GetShardHome("a", r(2))));
  }

  // ---- regions of leaving nodes

  /**
   * A new coordinator (after its predecessor's node left) learns a shard's home from the report of
   * a region on a leaving node, which is handing that shard off for the predecessor. It must not
   * tell anyone that home: the region may stop as soon as the hand-off ends (messages sent there
   * are lost), and told its own shard's home after the hand-off it starts it again (a second
   * incarnation beside the shard's next home). It hands the region's shards off itself, and the
   * end of the predecessor's hand-off ends its own.
   */
  @Test
  void aShardReportedByARegionOfALeavingNodeIsHandedOffNotAnnouncedThere() {
    Driven d = new Driven(config(0, false));
    d.loaded(members(member(1, MemberStatus.up()), member(2, MemberStatus.up()), member(3, MemberStatus.leaving())),
        CoordinatorState.empty());
    d.registered(r(1), Set.of());
    d.registered(r(2), Set.of());
    List<CoordinatorEffect> registered = d.registered(r(3), Set.of("48"));
    assertEquals(Phase.ACTIVE, d.machine.phase());
    List<CoordinatorEffect> asked = new ArrayList<>(d.protocol(new GetShardHome("48", r(1))));
    asked.addAll(d.protocol(new GetShardHome("48", r(3))));
    assertEquals(List.of(), sent(asked, ShardHome.class), "both wait for the shard's next home");
    assertTrue(reports(registered, CoordinatorNotice.RegionShuttingDown.class));
    BeginHandOff begin = sent(registered, BeginHandOff.class).get(0);
    assertEquals("48", begin.shardId());
    assertEquals(r(3), begin.owner());
    // The predecessor's hand-off ends: its id is not ours, but the shard stopped where it lived.
    List<CoordinatorEffect> stopped = d.protocol(new ShardStopped("48", r(3), 4242));
    assertEquals(new ShardHomeDeallocated("48"), events(stopped).get(0));
    ActorRef<Object> next = ((ShardHomeAllocated) events(stopped).get(1)).region();
    assertNotEquals(r(3), next);
    List<CoordinatorEffect> told = d.stored(stopped);
    assertEquals(List.of(new ShardHome("48", next, 1)), sentTo(told, r(1)));
    assertEquals(List.of(new ShardHome("48", next, 1)), sentTo(told, r(3)), "it asked, so it hears");
  }

  @Test
  void aNodeThatStartsToLeaveHasItsRegionsShardsHandedOffWithoutWaitingForTheRegionToAsk() {
    Driven d = unbalanced();
    List<CoordinatorEffect> left = d.handle(new CoordinatorInput.Membership(
        new ClusterChange.MemberChanged(member(1, MemberStatus.leaving()))));
    assertTrue(reports(left, CoordinatorNotice.RegionShuttingDown.class));
    assertEquals(5, sent(left, BeginHandOff.class).stream().map(BeginHandOff::shardId).distinct().count());
    assertEquals(List.of(), sent(d.protocol(new GracefulShutdownReq(r(1))), BeginHandOff.class),
        "the region's own request finds its shards on their way already");
  }

  /**
   * A region shutting down may stop as soon as it hosts nothing, before a hand-off of a shard it
   * never started reaches it. Shards placed up front that nobody used since move without one.
   */
  @Test
  void unusedShardsPlacedUpFrontInARegionShuttingDownMoveWithoutHandOffs() {
    Driven d = new Driven(config(4, false));
    d.loaded(up(1, 2), CoordinatorState.empty());
    d.registered(r(1), Set.of());
    List<CoordinatorEffect> placed = d.registered(r(2), Set.of());
    assertEquals(4, events(placed).size());
    d.stored(placed);
    long atTwo = d.machine.decided().regions().get(r(2)).size();
    assertTrue(atTwo > 0);
    List<CoordinatorEffect> shutdown = d.protocol(new GracefulShutdownReq(r(2)));
    assertEquals(List.of(), sent(shutdown, BeginHandOff.class));
    assertTrue(reports(shutdown, CoordinatorNotice.MovingUnused.class));
    assertEquals(2 * atTwo, events(shutdown).size());
    assertTrue(events(shutdown).stream().allMatch(e -> e instanceof ShardHomeDeallocated
        || e instanceof ShardHomeAllocated a && a.region().equals(r(1))));
    d.stored(shutdown);
    assertTrue(d.machine.stored().regions().get(r(2)).isEmpty());
  }

  // ---- more decisions, one each

  @Test
  void aProxyThatRegisteredAsARegionIsIgnored() {
    Driven d = unbalanced();
    List<CoordinatorEffect> proxy = d.protocol(new ShardingProtocol.RegisterProxy(r(2)));
    assertTrue(reports(proxy, CoordinatorNotice.ProxyWasRegion.class));
    assertFalse(has(proxy, e -> e instanceof Store || e instanceof Send));
  }

  @Test
  void theCurrentRegionsAreTheStoredOnes() {
    Driven d = unbalanced();
    TestProbe<Object> asker = refs.testKit().createTestProbe(Object.class);
    d.protocol(new Register(r(3), Set.of()));
    List<CoordinatorEffect> answer = d.protocol(new ShardingProtocol.GetCurrentRegions(asker.ref()));
    assertEquals(List.of(new ShardingProtocol.CurrentRegions(Set.of(r(1), r(2)))), sentTo(answer, asker.ref()),
        "region 3's registration is not stored yet");
  }

  @Test
  void whileSettlingRequestsBeyondTheQueueAreRefusedWithOneReport() {
    CoordinatorConfig small = new CoordinatorConfig("Test", Optional.empty(), new LeastShardAllocationStrategy(),
        0, new ShardIdBounds("Test", 0, 100_000, null), false, false, SETTLE, Duration.ofSeconds(10), HAND_OFF,
        MARGIN, 1, 10, node(1), "test store");
    Driven d = new Driven(small);
    d.loaded(up(1, 2), CoordinatorState.empty());
    assertEquals(List.of(), d.protocol(new GetShardHome("a", r(1))));
    assertEquals(List.of(), d.protocol(new GetShardHome("a", r(1))), "the same request waits once");
    assertTrue(reports(d.protocol(new GetShardHome("b", r(1))), CoordinatorNotice.SettlingFull.class));
    assertEquals(List.of(), d.protocol(new GetShardHome("c", r(1))), "reported once per episode");
  }

  @Test
  void pendingAnswersBeyondTheLimitAreRefusedWithOneReportAndTheCatchUpIsReported() {
    Driven d = new Driven(config(0, false));
    d.loaded(up(1), CoordinatorState.empty());
    d.registered(r(1), Set.of());
    List<CoordinatorEffect> first = d.protocol(new GetShardHome("s0", r(1)));
    for (int i = 1; i <= 11; i++) {
      d.protocol(new GetShardHome("s" + i, r(1)));
    }
    List<CoordinatorEffect> reports = new ArrayList<>();
    for (int i = 1; i <= 11; i++) {
      reports.addAll(d.protocol(new GetShardHome("s" + i, r(1))));
    }
    assertEquals(1, all(reports, Report.class).stream().filter(r -> r.notice() instanceof CoordinatorNotice.PendingFull)
        .count(), "ten wait; the eleventh is refused, reported once");
    List<CoordinatorEffect> second = d.stored(first);
    assertTrue(reports(d.stored(second), CoordinatorNotice.StoreCaughtUp.class));
  }

  @Test
  void aRoundThatFindsWritesInFlightLooksAgainShortlyAndAnIdleOneBacksOff() {
    Driven d = new Driven(config(0, false));
    d.loaded(up(1, 2), CoordinatorState.empty());
    d.registered(r(1), Set.of("a"));
    d.registered(r(2), Set.of("b"));
    d.protocol(new GetShardHome("c", r(1)));
    List<CoordinatorEffect> busy = d.fire(new CoordinatorTimer.RebalanceTick());
    assertEquals(RebalanceRounds.WRITES_IN_FLIGHT, only(busy, StartTimer.class).delay());
    d.handle(new CoordinatorInput.Stored(lastWrite(d)));
    List<CoordinatorEffect> idle = d.fire(new CoordinatorTimer.RebalanceTick());
    assertEquals(Duration.ofSeconds(20), only(idle, StartTimer.class).delay(), "twice the interval");
    assertEquals(Duration.ofSeconds(40), only(d.fire(new CoordinatorTimer.RebalanceTick()), StartTimer.class).delay());
  }

  /** The id of the write in flight, as the machine named it in its Store effect. */
  private static long lastWrite(Driven d) {
    return d.lastStore;
  }

  @Test
  void aDeclinedMoveKeepsTheShardWhereItStartedAndTellsEveryoneAgain() {
    Driven d = new Driven(config(4, true));
    d.loaded(up(1), CoordinatorState.empty());
    d.stored(d.registered(r(1), Set.of()));
    d.handle(new CoordinatorInput.Membership(new ClusterChange.MemberChanged(member(2, MemberStatus.up()))));
    d.registered(r(2), Set.of());
    List<CoordinatorEffect> offered = d.fire(new CoordinatorTimer.RebalanceTick());
    BeginHandOff begin = sent(offered, BeginHandOff.class).get(0);
    List<CoordinatorEffect> declined = d.protocol(new ShardingProtocol.HandOffDeclined(begin.shardId(), r(1),
        begin.handOffId()));
    assertTrue(sentTo(declined, r(2)).contains(new ShardHome(begin.shardId(), r(1), 1)));
    assertTrue(has(declined, e -> e instanceof CoordinatorEffect.CancelTimer c
        && c.key().equals(new CoordinatorTimer.HandOffTimeout(begin.shardId()))));
    List<CoordinatorEffect> again = d.protocol(new ShardingProtocol.HandOffDeclined(begin.shardId(), r(1),
        begin.handOffId()));
    assertTrue(reports(again, CoordinatorNotice.HandOffAnswerIgnored.class), "over already");
  }

  @Test
  void requestsThatWaitedForAHandOffFromARegionThatIsGoneAreHandledAgain() {
    Driven d = unbalanced();
    BeginHandOff begin = sent(roundOf(d), BeginHandOff.class).get(0);
    d.protocol(new GetShardHome(begin.shardId(), r(2)));
    List<CoordinatorEffect> gone = d.handle(new CoordinatorInput.Terminated(r(1)));
    assertEquals(List.of(new RegionTerminated(r(1))), events(gone));
    List<CoordinatorEffect> stored = d.stored(gone);
    assertEquals(List.of(new ShardHomeAllocated(begin.shardId(), r(2))), events(stored),
        "the waiting request is handled again: its shard is placed");
  }

  @Test
  void aTerminationThatArrivesBeforeTheNodesRemovalStillWaitsForTheMarginOnceTheNodeIsDown() {
    Driven d = unbalanced();
    d.handle(new CoordinatorInput.Membership(new ClusterChange.MemberChanged(member(1, MemberStatus.removed()))));
    List<CoordinatorEffect> removed = d.handle(new CoordinatorInput.Terminated(r(1)));
    assertTrue(reports(removed, CoordinatorNotice.RemovalMarginWait.class), "no longer a member: the margin");
  }

  @Test
  void withRememberedEntitiesTheShardsOfGoneRegionsAndTheReadOnesArePlacedAtOnce() {
    Driven d = new Driven(remembering());
    CoordinatorState state = TestRefs.applied(CoordinatorState.empty(), List.of(new RegionRegistered(r(1)),
        new RegionRegistered(r(3)), new ShardHomeAllocated("gone", r(3))));
    List<CoordinatorEffect> loaded = d.loaded(up(1), state);
    CoordinatorEffect.ReadRememberedShards read = only(loaded, CoordinatorEffect.ReadRememberedShards.class);
    List<CoordinatorEffect> failed = d.handle(new CoordinatorInput.RememberedShardsFailed(read.readId(),
        new IllegalStateException("away")));
    assertTrue(reports(failed, CoordinatorNotice.RememberedReadFailed.class));
    CoordinatorEffect.ReadRememberedShards again = only(d.fire(new CoordinatorTimer.RetryRememberedRead()),
        CoordinatorEffect.ReadRememberedShards.class);
    List<CoordinatorEffect> placing = new ArrayList<>(d.stored(loaded));
    placing.addAll(d.protocol(new Register(r(1), Set.of())));
    assertEquals(Phase.ACTIVE, d.machine.phase());
    placing.addAll(d.handle(new CoordinatorInput.RememberedShardsRead(again.readId(), Set.of("kept"))));
    assertTrue(reports(placing, CoordinatorNotice.PlacingRemembered.class));
    assertTrue(d.machine.decided().shards().containsKey("gone"), "the gone region's shard runs again");
    assertTrue(d.machine.decided().shards().containsKey("kept"), "the read shard runs");
  }

  /**
   * Cluster simulation seed 4609 (remembering entities): the home a shard with remembered entities
   * was given was told to its region during a partition and lost; nothing asked for the shard, so
   * it and its remembered entities stayed stopped.
   */
  @Test
  void aHomeWithRememberedEntitiesIsToldAgainUntilItsRegionConfirmsTheStart() {
    Driven d = new Driven(remembering());
    CoordinatorState state = TestRefs.applied(CoordinatorState.empty(), List.of(new RegionRegistered(r(1)),
        new RegionRegistered(r(3)), new ShardHomeAllocated("gone", r(3))));
    List<CoordinatorEffect> loaded = d.loaded(up(1), state);
    long read = only(loaded, CoordinatorEffect.ReadRememberedShards.class).readId();
    List<CoordinatorEffect> placed = new ArrayList<>(d.stored(loaded));
    placed.addAll(d.protocol(new Register(r(1), Set.of())));
    placed.addAll(d.handle(new CoordinatorInput.RememberedShardsRead(read, Set.of())));
    placed.addAll(d.handle(new CoordinatorInput.Stored(d.lastStore)));
    ShardHome asked = new ShardHome("gone", r(1), 1, true);
    assertEquals(List.of(asked), sentTo(placed, r(1)).stream().filter(m -> m instanceof ShardHome).toList(),
        "its home is asked to confirm the start: " + placed);

    assertEquals(List.of(asked), sentTo(d.fire(new CoordinatorTimer.ConfirmStarts()), r(1)), "told again");
    assertTrue(sentTo(d.protocol(new ShardingProtocol.ShardStarted("gone", r(3))), r(1)).isEmpty());
    assertEquals(List.of(asked), sentTo(d.fire(new CoordinatorTimer.ConfirmStarts()), r(1)),
        "a confirmation from another region changes nothing");
    d.protocol(new ShardingProtocol.ShardStarted("gone", r(1)));
    List<CoordinatorEffect> after = d.fire(new CoordinatorTimer.ConfirmStarts());
    assertTrue(all(after, Send.class).isEmpty(), "confirmed: not told again: " + after);
    assertTrue(all(after, StartTimer.class).isEmpty(), "and the timer stops");
  }

  private static CoordinatorConfig remembering() {
    return new CoordinatorConfig("Test", Optional.empty(), new LeastShardAllocationStrategy(1, 20, 0.1), 0,
        new ShardIdBounds("Test", 0, 100_000, null), true, false, SETTLE, Duration.ofSeconds(10), HAND_OFF, MARGIN,
        1000, 10, node(1), "test store");
  }
}
