package dev.shardkit.sharding.internal.coordinator;

import dev.shardkit.sharding.RegionInfo;
import dev.shardkit.sharding.ShardAllocation;
import dev.shardkit.sharding.ShardAllocationStrategy;
import dev.shardkit.sharding.internal.InternalApi;
import dev.shardkit.sharding.internal.membership.MemberSnapshot;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.RegisterAck;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.ShardHome;
import dev.shardkit.sharding.spi.CoordinatorEvent.ShardHomeAllocated;
import dev.shardkit.sharding.spi.CoordinatorEvent.ShardHomeDeallocated;
import dev.shardkit.sharding.spi.CoordinatorEvent;
import dev.shardkit.sharding.spi.CoordinatorState;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.typed.ActorRef;
import org.jspecify.annotations.Nullable;

/**
 * Where the coordinator's shards live: the homes of new shards, of the shards placed all at once
 * when their ids are known in advance, of shards with remembered entities, of shards that finished
 * a hand-off, and the shards a rebalance round moves. Each decision is a list of events over a
 * {@link View} taken when it is made; the coordinator stores them, then makes them known.
 *
 * <p>It also keeps what placement must remember between decisions: whether every known shard has
 * been placed, which of those placed up front nobody has used since (they may move without a
 * hand-off), which of those placed up front had their homes told to every region and were not
 * seen in use since (they may move by a hand-off that the owner declines if it started the shard),
 * and which shards must run for their remembered entities. Owned by the coordinator
 * actor; not thread-safe.
 *
 * <p>Internal API: public for the benchmarks module's micro-benchmarks; not for applications, and
 * it may change in any release.
 */
@InternalApi
public final class Placement {

  /**
   * What a decision looks at: the state with every decision taken so far, the cluster's members,
   * the regions shutting down (they take no new shards) and the shards being handed off (they get
   * a home when their hand-off ends).
   */
  public record View(CoordinatorState state, MemberSnapshot members, Set<ActorRef<Object>> shuttingDown,
      Set<String> inHandOff) {

    /**
     * A view of {@code state} from a coordinator at {@code self} that knows no members (outside a
     * formed cluster): every region takes shards, none shuts down, no shard is being handed off.
     */
    public static View outsideCluster(CoordinatorState state, Address self) {
      return new View(state, new MemberSnapshot(List.of(), self), Set.of(), Set.of());
    }

    View withState(CoordinatorState other) {
      return new View(other, members, shuttingDown, inHandOff);
    }

    /** The regions that take new shards, as the strategy sees them. */
    Map<ActorRef<Object>, RegionInfo> takingShards() {
      return members.takingShards(state.regions().keySet(), shuttingDown);
    }
  }

  /**
   * Shards with remembered entities given a home.
   *
   * @param events the new homes to store
   * @param announce the new homes, for every region and proxy once they are stored
   * @param start homes decided earlier (say, up front) whose region is told to start the shard
   *     (the homes carry no term: the coordinator sends them {@link ShardHome#at} its own)
   */
  record Remembered(List<CoordinatorEvent> events, List<ShardHome> announce, List<ShardHome> start) {}

  /**
   * A shard that finished its hand-off.
   *
   * @param events its old home deallocated (if it still had it) and its new home, if one was found
   * @param next the new home, or null if no region takes it now (it is placed when next asked for)
   */
  record Moved(List<CoordinatorEvent> events, @Nullable ActorRef<Object> next) {}

  private final ShardAllocationStrategy strategy;
  private final int knownShards;
  private final ActorRef<Object> coordinator;
  private final BiConsumer<String, Throwable> problems;
  /** Set once every known shard has a home (later moves keep it so); cleared when a region is lost. */
  private boolean allPlaced;
  /**
   * Shards placed up front that no region has asked for or heard of since: no region knows their
   * home and none has started them, so they can be placed again, without a hand-off, when a region
   * joins. Kept in memory only: a successor treats every shard as used, which is merely slower.
   */
  private final Set<String> untouched = new LinkedHashSet<>();
  /** How many regions took shards when the unused ones were last placed; -1 before that. */
  private int regionsAtLastSpread = -1;
  /**
   * Shards placed up front whose homes every region was told, and that no region has asked for
   * since, nor any hand-off moved but one that found them not started: whether their owner started
   * them only the owner knows. Kept in memory only, like {@link #untouched}.
   */
  private final Set<String> told = new LinkedHashSet<>();
  /** How many regions took shards when the told ones were last spread; -1 before that. */
  private int regionsAtLastToldSpread = -1;
  /**
   * Shards a region asked for, or every region was told of, since this coordinator began: they are
   * never {@link #untouched} again, not even when {@link #placeAll} places them again after their
   * region was lost, since an answer to an earlier request may still be on its way to a region
   * that then starts the shard at its new home. Looked up only.
   */
  private final Set<String> everInUse = new HashSet<>();
  /** Shards that must get a home without waiting for a message, for their remembered entities. */
  private final Set<String> toPlace = new LinkedHashSet<>();

