package dev.shardkit.sharding.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.spi.CoordinatorEvent.ProxyRegistered;
import dev.shardkit.sharding.spi.CoordinatorEvent.ProxyTerminated;
import dev.shardkit.sharding.spi.CoordinatorEvent.RegionRegistered;
import dev.shardkit.sharding.spi.CoordinatorEvent.RegionTerminated;
import dev.shardkit.sharding.spi.CoordinatorEvent.ShardHomeAllocated;
import dev.shardkit.sharding.spi.CoordinatorEvent.ShardHomeDeallocated;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class CoordinatorStateTest {
  private static ActorTestKit testKit;
  private static ActorRef<Object> r1;
  private static ActorRef<Object> r2;
  private static ActorRef<Object> r3;
  private static ActorRef<Object> p1;
  private static ActorRef<Object> p2;
  private static final List<ActorRef<Object>> pool = new ArrayList<>();

  @BeforeAll
  static void startTestKit() {
    testKit = ActorTestKit.create();
    // Probes only provide distinct, real ActorRef identities; no messages are exchanged.
    for (int i = 0; i < 8; i++) {
      pool.add(testKit.createTestProbe(Object.class).ref().unsafeUpcast());
    }
    r1 = pool.get(0);
    r2 = pool.get(1);
    r3 = pool.get(2);
    p1 = pool.get(3);
    p2 = pool.get(4);
  }

  @AfterAll
  static void stopTestKit() {
    testKit.shutdownTestKit();
  }

  private static CoordinatorState apply(CoordinatorState s, CoordinatorEvent... events) {
    for (CoordinatorEvent e : events) {
      s = s.applied(e);
    }
    return s;
  }

  // ---- each event

  @Test
  void emptyStateHoldsNothing() {
    CoordinatorState empty = CoordinatorState.empty();
    assertTrue(empty.regions().isEmpty());
    assertTrue(empty.proxies().isEmpty());
    assertTrue(empty.shards().isEmpty());
    assertEquals(Optional.empty(), empty.homeOf("1"));
    assertTrue(empty.toEvents().isEmpty());
    assertSame(empty, CoordinatorState.empty());
  }

  @Test
  void regionRegisteredAddsRegionWithoutShards() {
    CoordinatorState s = apply(CoordinatorState.empty(), new RegionRegistered(r1));
    assertEquals(Map.of(r1, List.of()), s.regions());
    assertTrue(s.proxies().isEmpty());
    assertTrue(s.shards().isEmpty());
  }

  @Test
  void regionsKeepRegistrationOrder() {
    CoordinatorState s = apply(CoordinatorState.empty(),
        new RegionRegistered(r3), new RegionRegistered(r1), new RegionRegistered(r2));
    assertEquals(List.of(r3, r1, r2), new ArrayList<>(s.regions().keySet()));
  }

  @Test
  void proxyRegisteredAddsProxyOnly() {
    CoordinatorState s = apply(CoordinatorState.empty(), new ProxyRegistered(p1));
    assertEquals(Set.of(p1), s.proxies());
    assertTrue(s.regions().isEmpty());
  }

  @Test
  void proxyThatRegistersAsRegionIsNoLongerAProxy() {
    // A node that gains the entity's role re-registers as a region; keeping it as a proxy too
    // would make the coordinator treat one actor as two things.
    CoordinatorState s = apply(CoordinatorState.empty(), new ProxyRegistered(p1), new ProxyRegistered(p2),
        new RegionRegistered(p1));
    assertEquals(Set.of(p2), s.proxies());
    assertTrue(s.regions().containsKey(p1));
  }

  @Test
  void proxyTerminatedRemovesProxy() {
    CoordinatorState s = apply(CoordinatorState.empty(), new ProxyRegistered(p1), new ProxyRegistered(p2),
        new ProxyTerminated(p1));
    assertEquals(Set.of(p2), s.proxies());
  }

  @Test
  void shardHomeAllocatedGivesShardAHome() {
    CoordinatorState s = apply(CoordinatorState.empty(), new RegionRegistered(r1), new RegionRegistered(r2),
        new ShardHomeAllocated("b", r1), new ShardHomeAllocated("a", r1), new ShardHomeAllocated("c", r2));
    assertEquals(Optional.of(r1), s.homeOf("a"));
    assertEquals(Optional.of(r1), s.homeOf("b"));
    assertEquals(Optional.of(r2), s.homeOf("c"));
    assertEquals(Optional.empty(), s.homeOf("d"));
    assertEquals(Map.of("a", r1, "b", r1, "c", r2), s.shards());
    // Allocation order, not sorted order: strategies move the most recent shards first.
    assertEquals(List.of("b", "a"), s.regions().get(r1));
    assertEquals(List.of("c"), s.regions().get(r2));
  }

  @Test
  void shardHomeDeallocatedRemovesOnlyThatShard() {
    CoordinatorState s = apply(CoordinatorState.empty(), new RegionRegistered(r1), new RegionRegistered(r2),
        new ShardHomeAllocated("a", r1), new ShardHomeAllocated("b", r1), new ShardHomeAllocated("c", r1),
        new ShardHomeAllocated("d", r2), new ShardHomeDeallocated("b"));
    assertEquals(Optional.empty(), s.homeOf("b"));
    assertEquals(List.of("a", "c"), s.regions().get(r1));
    assertEquals(List.of("d"), s.regions().get(r2));
    assertEquals(Map.of("a", r1, "c", r1, "d", r2), s.shards());
  }

  @Test
  void deallocatedShardCanGetANewHomeElsewhere() {
    CoordinatorState s = apply(CoordinatorState.empty(), new RegionRegistered(r1), new RegionRegistered(r2),
        new ShardHomeAllocated("a", r1), new ShardHomeDeallocated("a"), new ShardHomeAllocated("a", r2));
    assertEquals(Optional.of(r2), s.homeOf("a"));
    assertEquals(List.of(), s.regions().get(r1));
    assertEquals(List.of("a"), s.regions().get(r2));
  }

  @Test
  void regionTerminationFreesItsShardsAndKeepsOthers() {
    CoordinatorState s = apply(CoordinatorState.empty(), new RegionRegistered(r1), new RegionRegistered(r2),
        new ProxyRegistered(p1),
        new ShardHomeAllocated("a", r1), new ShardHomeAllocated("b", r2), new ShardHomeAllocated("c", r1),
        new RegionTerminated(r1));
    assertEquals(Map.of(r2, List.of("b")), s.regions());
    assertEquals(Map.of("b", r2), s.shards());
    assertEquals(Optional.empty(), s.homeOf("a"));
    assertEquals(Optional.empty(), s.homeOf("c"));
    assertEquals(Set.of(p1), s.proxies());

    // Freed shards must be allocatable again, otherwise they would be lost for good.
    CoordinatorState again = apply(s, new ShardHomeAllocated("a", r2), new ShardHomeAllocated("c", r2));
    assertEquals(List.of("b", "a", "c"), again.regions().get(r2));
  }

  @Test
  void terminatedRegionCanRegisterAgain() {
    CoordinatorState s = apply(CoordinatorState.empty(), new RegionRegistered(r1), new ShardHomeAllocated("a", r1),
        new RegionTerminated(r1), new RegionRegistered(r1));
    assertEquals(Map.of(r1, List.of()), s.regions());
    assertEquals(Optional.empty(), s.homeOf("a"));
  }

  // ---- invariants

  private static IllegalStateException rejected(CoordinatorState s, CoordinatorEvent e) {
    return assertThrows(IllegalStateException.class, () -> s.applied(e));
  }

  @Test
  void rejectsDoubleRegionRegistration() {
    CoordinatorState s = apply(CoordinatorState.empty(), new RegionRegistered(r1));
    IllegalStateException e = rejected(s, new RegionRegistered(r1));
    assertTrue(e.getMessage().contains("already registered"), e.getMessage());
  }

  @Test
  void rejectsDoubleProxyRegistration() {
    CoordinatorState s = apply(CoordinatorState.empty(), new ProxyRegistered(p1));
    IllegalStateException e = rejected(s, new ProxyRegistered(p1));
    assertTrue(e.getMessage().contains("already registered"), e.getMessage());
  }

  @Test
  void rejectsAllocatingAShardThatHasAHome() {
    CoordinatorState s = apply(CoordinatorState.empty(), new RegionRegistered(r1), new RegionRegistered(r2),
        new ShardHomeAllocated("s7", r1));
    // Both to another region (two homes) and to the same region (a duplicate in its list).
    IllegalStateException other = rejected(s, new ShardHomeAllocated("s7", r2));
    assertTrue(other.getMessage().contains("[s7]"), other.getMessage());
    assertTrue(other.getMessage().contains("already has a home"), other.getMessage());
    IllegalStateException same = rejected(s, new ShardHomeAllocated("s7", r1));
    assertTrue(same.getMessage().contains("already has a home"), same.getMessage());
    assertEquals(List.of("s7"), s.regions().get(r1));
  }

  @Test
  void rejectsAllocatingToAnUnregisteredRegion() {
    CoordinatorState s = apply(CoordinatorState.empty(), new RegionRegistered(r1), new ProxyRegistered(p1));
    IllegalStateException never = rejected(s, new ShardHomeAllocated("x", r2));
    assertTrue(never.getMessage().contains("[x]"), never.getMessage());
    assertTrue(never.getMessage().contains("unregistered region"), never.getMessage());
    // A proxy hosts no shards.
    rejected(s, new ShardHomeAllocated("x", p1));
    CoordinatorState gone = apply(s, new RegionTerminated(r1));
    rejected(gone, new ShardHomeAllocated("x", r1));
  }

  @Test
  void rejectsDeallocatingAShardWithoutHome() {
    CoordinatorState s = apply(CoordinatorState.empty(), new RegionRegistered(r1));
    IllegalStateException never = rejected(s, new ShardHomeDeallocated("nope"));
    assertTrue(never.getMessage().contains("[nope]"), never.getMessage());
    CoordinatorState twice = apply(s, new ShardHomeAllocated("a", r1), new ShardHomeDeallocated("a"));
    rejected(twice, new ShardHomeDeallocated("a"));
    CoordinatorState regionGone = apply(s, new ShardHomeAllocated("b", r1), new RegionTerminated(r1));
    rejected(regionGone, new ShardHomeDeallocated("b"));
  }

  @Test
  void rejectsTerminatingAnUnknownRegion() {
    CoordinatorState s = apply(CoordinatorState.empty(), new RegionRegistered(r1), new ProxyRegistered(p1));
    IllegalStateException never = rejected(s, new RegionTerminated(r2));
    assertTrue(never.getMessage().contains("not registered"), never.getMessage());
    // A proxy is not a region.
    rejected(s, new RegionTerminated(p1));
    rejected(apply(s, new RegionTerminated(r1)), new RegionTerminated(r1));
  }

  @Test
  void rejectsTerminatingAnUnknownProxy() {
    CoordinatorState s = apply(CoordinatorState.empty(), new RegionRegistered(r1), new ProxyRegistered(p1));
    IllegalStateException never = rejected(s, new ProxyTerminated(p2));
    assertTrue(never.getMessage().contains("not registered"), never.getMessage());
    // A region is not a proxy.
    rejected(s, new ProxyTerminated(r1));
    rejected(apply(s, new ProxyTerminated(p1)), new ProxyTerminated(p1));
  }

  @Test
  void rejectedEventsLeaveTheStateAsItWas() {
    CoordinatorState s = apply(CoordinatorState.empty(), new RegionRegistered(r1), new ShardHomeAllocated("a", r1));
    Map<ActorRef<Object>, List<String>> regionsBefore = new LinkedHashMap<>(s.regions());
    Map<String, ActorRef<Object>> shardsBefore = new HashMap<>(s.shards());
    rejected(s, new ShardHomeAllocated("a", r1));
    rejected(s, new RegionRegistered(r1));
    rejected(s, new ShardHomeDeallocated("b"));
    assertEquals(regionsBefore, s.regions());
    assertEquals(shardsBefore, s.shards());
  }

  // ---- immutability

  @Test
  void applyingAnEventLeavesTheOldStateUnchanged() {
    CoordinatorState s0 = apply(CoordinatorState.empty(), new RegionRegistered(r1), new RegionRegistered(r2),
        new ProxyRegistered(p1), new ShardHomeAllocated("a", r1), new ShardHomeAllocated("b", r2));
    Map<ActorRef<Object>, List<String>> regions = deepCopy(s0.regions());
    Set<ActorRef<Object>> proxies = new HashSet<>(s0.proxies());
    Map<String, ActorRef<Object>> shards = new HashMap<>(s0.shards());

    List<CoordinatorEvent> events = List.of(new ShardHomeAllocated("c", r1), new ShardHomeDeallocated("a"),
        new RegionTerminated(r2), new ProxyTerminated(p1), new ProxyRegistered(p2), new RegionRegistered(r3),
        new RegionRegistered(p1));
    for (CoordinatorEvent e : events) {
      CoordinatorState s1 = s0.applied(e);
      assertNotEquals(s0, s1, "event must change the state: " + e);
      assertEquals(regions, deepCopy(s0.regions()), "regions changed by " + e);
      assertEquals(proxies, s0.proxies(), "proxies changed by " + e);
      assertEquals(shards, s0.shards(), "shards changed by " + e);
    }
  }

  @Test
  void exposedCollectionsCannotBeModified() {
    CoordinatorState s = apply(CoordinatorState.empty(), new RegionRegistered(r1), new ProxyRegistered(p1),
        new ShardHomeAllocated("a", r1));
    assertThrows(UnsupportedOperationException.class, () -> s.regions().put(r2, List.of()));
    assertThrows(UnsupportedOperationException.class, () -> s.regions().get(r1).add("b"));
    assertThrows(UnsupportedOperationException.class, () -> s.proxies().add(p2));
    assertThrows(UnsupportedOperationException.class, () -> s.shards().remove("a"));
    // Every event path builds new collections; check the ones after deallocation and termination too.
    CoordinatorState after = apply(s, new ShardHomeAllocated("b", r1), new ShardHomeDeallocated("a"),
        new ProxyTerminated(p1), new RegionRegistered(r2), new RegionTerminated(r2));
    assertThrows(UnsupportedOperationException.class, () -> after.regions().get(r1).clear());
    assertThrows(UnsupportedOperationException.class, () -> after.shards().clear());
    assertThrows(UnsupportedOperationException.class, () -> after.proxies().add(p1));
  }

  private static Map<ActorRef<Object>, List<String>> deepCopy(Map<ActorRef<Object>, List<String>> m) {
    Map<ActorRef<Object>, List<String>> copy = new LinkedHashMap<>();
    m.forEach((k, v) -> copy.put(k, new ArrayList<>(v)));
    return copy;
  }

  // ---- snapshots

  @Test
  void toEventsIsACompactSnapshot() {
    CoordinatorState s = apply(CoordinatorState.empty(), new RegionRegistered(r1), new RegionRegistered(r2),
        new ProxyRegistered(p1), new ShardHomeAllocated("a", r1), new ShardHomeAllocated("b", r2),
        new ShardHomeAllocated("c", r1), new ShardHomeDeallocated("c"), new RegionRegistered(r3),
        new RegionTerminated(r3));
    List<CoordinatorEvent> events = s.toEvents();
    // Only what exists now: 2 regions, 1 proxy, 2 shards; history (dealloc, termination) is gone.
    assertEquals(5, events.size(), events.toString());
    assertTrue(events.stream().noneMatch(e -> e instanceof RegionTerminated || e instanceof ProxyTerminated
        || e instanceof ShardHomeDeallocated), events.toString());
  }

  @Test
  void toEventsReplayedFromEmptyRebuildsAnEqualState() {
    CoordinatorState s = apply(CoordinatorState.empty(), new RegionRegistered(r2), new RegionRegistered(r1),
        new ProxyRegistered(p1), new ShardHomeAllocated("z", r1), new ShardHomeAllocated("a", r1),
        new ShardHomeAllocated("m", r2), new ProxyRegistered(p2), new ProxyTerminated(p1));
    assertRebuilds(s);
  }

  @Test
  void toEventsRebuildsStatesReachedByRandomHistories() {
    Random random = new Random(20240611L);
    for (int round = 0; round < 200; round++) {
      CoordinatorState s = randomHistory(random, 1 + random.nextInt(120));
      assertRebuilds(s);
    }
  }

  private static void assertRebuilds(CoordinatorState s) {
    CoordinatorState rebuilt = CoordinatorState.empty();
    for (CoordinatorEvent e : s.toEvents()) {
      rebuilt = rebuilt.applied(e);
    }
    assertEquals(s, rebuilt);
    assertEquals(s.hashCode(), rebuilt.hashCode());
    // equals() may ignore order and the derived shard map; a store replaying a snapshot must not.
    assertEquals(new ArrayList<>(s.regions().keySet()), new ArrayList<>(rebuilt.regions().keySet()));
    for (ActorRef<Object> r : s.regions().keySet()) {
      assertEquals(s.regions().get(r), rebuilt.regions().get(r));
    }
    assertEquals(s.shards(), rebuilt.shards());
    assertEquals(s.proxies(), rebuilt.proxies());
  }

  // Applies only events valid in the current state, so every kind of event occurs.
  private static CoordinatorState randomHistory(Random random, int steps) {
    CoordinatorState s = CoordinatorState.empty();
    for (int i = 0; i < steps; i++) {
      CoordinatorEvent e = randomEvent(random, s, "shard-" + i);
      if (e != null) {
        s = s.applied(e);
      }
    }
    return s;
  }

  /** An event valid in {@code s}, or null when the kind drawn has nothing to act on. */
  private static CoordinatorEvent randomEvent(Random random, CoordinatorState s, String newShard) {
    ActorRef<Object> ref = pool.get(random.nextInt(pool.size()));
    List<ActorRef<Object>> regions = new ArrayList<>(s.regions().keySet());
    switch (random.nextInt(6)) {
      case 0 -> {
        return s.regions().containsKey(ref) ? null : new RegionRegistered(ref);
      }
      case 1 -> {
        return s.proxies().contains(ref) || s.regions().containsKey(ref) ? null : new ProxyRegistered(ref);
      }
      case 2 -> {
        return regions.isEmpty() || random.nextInt(4) != 0 ? null
            : new RegionTerminated(regions.get(random.nextInt(regions.size())));
      }
      case 3 -> {
        if (s.proxies().isEmpty()) {
          return null;
        }
        List<ActorRef<Object>> proxies = new ArrayList<>(s.proxies());
        proxies.sort(null);
        return new ProxyTerminated(proxies.get(random.nextInt(proxies.size())));
      }
      case 4 -> {
        List<String> allocated = new ArrayList<>(s.shards().keySet());
        allocated.sort(null);
        return allocated.isEmpty() ? null : new ShardHomeDeallocated(allocated.get(random.nextInt(allocated.size())));
      }
      default -> {
        return regions.isEmpty() ? null : new ShardHomeAllocated(newShard, regions.get(random.nextInt(regions.size())));
      }
    }
  }

  // ---- persistent structure

  @Test
  void randomHistoriesMatchAModelThatCopiesEverythingAndLeaveEveryEarlierStateIntact() {
    // The state shares structure between versions; a model of plain Java collections, copied
    // whole at every step, says what each version must hold, and every earlier version is checked
    // again at the end: an update that leaked into shared structure would change it.
    Random random = new Random(4242L);
    for (int round = 0; round < 20; round++) {
      CoordinatorState s = CoordinatorState.empty();
      Model model = new Model(new LinkedHashMap<>(), new HashSet<>(), new HashMap<>());
      List<CoordinatorState> states = new ArrayList<>();
      List<Model> models = new ArrayList<>();
      for (int i = 0; i < 300; i++) {
        CoordinatorEvent e = randomEvent(random, s, "shard-" + i);
        if (e == null) {
          continue;
        }
        s = s.applied(e);
        model = model.applied(e);
        model.assertHeldBy(s, "after " + e);
        states.add(s);
        models.add(model);
      }
      for (int i = 0; i < states.size(); i++) {
        models.get(i).assertHeldBy(states.get(i), "state " + i + " of round " + round + ", checked again");
      }
    }
  }

  /** The state as plain Java collections, each event applied to a full copy. */
  private record Model(LinkedHashMap<ActorRef<Object>, List<String>> regions, Set<ActorRef<Object>> proxies,
      Map<String, ActorRef<Object>> shards) {

    Model applied(CoordinatorEvent event) {
      LinkedHashMap<ActorRef<Object>, List<String>> r = new LinkedHashMap<>();
      regions.forEach((k, v) -> r.put(k, new ArrayList<>(v)));
      Set<ActorRef<Object>> p = new HashSet<>(proxies);
      Map<String, ActorRef<Object>> s = new HashMap<>(shards);
      if (event instanceof RegionRegistered e) {
        r.put(e.region(), new ArrayList<>());
        p.remove(e.region());
      } else if (event instanceof ProxyRegistered e) {
        p.add(e.proxy());
      } else if (event instanceof RegionTerminated e) {
        r.remove(e.region()).forEach(s::remove);
      } else if (event instanceof ProxyTerminated e) {
        p.remove(e.proxy());
      } else if (event instanceof ShardHomeAllocated e) {
        r.get(e.region()).add(e.shardId());
        s.put(e.shardId(), e.region());
      } else if (event instanceof ShardHomeDeallocated e) {
        r.get(s.remove(e.shardId())).remove(e.shardId());
      }
      return new Model(r, p, s);
    }

    void assertHeldBy(CoordinatorState state, String when) {
      assertEquals(new ArrayList<>(regions.keySet()), new ArrayList<>(state.regions().keySet()), when);
      regions.forEach((region, list) -> assertEquals(list, state.regions().get(region), when));
      assertEquals(regions.size(), state.regions().size(), when);
      assertEquals(proxies, state.proxies(), when);
      assertEquals(shards, state.shards(), when);
      shards.forEach((shard, home) -> assertEquals(Optional.of(home), state.homeOf(shard), when));
    }
  }

  // ---- equality

  @Test
  void statesWithTheSameContentAreEqualWhateverTheHistory() {
    CoordinatorState direct = apply(CoordinatorState.empty(), new RegionRegistered(r1), new ShardHomeAllocated("a", r1));
    CoordinatorState roundabout = apply(CoordinatorState.empty(), new ProxyRegistered(p1), new RegionRegistered(r1),
        new RegionRegistered(r2), new ShardHomeAllocated("b", r2), new ShardHomeAllocated("a", r1),
        new RegionTerminated(r2), new ProxyTerminated(p1));
    assertEquals(direct, roundabout);
    assertEquals(direct.hashCode(), roundabout.hashCode());
  }

  @Test
  void statesWithDifferentContentAreNotEqual() {
    CoordinatorState base = apply(CoordinatorState.empty(), new RegionRegistered(r1), new RegionRegistered(r2));
    assertNotEquals(apply(base, new ShardHomeAllocated("a", r1)), apply(base, new ShardHomeAllocated("a", r2)));
    assertNotEquals(base, apply(base, new ProxyRegistered(p1)));
    assertNotEquals(base, CoordinatorState.empty());
    assertFalse(base.equals(null));
    assertFalse(base.equals("state"));
  }
}
