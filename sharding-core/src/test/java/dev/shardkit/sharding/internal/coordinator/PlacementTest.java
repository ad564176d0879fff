package dev.shardkit.sharding.internal.coordinator;

import static dev.shardkit.sharding.internal.TestRefs.applied;
import static dev.shardkit.sharding.internal.TestRefs.node;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.LeastShardAllocationStrategy;
import dev.shardkit.sharding.RegionInfo;
import dev.shardkit.sharding.ShardAllocation;
import dev.shardkit.sharding.ShardAllocationStrategy;
import dev.shardkit.sharding.internal.TestRefs;
import dev.shardkit.sharding.internal.membership.MemberSnapshot.Node;
import dev.shardkit.sharding.internal.membership.MemberSnapshot;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.RegisterAck;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.ShardHome;
import dev.shardkit.sharding.spi.CoordinatorEvent.RegionRegistered;
import dev.shardkit.sharding.spi.CoordinatorEvent.RegionTerminated;
import dev.shardkit.sharding.spi.CoordinatorEvent.ShardHomeAllocated;
import dev.shardkit.sharding.spi.CoordinatorEvent.ShardHomeDeallocated;
import dev.shardkit.sharding.spi.CoordinatorEvent;
import dev.shardkit.sharding.spi.CoordinatorState;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.cluster.MemberStatus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class PlacementTest {
  @RegisterExtension static final TestRefs refs = new TestRefs();

  private static ActorRef<Object> r(int n) {
    return refs.region(n);
  }

  /** The problems placement reported, each with its cause's message if it had one. */
  private final List<String> problems = new ArrayList<>();

  private Placement placement(int knownShards) {
    return placement(new LeastShardAllocationStrategy(), knownShards);
  }

  private Placement placement(ShardAllocationStrategy strategy, int knownShards) {
    return new Placement(strategy, knownShards, refs.local(), (problem, cause) -> problems.add(
        cause == null ? problem : problem + ": " + cause.getMessage()));
  }

  /** Members 1..n, all Up, oldest first. */
  private static MemberSnapshot up(int n) {
    List<Node> nodes = new ArrayList<>();
    for (int i = 1; i <= n; i++) {
      nodes.add(new Node(node(i), MemberStatus.up(), Set.of()));
    }
    return new MemberSnapshot(nodes, node(1));
  }

  @SafeVarargs
  private static CoordinatorState registered(ActorRef<Object>... regions) {
    CoordinatorState state = CoordinatorState.empty();
    for (ActorRef<Object> r : regions) {
      state = state.applied(new RegionRegistered(r));
    }
    return state;
  }

  private static Placement.View view(CoordinatorState state, MemberSnapshot members) {
    return new Placement.View(state, members, Set.of(), Set.of());
  }

  private static List<CoordinatorEvent> homes(ActorRef<Object> region, int from, int to) {
    List<CoordinatorEvent> events = new ArrayList<>();
    for (int i = from; i < to; i++) {
      events.add(new ShardHomeAllocated(Integer.toString(i), region));
    }
    return events;
  }

  // ---- shards known in advance, placed up front (what UpFrontPlacementTest shows end to end)

  @Test
  void everyKnownShardIsPlacedInOneDecisionOnceEveryRegionIsUp() {
    Placement p = placement(100);
    List<CoordinatorEvent> events = p.placeAll(view(registered(r(1)), up(1)));
    assertEquals(homes(r(1), 0, 100), events, "the only region takes all 100, in one decision");
    CoordinatorState state = applied(registered(r(1)), events);
    assertTrue(p.placeAll(view(state, up(1))).isEmpty(), "placed once");
  }

  @Test
  void nothingIsPlacedUpFrontWhileARegionsNodeIsStillJoining() {
    Placement p = placement(10);
    MemberSnapshot joining = new MemberSnapshot(List.of(new Node(node(1), MemberStatus.up(), Set.of()),
        new Node(node(2), MemberStatus.joining(), Set.of())), node(1));
    assertTrue(p.placeAll(view(registered(r(1), r(2)), joining)).isEmpty());
    assertEquals(10, p.placeAll(view(registered(r(1), r(2)), up(2))).size(), "placed once it is Up");
  }

  @Test
  void aJoiningRegionGetsItsShareOfTheUnusedShardsWithoutHandOffsAndNothingIsLeftToRebalance() {
    Placement p = placement(100);
    CoordinatorState state = applied(registered(r(1)), p.placeAll(view(registered(r(1)), up(1))));
    state = state.applied(new RegionRegistered(r(2)));
    Placement.View two = view(state, up(2));
    assertTrue(p.spreadDue("7", two), "the number of regions taking shards changed");

    List<CoordinatorEvent> moves = p.spreadUntouched(two);
    assertEquals(100, moves.size(), "50 shards move, each as a deallocation and an allocation");
    for (int i = 0; i < moves.size(); i += 2) {
      ShardHomeDeallocated gone = (ShardHomeDeallocated) moves.get(i);
      assertEquals(new ShardHomeAllocated(gone.shardId(), r(2)), moves.get(i + 1), "moved straight to the new region");
    }
    state = applied(state, moves);
    assertEquals(50, state.regions().get(r(1)).size());
    assertEquals(50, state.regions().get(r(2)).size());
    assertTrue(p.rebalance(view(state, up(2))).isEmpty(), "nothing is left to rebalance");
    assertFalse(p.spreadDue("7", view(state, up(2))), "spread over these regions already");
  }

  @Test
  void aShardInUseIsNotMovedWithoutAHandOff() {
    Placement p = placement(4);
    CoordinatorState state = applied(registered(r(1)), p.placeAll(view(registered(r(1)), up(1))));
    p.used("0");
    p.used("1");
    p.used("2");
    state = state.applied(new RegionRegistered(r(2)));
    assertFalse(p.spreadDue("0", view(state, up(2))), "used: moving it needs a hand-off");
    List<CoordinatorEvent> moves = p.spreadUntouched(view(state, up(2)));
    assertEquals(List.of(new ShardHomeDeallocated("3"), new ShardHomeAllocated("3", r(2))), moves);
  }

  /**
   * Seed 451471 of the coordinator simulation: a region asked for shard 1 while its home was being
   * decided; the home's region was lost, and the shard, placed again with the others of that
   * region, counted as unused, so that a joining region later got it without a hand-off while the
   * answer to the earlier request had started it at its new home.
   */
  @Test
  void aShardAskedForOnceIsNotUnusedAgainWhenItIsPlacedAgainAfterItsRegionWasLost() {
    Placement p = placement(4);
    CoordinatorState state = applied(registered(r(1), r(2)), p.placeAll(view(registered(r(1), r(2)), up(2))));
    List<String> onSecond = List.copyOf(state.regions().get(r(2)));
    assertEquals(2, onSecond.size(), "the second region took half: " + state);
    String asked = onSecond.get(0);
    p.used(asked);

    state = state.applied(new RegionTerminated(r(2)));
    p.regionLost();
    MemberSnapshot first = new MemberSnapshot(List.of(new Node(node(1), MemberStatus.up(), Set.of())), node(1));
    List<CoordinatorEvent> again = p.placeAll(view(state, first));
    assertEquals(2, again.size(), "the lost region's shards are placed again: " + again);
    state = applied(state, again);

    state = state.applied(new RegionRegistered(r(3)));
    MemberSnapshot withThird = new MemberSnapshot(List.of(new Node(node(1), MemberStatus.up(), Set.of()),
        new Node(node(3), MemberStatus.up(), Set.of())), node(1));
    assertFalse(p.spreadDue(asked, view(state, withThird)), "asked for: moving it needs a hand-off");
    List<CoordinatorEvent> moves = p.spreadUntouched(view(state, withThird));
    assertFalse(moves.contains(new ShardHomeDeallocated(asked)), "moved without a hand-off: " + moves);
    assertFalse(moves.isEmpty(), "the shards never asked for are spread as before");
  }

  @Test
  void toldShardsNotSeenInUseAreOfferedToAJoiningRegionOnceAndThoseInUseAreNot() {
    Placement p = placement(100);
    List<CoordinatorEvent> placed = p.placeAll(view(registered(r(1)), up(1)));
    CoordinatorState state = applied(registered(r(1)), placed);
    p.told(placed.stream().map(e -> ((ShardHomeAllocated) e).shardId()).toList());
    assertTrue(p.toldToMove(view(state, up(1))).isEmpty(), "no region joined since they were placed");
    p.used("7");
    state = state.applied(new RegionRegistered(r(2)));
    Placement.View two = view(state, up(2));
    assertTrue(p.spreadUntouched(two).isEmpty(), "told homes never move without a hand-off");

    List<String> offered = p.toldToMove(two);
    assertEquals(50, offered.size(), "the joining region's share: " + offered);
    assertFalse(offered.contains("7"), "a shard a region asked for may run: it is only rebalanced");
    offered.forEach(id -> assertEquals(r(1), two.state().shards().get(id), id + " moves away from the first region"));
    assertTrue(p.toldToMove(two).isEmpty(), "offered once per change of the regions taking shards");
    p.declined(offered.get(0));
    List<String> again = p.toldToMove(two);
    assertFalse(again.isEmpty(), "a declined move makes the others due again");
    assertFalse(again.contains(offered.get(0)), "the declined shard runs: it is not offered again");
    assertEquals(66, p.toldToMove(view(state.applied(new RegionRegistered(r(3))), up(3))).size(),
        "with all 100 still on the first region, two thirds leave it for the second and third");
  }

  @Test
  void aLostRegionsShardsArePlacedAgainSkippingThoseInHandOff() {
    Placement p = placement(4);
    CoordinatorState state = registered(r(1), r(2));
    state = applied(state, p.placeAll(view(state, up(2))));
    assertEquals(2, state.regions().get(r(2)).size());
    state = state.applied(new RegionTerminated(r(2)));
    p.regionLost();
    String inHandOff = state.shards().containsKey("0") ? "1" : "0";
    List<CoordinatorEvent> events = p.placeAll(new Placement.View(state, up(1), Set.of(), Set.of(inHandOff)));
    assertEquals(1, events.size(), "one lost shard placed, the other waits for its hand-off: " + events);
    assertEquals(r(1), ((ShardHomeAllocated) events.get(0)).region());
  }

  @Test
  void placingAllUpFrontMakesTheSameDecisionsAsPlacingOneShardAtATime() {
    // 17 regions whose nodes joined in a shuffled order, some holding shards already (as after a
    // region was lost), and a few shards in hand-off: every tie-break of the strategy is exercised.
    int regions = 17;
    int shards = 2_000;
    List<Node> nodes = new ArrayList<>();
    for (int i = 1; i <= regions; i++) {
      nodes.add(new Node(node((i * 7) % regions + 1), MemberStatus.up(), Set.of()));
    }
    MemberSnapshot members = new MemberSnapshot(nodes, node(1));
    CoordinatorState start = CoordinatorState.empty();
    for (int i = 1; i <= regions; i++) {
      start = start.applied(new RegionRegistered(r(i)));
    }
    for (int i = 0; i < 300; i++) {
      start = start.applied(new ShardHomeAllocated(Integer.toString(i * 3), r(1 + (i * i) % 5)));
    }
    Set<String> inHandOff = Set.of("1", "1000", "1999");
    Placement.View view = new Placement.View(start, members, Set.of(), inHandOff);

    List<CoordinatorEvent> batch = placement(shards).placeAll(view);

    // The same placement, asked of the strategy shard by shard over the state each decision left.
    Placement oneByOne = placement(0);
    CoordinatorState state = start;
    List<CoordinatorEvent> expected = new ArrayList<>();
    for (int i = 0; i < shards; i++) {
      String shardId = Integer.toString(i);
      if (state.shards().containsKey(shardId) || inHandOff.contains(shardId)) {
        continue;
      }
      ActorRef<Object> home = oneByOne.chooseHome(new Placement.View(state, members, Set.of(), inHandOff), shardId,
          refs.local(), null);
      ShardHomeAllocated allocated = new ShardHomeAllocated(shardId, home);
      state = state.applied(allocated);
      expected.add(allocated);
    }
    assertEquals(shards - 300 - 3, expected.size());
    assertEquals(expected.size(), batch.size());
    for (int i = 0; i < expected.size(); i++) {
      // One decision at a time: a difference names the first shard placed elsewhere, not 2 000 homes.
      assertEquals(expected.get(i), batch.get(i), "decision " + i);
    }
    assertTrue(problems.isEmpty(), problems.toString());
  }

  @Test
  void aStrategyChoosingNoRegionForAShardPlacedUpFrontPlacesNothingAndSaysWhich() {
    RegionInfo stranger = new RegionInfo(node(99), Set.of(), 1);
    ShardAllocationStrategy wrong = new ShardAllocationStrategy() {
      @Override
      public RegionInfo allocateShard(RegionInfo requester, String shardId, ShardAllocation allocation) {
        return shardId.equals("3") ? stranger : allocation.regions().get(0);
      }

      @Override
      public Set<String> rebalance(ShardAllocation allocation, Set<String> rebalanceInProgress) {
        return Set.of();
      }
    };
    Placement p = placement(wrong, 5);
    assertTrue(p.placeAll(view(registered(r(1)), up(1))).isEmpty(), "all or nothing");
    assertEquals(1, problems.size(), problems.toString());
    assertTrue(problems.get(0).contains("[3]") && problems.get(0).contains(stranger.address().toString()),
        problems.get(0));
  }

  // ---- other decisions

  @Test
  void aReportedShardWithoutHomeIsLearnedAndOneHomedElsewhereKeepsItsHome() {
    Placement p = placement(0);
    CoordinatorState state = registered(r(1), r(2)).applied(new ShardHomeAllocated("a", r(1)));
    List<CoordinatorEvent> events = p.reported(state, r(2), Set.of("a", "b"));
    assertEquals(List.of(new ShardHomeAllocated("b", r(2))), events);
    assertEquals(1, problems.size(), "the conflict is reported: " + problems);
    assertTrue(problems.get(0).contains("[a]"));
  }

  @Test
  void rememberedShardsAreStartedWherePlacedPlacedIfHomelessAndWaitForTheirHandOff() {
    Placement p = placement(0);
    CoordinatorState state = registered(r(1)).applied(new ShardHomeAllocated("placed", r(1)));
    p.remember(List.of("placed", "homeless", "moving"));
    Placement.Remembered first = p.placeRemembered(new Placement.View(state, up(1), Set.of(), Set.of("moving")));
    assertEquals(List.of(new ShardHome("placed", r(1), RegisterAck.NO_TERM)), first.start());
    assertEquals(List.of(new ShardHomeAllocated("homeless", r(1))), first.events());
    assertEquals(List.of(new ShardHome("homeless", r(1), RegisterAck.NO_TERM)), first.announce());

    state = applied(state, first.events());
    Placement.Remembered second = p.placeRemembered(view(state, up(1)));
    assertEquals(List.of(new ShardHomeAllocated("moving", r(1))), second.events(), "placed once its hand-off ended");
    assertTrue(p.placeRemembered(view(applied(state, second.events()), up(1))).events().isEmpty(), "each once");
  }

  @Test
  void rememberedShardsWaitWhileNoRegionTakesShards() {
    Placement p = placement(0);
    p.remember(List.of("a"));
    assertTrue(p.placeRemembered(view(CoordinatorState.empty(), up(1))).events().isEmpty());
    assertEquals(List.of(new ShardHomeAllocated("a", r(1))), p.placeRemembered(view(registered(r(1)), up(1))).events());
  }

  @Test
  void aShardThatFinishedItsHandOffGoesToAnotherRegionUnlessItsOldOneIsTheOnlyOne() {
    Placement p = placement(0);
    CoordinatorState state = registered(r(1), r(2)).applied(new ShardHomeAllocated("a", r(1)));
    Placement.Moved moved = p.afterHandOff(view(state, up(2)), "a", r(1), r(1));
    assertEquals(List.of(new ShardHomeDeallocated("a"), new ShardHomeAllocated("a", r(2))), moved.events());
    assertEquals(r(2), moved.next());

    CoordinatorState alone = registered(r(1)).applied(new ShardHomeAllocated("a", r(1)));
    assertEquals(r(1), p.afterHandOff(view(alone, up(1)), "a", r(1), r(1)).next(), "the only region takes it back");

    CoordinatorState gone = alone.applied(new RegionTerminated(r(1)));
    Placement.Moved none = p.afterHandOff(view(gone, up(1)), "a", r(1), r(1));
    assertEquals(List.of(), none.events(), "no home left to deallocate, no region to take it");
    assertNull(none.next());
  }

  @Test
  void aRoundMovesShardsFromTheBusiestRegionOnlyWithTwoRegionsTakingShards() {
    Placement p = placement(0);
    CoordinatorState state = applied(registered(r(1), r(2), r(3)), homes(r(1), 0, 6));
    List<String> moves = p.rebalance(view(state, up(3)));
    assertFalse(moves.isEmpty());
    assertTrue(state.regions().get(r(1)).containsAll(moves));
    // r(2) and r(3) shutting down: only r(1) takes shards, so nothing moves.
    assertTrue(p.rebalance(new Placement.View(state, up(3), Set.of(r(2), r(3)), Set.of())).isEmpty());
  }

  @Test
  void aFailingStrategyIsReportedAndDecidesNothing() {
    ShardAllocationStrategy failing = new ShardAllocationStrategy() {
      @Override
      public RegionInfo allocateShard(RegionInfo requester, String shardId, ShardAllocation allocation) {
        throw new IllegalStateException("boom");
      }

      @Override
      public Set<String> rebalance(ShardAllocation allocation, Set<String> rebalanceInProgress) {
        throw new IllegalStateException("boom");
      }
    };
    Placement p = placement(failing, 3);
    CoordinatorState state = registered(r(1), r(2)).applied(new ShardHomeAllocated("a", r(1)));
    assertNull(p.chooseHome(view(state, up(2)), "b", r(1), null));
    assertTrue(p.placeAll(view(state, up(2))).isEmpty());
    assertTrue(p.rebalance(view(state, up(2))).isEmpty());
    assertEquals(3, problems.size(), "each failure reported: " + problems);
  }

  @Test
  void aStrategyChoosingAnUnknownRegionLeavesTheShardWithoutHome() {
    ShardAllocationStrategy stray = new ShardAllocationStrategy() {
      @Override
      public RegionInfo allocateShard(RegionInfo requester, String shardId, ShardAllocation allocation) {
        return new RegionInfo(node(9), Set.of(), 0);
      }

      @Override
      public Set<String> rebalance(ShardAllocation allocation, Set<String> rebalanceInProgress) {
        return Set.of();
      }
    };
    assertNull(placement(stray, 0).chooseHome(view(registered(r(1)), up(1)), "a", r(1), null));
    assertEquals(1, problems.size());
  }
}