  /**
   * @param knownShards with n &gt; 0, the shard ids are {@code 0..n-1} and {@link #placeAll} places
   *     them all; 0 when the ids are not known in advance
   * @param coordinator the requester of placements that no region asked for
   * @param problems told of a strategy that failed or chose no region taking shards (a message,
   *     and the exception if there was one); the shard stays without a home
   */
  public Placement(ShardAllocationStrategy strategy, int knownShards, ActorRef<Object> coordinator,
      BiConsumer<String, Throwable> problems) {
    this.strategy = strategy;
    this.knownShards = knownShards;
    this.coordinator = coordinator;
    this.problems = problems;
  }

  /**
   * A home for every known shard that has none and is not being handed off, spread by the strategy
   * over the regions present, once every region's node is Up (a region still joining would
   * otherwise have its share moved to it later by hand-offs). Nothing is decided if a shard finds
   * no region; the next call tries again. Once all are placed, later calls decide nothing until a
   * region is lost.
   */
  public List<CoordinatorEvent> placeAll(View v) {
    if (allPlaced || knownShards == 0 || !v.members().everyRegionUp(v.state().regions().keySet(),
        v.shuttingDown())) {
      return List.of();
    }
    CoordinatorState state = v.state();
    List<String> toPlace = new ArrayList<>();
    for (int i = 0; i < knownShards; i++) {
      String shardId = Integer.toString(i);
      if (!state.shards().containsKey(shardId) && !v.inHandOff().contains(shardId)) {
        toPlace.add(shardId);
      }
    }
    List<CoordinatorEvent> events = toPlace.isEmpty() ? List.of() : placeBatch(v, toPlace);
    if (events == null) {
      return List.of();
    }
    allPlaced = true;
    for (String shardId : toPlace) {
      if (!everInUse.contains(shardId)) {
        untouched.add(shardId);
      }
    }
    regionsAtLastSpread = v.takingShards().size();
    regionsAtLastToldSpread = regionsAtLastSpread;
    return events;
  }

  /**
   * Homes for {@code shardIds}, decided in one call of the strategy; null if there is no region
   * taking shards, or the strategy failed or chose a region that takes none (reported).
   */
  private @Nullable List<CoordinatorEvent> placeBatch(View v, List<String> shardIds) {
    // One batch over one view: the strategy makes the decisions it would make shard by shard,
    // without a view (and its hashing of every region) per shard.
    Map<ActorRef<Object>, RegionInfo> infos = oldestFirst(v.takingShards());
    if (infos.isEmpty()) {
      return null;
    }
    List<RegionInfo> choices;
    try {
      choices = strategy.allocateShards(requesterInfo(infos, v, coordinator), shardIds, allocation(v.state(), infos));
    } catch (RuntimeException e) {
      problems.accept("allocation strategy " + strategy + " failed to place " + shardIds.size()
          + " shards up front; they stay unallocated", e);
      return null;
    }
    if (choices.size() != shardIds.size()) {
      problems.accept("allocation strategy " + strategy + " chose " + choices.size() + " regions for "
          + shardIds.size() + " shards placed up front; they stay unallocated", null);
      return null;
    }
    Map<RegionInfo, ActorRef<Object>> refs = new HashMap<>();
    infos.forEach((ref, info) -> refs.putIfAbsent(info, ref));
    List<CoordinatorEvent> events = new ArrayList<>(shardIds.size());
    for (int i = 0; i < shardIds.size(); i++) {
      ActorRef<Object> home = refs.get(choices.get(i));
      if (home == null) {
        notARegion(choices.get(i), shardIds.get(i));
        return null;
      }
      events.add(new ShardHomeAllocated(shardIds.get(i), home));
    }
    return events;
  }

  /**
   * Places the shards placed up front and unused since again, over every region taking shards
   * (including one that just joined): pairs of deallocation and allocation for those whose home
   * changes. They move without a hand-off, since nobody knows their home or has started them, so a
   * region that joins gets its share of them at once and rebalancing is left with shards in use.
   * Nothing if one of them finds no region.
   */
  List<CoordinatorEvent> spreadUntouched(View v) {
    if (untouched.isEmpty()) {
      return List.of();
    }
    regionsAtLastSpread = v.takingShards().size();
    CoordinatorState view = v.state();
    List<String> movable = new ArrayList<>();
    for (String shardId : untouched) {
      if (view.shards().containsKey(shardId) && !v.inHandOff().contains(shardId)) {
        view = view.applied(new ShardHomeDeallocated(shardId));
        movable.add(shardId);
      }
    }
    List<CoordinatorEvent> events = new ArrayList<>();
    for (String shardId : movable) {
      ActorRef<Object> home = chooseHome(v.withState(view), shardId, coordinator, null);
      if (home == null) {
        return List.of();
      }
      view = view.applied(new ShardHomeAllocated(shardId, home));
      if (!home.equals(v.state().shards().get(shardId))) {
        events.add(new ShardHomeDeallocated(shardId));
        events.add(new ShardHomeAllocated(shardId, home));
      }
    }
    return events;
  }

  /**
   * The unused shards placed up front in a region that shuts down, placed again in the regions
   * that take shards: pairs of deallocation and allocation. Nobody knows their home or has started
   * them, so they move without a hand-off, which the region might not be there to answer (it stops
   * as soon as it hosts nothing). Those that find no other region stay, to be handed off as any.
   */
  List<CoordinatorEvent> moveUntouchedFrom(View v, ActorRef<Object> region) {
    List<CoordinatorEvent> events = new ArrayList<>();
    CoordinatorState view = v.state();
    for (String shardId : List.copyOf(view.regions().getOrDefault(region, List.of()))) {
      if (!untouched.contains(shardId) || v.inHandOff().contains(shardId)) {
        continue;
      }
      ShardHomeDeallocated deallocated = new ShardHomeDeallocated(shardId);
      CoordinatorState without = view.applied(deallocated);
      ActorRef<Object> home = chooseHome(v.withState(without), shardId, coordinator, region);
      if (home == null || home.equals(region)) {
        break;
      }
      ShardHomeAllocated allocated = new ShardHomeAllocated(shardId, home);
      view = without.applied(allocated);
      events.add(deallocated);
      events.add(allocated);
    }
    return events;
  }

  /**
   * The told shards ({@link #told}) to move so that every region taking shards holds an even
   * share of all shards (those in use stay where they are), when the number of those regions
   * changed since the told ones were last spread (a region joined, or came Up), or an owner
   * declined a move since ({@link #declined}): a region holding more than its share offers that
   * many of its told shards, none of them being handed off. Each is to move by a hand-off that the
   * owner declines if it started the shard, so a region that joins gets its share of the shards
   * nobody started at once, and no started shard moves for it. Where each goes is the strategy's
   * choice when its hand-off ends ({@link #afterHandOff}). None if the count is unchanged.
   */
  List<String> toldToMove(View v) {
    Map<ActorRef<Object>, RegionInfo> regions = oldestFirst(v.takingShards());
    if (told.isEmpty() || regions.size() == regionsAtLastToldSpread) {
      return List.of();
    }
    regionsAtLastToldSpread = regions.size();
    List<List<String>> held = new ArrayList<>();
    int total = 0;
    for (ActorRef<Object> region : regions.keySet()) {
      List<String> shards = v.state().regions().getOrDefault(region, List.of());
      held.add(shards);
      total += shards.size();
    }
    // The fullest regions keep the remainder, so that no more shards move than must.
    held.sort((a, b) -> Integer.compare(b.size(), a.size()));
    List<String> offered = new ArrayList<>();
    for (int i = 0; i < held.size(); i++) {
      int share = total / held.size() + (i < total % held.size() ? 1 : 0);
      int excess = held.get(i).size() - share;
      for (Iterator<String> it = held.get(i).iterator(); excess > 0 && it.hasNext(); ) {
        String shardId = it.next();
        if (told.contains(shardId) && !v.inHandOff().contains(shardId)) {
          offered.add(shardId);
          excess--;
        }
      }
    }
    return offered;
  }

  /**
   * Whether the unused shards should be spread again before {@code shardId} is used: it is one of
   * them, and the number of regions taking shards changed since they were last placed, so that
   * the shard starts where it will stay.
   */
  boolean spreadDue(String shardId, View v) {
    return untouched.contains(shardId) && v.takingShards().size() != regionsAtLastSpread;
  }

  /** A region asked for the shard, or it is being moved: from now on it may be in use. */
  void used(String shardId) {
    everInUse.add(shardId);
    untouched.remove(shardId);
    told.remove(shardId);
  }

  /**
   * The owner declined to move the shard, having started it: it is in use, and the told shards
   * are due to be spread again ({@link #toldToMove}), since the regions' shares were decided
   * counting it among those that move.
   */
  void declined(String shardId) {
    used(shardId);
    regionsAtLastToldSpread = -1;
  }

  /**
   * Every region is told the homes of these shards placed up front: they are no longer untouched
   * (a move needs a hand-off), but only their owner knows whether it started them.
   */
  public void told(Collection<String> shardIds) {
    // One removal per id: Set.removeAll over a list as long as the set calls the list's contains
    // for every element of the set, quadratic (seconds at 100 000 shards).
    shardIds.forEach(untouched::remove);
    told.addAll(shardIds);
    everInUse.addAll(shardIds);
  }

  /** A region was lost: its shards need homes again, so {@link #placeAll} looks again. */
  void regionLost() {
    allPlaced = false;
  }

  /** These shards may have remembered entities: {@link #placeRemembered} gives them a home. */
  void remember(Collection<String> shardIds) {
    toPlace.addAll(shardIds);
  }

  /**
   * Homes for the shards that must run for their remembered entities: a shard that has a home
   * already is only started there; one being handed off waits for its hand-off to end; the others
   * are placed until one finds no region, and wait (with it) for the next call.
   */
  Remembered placeRemembered(View v) {
    List<CoordinatorEvent> events = new ArrayList<>();
    List<ShardHome> announce = new ArrayList<>();
    List<ShardHome> start = new ArrayList<>();
    CoordinatorState view = v.state();
    for (Iterator<String> it = toPlace.iterator(); it.hasNext(); ) {
      String shardId = it.next();
      ActorRef<Object> placed = view.shards().get(shardId);
      if (placed != null) {
        // Placed already (perhaps up front, never started): its home starts it if it has not.
        it.remove();
        used(shardId);
        start.add(new ShardHome(shardId, placed, RegisterAck.NO_TERM));
        continue;
      }
      if (v.inHandOff().contains(shardId)) {
        continue;
      }
      ActorRef<Object> home = chooseHome(v.withState(view), shardId, coordinator, null);
      if (home == null) {
        break;
      }
      it.remove();
      ShardHomeAllocated allocated = new ShardHomeAllocated(shardId, home);
      view = view.applied(allocated);
      events.add(allocated);
      announce.add(new ShardHome(shardId, home, RegisterAck.NO_TERM));
    }
    return new Remembered(events, announce, start);
  }

  /**
   * The homes of shards a region reports hosting (a coordinator that started without them learns
   * them instead of placing them again). A reported shard whose home is another region keeps that
   * home, reported as a problem.
   */
  List<CoordinatorEvent> reported(CoordinatorState state, ActorRef<Object> region, Set<String> hostedShards) {
    List<CoordinatorEvent> events = new ArrayList<>();
    for (String shard : hostedShards) {
      ActorRef<Object> home = state.shards().get(shard);
      if (home == null) {
        events.add(new ShardHomeAllocated(shard, region));
      } else if (!home.equals(region)) {
        problems.accept("region " + region.path() + " reports hosting shard [" + shard + "], whose home is "
            + home.path() + "; keeping " + home.path(), null);
      }
    }
    return events;
  }

  /**
   * A shard stopped at {@code stoppedAt} at the end of a hand-off: it loses that home (if it still
   * has it) and is placed again at once, so it does not wait for its next message and the regions
   * holding its messages hear where to send them. The region it left is offered only if it is the
   * only one.
   *
   * @param requester the region that asked for the shard's home during the hand-off, else the one
   *     it stopped at
   */
  Moved afterHandOff(View v, String shardId, ActorRef<Object> stoppedAt, ActorRef<Object> requester) {
    List<CoordinatorEvent> events = new ArrayList<>();
    CoordinatorState after = v.state();
    if (stoppedAt.equals(after.shards().get(shardId))) {
      events.add(new ShardHomeDeallocated(shardId));
      after = after.applied(events.get(0));
    }
    ActorRef<Object> next = chooseHome(v.withState(after), shardId, requester, stoppedAt);
    if (next != null) {
      events.add(new ShardHomeAllocated(shardId, next));
    }
    return new Moved(events, next);
  }

  /**
   * The shards the strategy moves in one rebalance round, among those that have a home; none with
   * fewer than two regions taking shards, or if the strategy fails (reported).
   */
  public List<String> rebalance(View v) {
    Set<String> moves;
    try {
      Map<ActorRef<Object>, RegionInfo> infos = oldestFirst(v.takingShards());
      moves = infos.size() < 2 ? Set.of() : strategy.rebalance(allocation(v.state(), infos), Set.of());
    } catch (RuntimeException e) {
      problems.accept("allocation strategy " + strategy + " failed to plan a rebalance", e);
      moves = Set.of();
    }
    return moves.stream().filter(v.state().shards()::containsKey).toList();
  }

  /**
   * Asks the strategy for a home among the regions that take new shards.
   *
   * @param requester the region that asked; one that takes no shards (a proxy, a region shutting
   *     down, the coordinator itself) is known to the strategy by its address only
   * @param leaving a region the shard is just leaving, not offered unless it is the only one (else
   *     a tie could send a rebalanced shard straight back); may be null
   * @return the chosen region, or null if no region takes shards, or the strategy failed or chose
   *     a region that does not take shards (reported)
   */
  public @Nullable ActorRef<Object> chooseHome(View v, String shardId, ActorRef<Object> requester,
      @Nullable ActorRef<Object> leaving) {
    return chooseAmong(oldestFirst(v.takingShards()), v, shardId, requester, leaving);
  }

  /** The same regions, oldest first, as {@link ShardAllocation#ofDisjoint} wants them. */
  private static Map<ActorRef<Object>, RegionInfo> oldestFirst(Map<ActorRef<Object>, RegionInfo> infos) {
    // Regions on one node share their info (only in tests): they keep the order they came in.
    Map<RegionInfo, List<ActorRef<Object>>> refs = new LinkedHashMap<>();
    infos.forEach((ref, info) -> refs.computeIfAbsent(info, i -> new ArrayList<>()).add(ref));
    Map<ActorRef<Object>, RegionInfo> ordered = new LinkedHashMap<>();
    ShardAllocation.oldestFirst(refs.keySet()).forEach(info -> refs.get(info).forEach(ref -> ordered.put(ref, info)));
    return ordered;
  }

  /** {@link #chooseHome} among {@code infos}, the regions taking shards in {@code v}; changed only for {@code leaving}. */
  private @Nullable ActorRef<Object> chooseAmong(Map<ActorRef<Object>, RegionInfo> infos, View v, String shardId,
      ActorRef<Object> requester, ActorRef<Object> leaving) {
    if (leaving != null && infos.size() > 1) {
      infos.remove(leaving);
    }
    if (infos.isEmpty()) {
      return null;
    }
    try {
      RegionInfo choice = strategy.allocateShard(requesterInfo(infos, v, requester), shardId,
          allocation(v.state(), infos));
      ActorRef<Object> chosen = infos.entrySet().stream().filter(e -> e.getValue().equals(choice))
          .map(Map.Entry::getKey).findFirst().orElse(null);
      if (chosen == null) {
        notARegion(choice, shardId);
      }
      return chosen;
    } catch (RuntimeException e) {
      problems.accept("allocation strategy " + strategy + " failed for shard [" + shardId
          + "]; the shard stays unallocated", e);
      return null;
    }
  }

  /** The requester as the strategy sees it: a region's info, else a bare address that takes no shards. */
  private static RegionInfo requesterInfo(Map<ActorRef<Object>, RegionInfo> infos, View v,
      ActorRef<Object> requester) {
    RegionInfo info = infos.get(requester);
    return info != null ? info : new RegionInfo(v.members().addressOf(requester), Set.of(), Integer.MAX_VALUE);
  }

  private void notARegion(RegionInfo choice, String shardId) {
    problems.accept("allocation strategy " + strategy + " chose " + choice + " for shard [" + shardId
        + "], which is not a registered region taking shards; the shard stays unallocated", null);
  }

  private static ShardAllocation allocation(CoordinatorState state, Map<ActorRef<Object>, RegionInfo> infos) {
    Map<RegionInfo, List<String>> shardsByRegion = new LinkedHashMap<>();
    infos.forEach((region, info) -> shardsByRegion.put(info, state.regions().get(region)));
    // The state never gives a shard two homes, so the view need not be checked (that costs O(shards)).
    return ShardAllocation.ofDisjoint(shardsByRegion);
  }
}
