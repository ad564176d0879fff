package dev.shardkit.sharding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.pekko.actor.Address;
import org.junit.jupiter.api.Test;

class LeastShardAllocationStrategyTest {

  private static RegionInfo region(int port, int upNumber) {
    return new RegionInfo(new Address("pekko", "sys", "127.0.0.1", port), Set.of(), upNumber);
  }

  private static List<String> shards(String prefix, int n) {
    return IntStream.range(0, n).mapToObj(i -> prefix + i).collect(Collectors.toList());
  }

  /** Builds an allocation from (region, shard count) pairs; shard ids are unique per region. */
  private static ShardAllocation counts(Object... regionAndCount) {
    Map<RegionInfo, List<String>> m = new LinkedHashMap<>();
    for (int i = 0; i < regionAndCount.length; i += 2) {
      RegionInfo r = (RegionInfo) regionAndCount[i];
      m.put(r, shards(r.address().port().get() + "-", (Integer) regionAndCount[i + 1]));
    }
    return ShardAllocation.of(m);
  }

  private static Map<RegionInfo, Integer> countsOf(ShardAllocation a) {
    Map<RegionInfo, Integer> c = new HashMap<>();
    a.regions().forEach(r -> c.put(r, a.shardsOf(r).size()));
    return c;
  }

  private static int spread(ShardAllocation a) {
    Map<RegionInfo, Integer> c = countsOf(a);
    return Collections.max(c.values()) - Collections.min(c.values());
  }

  // ---- allocation

  @Test
  void allocatesToTheRegionWithFewestShards() {
    RegionInfo a = region(2551, 1);
    RegionInfo b = region(2552, 2);
    RegionInfo c = region(2553, 3);
    ShardAllocation alloc = counts(a, 3, b, 1, c, 2);
    LeastShardAllocationStrategy strategy = new LeastShardAllocationStrategy();
    assertEquals(b, strategy.allocateShard(a, "new", alloc));
    assertEquals(b, strategy.allocateShard(c, "new", alloc));
    assertEquals(b, strategy.allocateShard(b, "new", alloc));
  }

  @Test
  void requesterWinsATieForFewest() {
    RegionInfo a = region(2551, 1);
    RegionInfo b = region(2552, 2);
    RegionInfo c = region(2553, 3);
    ShardAllocation alloc = counts(a, 1, b, 1, c, 1);
    LeastShardAllocationStrategy strategy = new LeastShardAllocationStrategy();
    // The youngest requester too: a tie must not fall back to age when the requester is among the least.
    assertEquals(c, strategy.allocateShard(c, "new", alloc));
    assertEquals(b, strategy.allocateShard(b, "new", alloc));
    assertEquals(a, strategy.allocateShard(a, "new", alloc));
  }

  @Test
  void requesterWithMoreShardsDoesNotWin() {
    RegionInfo a = region(2551, 1);
    RegionInfo b = region(2552, 2);
    ShardAllocation alloc = counts(a, 0, b, 1);
    assertEquals(a, new LeastShardAllocationStrategy().allocateShard(b, "new", alloc));
  }

  @Test
  void oldestWinsATieOtherwise() {
    RegionInfo young = region(2551, 7);
    RegionInfo oldest = region(2552, 1);
    RegionInfo middle = region(2553, 4);
    RegionInfo requester = region(2554, 0);
    // Insertion order deliberately differs from age order.
    ShardAllocation alloc = counts(young, 2, middle, 2, oldest, 2, requester, 5);
    assertEquals(oldest, new LeastShardAllocationStrategy().allocateShard(requester, "new", alloc));
  }

  @Test
  void oldestWinsWhenTheRequesterIsNotARegion() {
    // A proxy asks for a home: it is not in the allocation and must never be chosen.
    RegionInfo proxy = region(2600, 0);
    RegionInfo a = region(2551, 3);
    RegionInfo b = region(2552, 2);
    ShardAllocation alloc = counts(a, 0, b, 0);
    assertEquals(b, new LeastShardAllocationStrategy().allocateShard(proxy, "new", alloc));
  }

  @Test
  void sameAgeIsDecidedByAddress() {
    RegionInfo high = region(2553, 5);
    RegionInfo low = region(2552, 5);
    ShardAllocation alloc = counts(high, 0, low, 0);
    RegionInfo outsider = region(9999, 0);
    assertEquals(low, new LeastShardAllocationStrategy().allocateShard(outsider, "new", alloc));
    assertTrue(low.isOlderThan(high));
  }

  @Test
  void allocatingWithoutRegionsFailsNamingTheShard() {
    ShardAllocation empty = ShardAllocation.of(Map.of());
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new LeastShardAllocationStrategy().allocateShard(region(2551, 0), "shard-9", empty));
    assertTrue(e.getMessage().contains("shard-9"), e.getMessage());
  }

  private static ShardAllocation allocateSequentially(int shardCount, List<RegionInfo> regions, Random requesters) {
    LeastShardAllocationStrategy strategy = new LeastShardAllocationStrategy();
    Map<RegionInfo, List<String>> m = new LinkedHashMap<>();
    regions.forEach(r -> m.put(r, new ArrayList<>()));
    for (int i = 0; i < shardCount; i++) {
      ShardAllocation current = ShardAllocation.of(m);
      RegionInfo requester = regions.get(requesters.nextInt(regions.size()));
      RegionInfo chosen = strategy.allocateShard(requester, "s" + i, current);
      assertTrue(m.containsKey(chosen), "chose a region outside the allocation: " + chosen);
      m.get(chosen).add("s" + i);
    }
    return ShardAllocation.of(m);
  }

  private static List<RegionInfo> regions(int n) {
    List<RegionInfo> list = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      list.add(region(2551 + i, n - i));
    }
    return list;
  }

  @Test
  void sequentialAllocationOf30ShardsOver3RegionsIsEven() {
    ShardAllocation result = allocateSequentially(30, regions(3), new Random(1));
    assertEquals(30, result.shardCount());
    assertTrue(spread(result) <= 1, result.toString());
    assertEquals(Set.of(10), new HashSet<>(countsOf(result).values()));
  }

  @Test
  void sequentialAllocationOf1000ShardsOver7RegionsIsEven() {
    ShardAllocation result = allocateSequentially(1000, regions(7), new Random(2));
    assertEquals(1000, result.shardCount());
    assertTrue(spread(result) <= 1, result.toString());
  }

  @Test
  void sequentialAllocationStaysEvenWhenOneRegionAlwaysAsks() {
    // Requester-wins-ties must not let an eager requester hoard shards.
    Random alwaysFirst = new Random() {
      @Override
      public int nextInt(int bound) {
        return 0;
      }
    };
    ShardAllocation result = allocateSequentially(101, regions(4), alwaysFirst);
    assertTrue(spread(result) <= 1, result.toString());
  }

  // ---- rebalance

  @Test
  void nothingMovesWhenBalancedWithinTheThreshold() {
    LeastShardAllocationStrategy strategy = new LeastShardAllocationStrategy(1, 20, 1.0);
    assertEquals(Set.of(), strategy.rebalance(counts(region(1, 1), 3, region(2, 2), 2, region(3, 3), 2), Set.of()));
    assertEquals(Set.of(), strategy.rebalance(counts(region(1, 1), 5, region(2, 2), 5), Set.of()));
    assertEquals(Set.of(), strategy.rebalance(counts(region(1, 1), 0, region(2, 2), 0), Set.of()));

    LeastShardAllocationStrategy lenient = new LeastShardAllocationStrategy(3, 20, 1.0);
    assertEquals(Set.of(), lenient.rebalance(counts(region(1, 1), 5, region(2, 2), 2), Set.of()));
    // One past the threshold does move.
    assertEquals(1, lenient.rebalance(counts(region(1, 1), 6, region(2, 2), 2), Set.of()).size());
  }

  @Test
  void nothingMovesWithFewerThanTwoRegions() {
    LeastShardAllocationStrategy strategy = new LeastShardAllocationStrategy();
    assertEquals(Set.of(), strategy.rebalance(ShardAllocation.of(Map.of()), Set.of()));
    assertEquals(Set.of(), strategy.rebalance(counts(region(1, 1), 50), Set.of()));
  }

  @Test
  void movesFromTheRichestToThePoorestUntilBalanced() {
    RegionInfo a = region(2551, 1);
    RegionInfo b = region(2552, 2);
    RegionInfo c = region(2553, 3);
    ShardAllocation alloc = counts(a, 2, b, 10, c, 5);
    Set<String> moved = new LeastShardAllocationStrategy(1, 100, 1.0).rebalance(alloc, Set.of());
    // 17 shards over 3 regions: 10 -> 6 leaves (6, 6, 5), within the threshold.
    assertEquals(4, moved.size(), moved.toString());
    assertTrue(alloc.shardsOf(b).containsAll(moved), moved.toString());
  }

  @Test
  void theMostRecentlyAllocatedShardsMoveFirst() {
    RegionInfo a = region(2551, 1);
    RegionInfo b = region(2552, 2);
    Map<RegionInfo, List<String>> m = new LinkedHashMap<>();
    m.put(a, List.of("old", "older", "mid", "new1", "new2"));
    m.put(b, List.of());
    Set<String> moved = new LeastShardAllocationStrategy(1, 100, 1.0).rebalance(ShardAllocation.of(m), Set.of());
    assertEquals(Set.of("new1", "new2"), moved);
  }

  @Test
  void respectsTheAbsoluteLimit() {
    ShardAllocation alloc = counts(region(1, 1), 100, region(2, 2), 0);
    assertEquals(3, new LeastShardAllocationStrategy(1, 3, 1.0).rebalance(alloc, Set.of()).size());
    assertEquals(1, new LeastShardAllocationStrategy(1, 1, 1.0).rebalance(alloc, Set.of()).size());
  }

  @Test
  void respectsTheRelativeLimit() {
    ShardAllocation alloc = counts(region(1, 1), 100, region(2, 2), 0);
    assertEquals(5, new LeastShardAllocationStrategy(1, 50, 0.05).rebalance(alloc, Set.of()).size());
    assertEquals(25, new LeastShardAllocationStrategy(1, 50, 0.25).rebalance(alloc, Set.of()).size());
    // The smaller of the two limits applies.
    assertEquals(10, new LeastShardAllocationStrategy(1, 10, 0.25).rebalance(alloc, Set.of()).size());
  }

  @Test
  void aTinyRelativeLimitStillMovesOneShard() {
    // Otherwise a small cluster with a small fraction would never rebalance at all.
    ShardAllocation alloc = counts(region(1, 1), 10, region(2, 2), 0);
    assertEquals(1, new LeastShardAllocationStrategy(1, 20, 0.001).rebalance(alloc, Set.of()).size());
  }

  @Test
  void defaultsMoveAtMost20OrATenthPerRound() {
    LeastShardAllocationStrategy defaults = new LeastShardAllocationStrategy();
    assertEquals(20, defaults.rebalance(counts(region(1, 1), 500, region(2, 2), 0), Set.of()).size());
    assertEquals(5, defaults.rebalance(counts(region(1, 1), 50, region(2, 2), 0), Set.of()).size());
    // Threshold 1: a difference of 1 stays, of 2 moves.
    assertEquals(Set.of(), defaults.rebalance(counts(region(1, 1), 2, region(2, 2), 1), Set.of()));
    assertEquals(1, defaults.rebalance(counts(region(1, 1), 3, region(2, 2), 1), Set.of()).size());
  }

  @Test
  void neverPicksShardsInProgress() {
    RegionInfo a = region(2551, 1);
    RegionInfo b = region(2552, 2);
    Map<RegionInfo, List<String>> m = new LinkedHashMap<>();
    m.put(a, List.of("s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7"));
    m.put(b, List.of());
    ShardAllocation alloc = ShardAllocation.of(m);
    LeastShardAllocationStrategy strategy = new LeastShardAllocationStrategy(1, 100, 1.0);

    Set<String> inProgress = Set.of("s7", "s6", "s4");
    Set<String> moved = strategy.rebalance(alloc, inProgress);
    assertFalse(moved.isEmpty());
    assertTrue(Collections.disjoint(moved, inProgress), moved.toString());

    assertEquals(Set.of(), strategy.rebalance(alloc, Set.copyOf(m.get(a))));
  }

  @Test
  void aRegionNeverBothGivesAndReceivesInOneRound_property() {
    Random random = new Random(0x5eed_2024L);
    int unbalancedRounds = 0;
    for (int round = 0; round < 2000; round++) {
      int regionCount = 2 + random.nextInt(7);
      Map<RegionInfo, List<String>> m = new LinkedHashMap<>();
      List<String> all = new ArrayList<>();
      for (int i = 0; i < regionCount; i++) {
        // Skewed counts, including empty regions, so that some rounds are far from balanced.
        int n = random.nextInt(4) == 0 ? 0 : random.nextInt(random.nextBoolean() ? 8 : 60);
        RegionInfo r = region(3000 + i, random.nextInt(5));
        List<String> list = shards("r" + i + "-", n);
        m.put(r, list);
        all.addAll(list);
      }
      Set<String> inProgress = new HashSet<>();
      if (random.nextInt(3) == 0) {
        all.forEach(s -> {
          if (random.nextInt(5) == 0) {
            inProgress.add(s);
          }
        });
      }
      int threshold = 1 + random.nextInt(3);
      int absolute = 1 + random.nextInt(30);
      double relative = 0.01 + random.nextDouble();
      LeastShardAllocationStrategy strategy = new LeastShardAllocationStrategy(threshold, absolute, relative);
      ShardAllocation alloc = ShardAllocation.of(m);
      Set<String> moved = strategy.rebalance(alloc, inProgress);
      String ctx = "round " + round + ": " + alloc + " inProgress=" + inProgress + " threshold=" + threshold
          + " absolute=" + absolute + " relative=" + relative + " moved=" + moved;

      int limit = Math.min(absolute, Math.max(1, (int) (relative * alloc.shardCount())));
      assertTrue(moved.size() <= limit, ctx);
      assertTrue(Collections.disjoint(moved, inProgress), ctx);
      assertTrue(all.containsAll(moved), ctx);

      Map<RegionInfo, Integer> count = countsOf(alloc);
      Map<RegionInfo, Integer> given = new HashMap<>();
      moved.forEach(s -> given.merge(alloc.homeOf(s).orElseThrow(), 1, Integer::sum));
      List<RegionInfo> nonGivers = alloc.regions().stream().filter(r -> !given.containsKey(r)).toList();
      if (!moved.isEmpty()) {
        // Someone must receive, and only a region that gives nothing can.
        assertFalse(nonGivers.isEmpty(), ctx);
        int poorestReceiver = nonGivers.stream().mapToInt(count::get).min().orElseThrow();
        int room = 0;
        int richestGiver = given.keySet().stream().mapToInt(count::get).max().orElseThrow();
        for (RegionInfo r : nonGivers) {
          room += Math.max(0, richestGiver - threshold - count.get(r));
        }
        for (Map.Entry<RegionInfo, Integer> g : given.entrySet()) {
          int before = count.get(g.getKey());
          int after = before - g.getValue();
          // A giver is rich: more than the threshold above the poorest...
          assertTrue(before - poorestReceiver > threshold, ctx);
          // ...and it stops giving while it is still at least `threshold` above every region that could
          // receive. Giving more would make it a region that needs shards back in the same round.
          assertTrue(after >= poorestReceiver + threshold, ctx);
        }
        // Receivers never end above the richest giver minus the threshold, so all moved shards fit there.
        assertTrue(moved.size() <= room, ctx);
      }

      if (spread(alloc) > threshold && inProgress.isEmpty()) {
        unbalancedRounds++;
        assertFalse(moved.isEmpty(), "an unbalanced allocation must make progress; " + ctx);
      }
    }
    // Guards the generator: the property above must have been exercised on unbalanced input.
    assertTrue(unbalancedRounds > 500, "unbalanced rounds: " + unbalancedRounds);
  }

  @Test
  void repeatedRoundsConvergeToBalanced() {
    Random random = new Random(77);
    for (int trial = 0; trial < 100; trial++) {
      int regionCount = 2 + random.nextInt(8);
      int threshold = 1 + random.nextInt(3);
      LeastShardAllocationStrategy strategy =
          new LeastShardAllocationStrategy(threshold, 1 + random.nextInt(20), 0.01 + random.nextDouble() * 0.3);
      List<RegionInfo> regions = new ArrayList<>();
      Map<RegionInfo, List<String>> m = new LinkedHashMap<>();
      int total = random.nextInt(400);
      for (int i = 0; i < regionCount; i++) {
        RegionInfo r = region(4000 + i, i);
        regions.add(r);
        m.put(r, new ArrayList<>());
      }
      // Everything starts on one or two regions, as after the others joined.
      for (int s = 0; s < total; s++) {
        m.get(regions.get(random.nextInt(Math.min(2, regionCount)))).add("s" + s);
      }

      int rounds = 0;
      while (true) {
        ShardAllocation before = ShardAllocation.of(m);
        Set<String> moved = strategy.rebalance(before, Set.of());
        if (moved.isEmpty()) {
          break;
        }
        assertTrue(++rounds < 500, "no convergence after 500 rounds: " + before);
        // Hand-off: the shards lose their home, then get one again when next needed.
        for (String s : moved) {
          m.get(before.homeOf(s).orElseThrow()).remove(s);
        }
        for (String s : moved) {
          RegionInfo requester = regions.get(random.nextInt(regionCount));
          RegionInfo chosen = strategy.allocateShard(requester, s, ShardAllocation.of(m));
          m.get(chosen).add(s);
        }
      }
      ShardAllocation end = ShardAllocation.of(m);
      assertEquals(total, end.shardCount());
      assertTrue(spread(end) <= threshold, "trial " + trial + ": " + end + " threshold " + threshold);
    }
  }

  // ---- construction

  @Test
  void constructorRejectsOutOfRangeArgumentsNamingTheSetting() {
    IllegalArgumentException t = assertThrows(IllegalArgumentException.class,
        () -> new LeastShardAllocationStrategy(0, 20, 0.1));
    assertEquals("rebalance-threshold must be at least 1, got 0", t.getMessage());
    IllegalArgumentException a = assertThrows(IllegalArgumentException.class,
        () -> new LeastShardAllocationStrategy(1, 0, 0.1));
    assertEquals("rebalance-absolute-limit must be at least 1, got 0", a.getMessage());
    IllegalArgumentException r = assertThrows(IllegalArgumentException.class,
        () -> new LeastShardAllocationStrategy(1, 20, 0.0));
    assertEquals("rebalance-relative-limit must be above 0, got 0.0", r.getMessage());
    assertThrows(IllegalArgumentException.class, () -> new LeastShardAllocationStrategy(-5, 20, 0.1));
    assertThrows(IllegalArgumentException.class, () -> new LeastShardAllocationStrategy(1, -1, 0.1));
    assertThrows(IllegalArgumentException.class, () -> new LeastShardAllocationStrategy(1, 20, -0.5));
    IllegalArgumentException nan = assertThrows(IllegalArgumentException.class,
        () -> new LeastShardAllocationStrategy(1, 20, Double.NaN));
    assertTrue(nan.getMessage().contains("NaN"), nan.getMessage());
  }

  @Test
  void smallestValidArgumentsAreAccepted() {
    LeastShardAllocationStrategy s = new LeastShardAllocationStrategy(1, 1, Double.MIN_VALUE);
    assertEquals(1, s.rebalance(counts(region(1, 1), 4, region(2, 2), 0), Set.of()).size());
  }

  @Test
  void rebalanceDoesNotMutateItsArguments() {
    RegionInfo a = region(2551, 1);
    RegionInfo b = region(2552, 2);
    ShardAllocation alloc = counts(a, 6, b, 0);
    List<String> before = List.copyOf(alloc.shardsOf(a));
    Set<String> inProgress = new HashSet<>(Set.of("2551-0"));
    Set<String> moved = new LeastShardAllocationStrategy().rebalance(alloc, inProgress);
    assertFalse(moved.isEmpty());
    assertEquals(before, alloc.shardsOf(a));
    assertEquals(Set.of("2551-0"), inProgress);
  }

  // ---- several shards at once

  /** What {@code allocateShard} chooses for each shard in turn, each over the allocation the last left. */
  private static List<RegionInfo> oneByOne(ShardAllocationStrategy strategy, RegionInfo requester,
      List<String> shardIds, ShardAllocation start) {
    Map<RegionInfo, List<String>> current = new LinkedHashMap<>();
    start.shardsByRegion().forEach((r, s) -> current.put(r, new ArrayList<>(s)));
    List<RegionInfo> homes = new ArrayList<>();
    for (String shardId : shardIds) {
      RegionInfo home = strategy.allocateShard(requester, shardId, ShardAllocation.of(current));
      current.get(home).add(shardId);
      homes.add(home);
    }
    return homes;
  }

  @Test
  void allocatingManyShardsChoosesWhatAllocatingThemOneByOneWould() {
    // 17 regions with uneven counts and ages in a shuffled order: ties between equal counts are
    // broken by age, and by the requester when it is one of them.
    Random random = new Random(17);
    Map<RegionInfo, List<String>> start = new LinkedHashMap<>();
    for (int i = 0; i < 17; i++) {
      RegionInfo r = region(2600 + i, (i * 5) % 17);
      start.put(r, shards(r.address().port().get() + "-", random.nextInt(40)));
    }
    ShardAllocation allocation = ShardAllocation.of(start);
    List<String> batch = shards("new-", 2_000);
    LeastShardAllocationStrategy strategy = new LeastShardAllocationStrategy();
    for (RegionInfo requester : List.of(allocation.regions().get(9), region(9999, Integer.MAX_VALUE))) {
      List<RegionInfo> expected = oneByOne(strategy, requester, batch, allocation);
      assertEquals(expected, strategy.allocateShards(requester, batch, allocation), "requester " + requester);
      assertEquals(expected, new OneAtATime(strategy).allocateShards(requester, batch, allocation),
          "the interface's default, requester " + requester);
    }
  }

  @Test
  void allocatingManyShardsWithNoRegionIsRefused() {
    ShardAllocation none = ShardAllocation.of(Map.of());
    RegionInfo requester = region(2551, 1);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new LeastShardAllocationStrategy().allocateShards(requester, List.of("a"), none));
    assertTrue(e.getMessage().contains("[a]"), e.getMessage());
  }

  @Test
  void theDefaultBatchGivesEachDecisionAViewThatLaterDecisionsDoNotChange() {
    RegionInfo a = region(2551, 1);
    RegionInfo b = region(2552, 2);
    List<ShardAllocation> seen = new ArrayList<>();
    List<Integer> countsWhenSeen = new ArrayList<>();
    ShardAllocationStrategy keeping = new OneAtATime(new LeastShardAllocationStrategy()) {
      @Override
      public RegionInfo allocateShard(RegionInfo requester, String shardId, ShardAllocation allocation) {
        seen.add(allocation);
        countsWhenSeen.add(allocation.shardCount());
        return super.allocateShard(requester, shardId, allocation);
      }
    };
    List<RegionInfo> homes = keeping.allocateShards(a, shards("s", 5), counts(a, 1, b, 0));
    assertEquals(List.of(b, a, b, a, b), homes);
    for (int i = 0; i < seen.size(); i++) {
      assertEquals(countsWhenSeen.get(i), seen.get(i).shardCount(), "view " + i + " unchanged");
      assertEquals(1 + i, seen.get(i).shardCount(), "view " + i + " holds the shards decided before it");
    }
  }

  @Test
  void theDefaultBatchRefusesAChoiceOutsideTheAllocationNamingTheShard() {
    RegionInfo a = region(2551, 1);
    RegionInfo stranger = region(2999, 5);
    ShardAllocationStrategy wrong = new OneAtATime(new LeastShardAllocationStrategy()) {
      @Override
      public RegionInfo allocateShard(RegionInfo requester, String shardId, ShardAllocation allocation) {
        return stranger;
      }
    };
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> wrong.allocateShards(a, List.of("x"), counts(a, 0)));
    assertTrue(e.getMessage().contains("[x]") && e.getMessage().contains("2999"), e.getMessage());
  }

  /** A strategy that keeps the interface's default for several shards: the other one's decisions, one at a time. */
  private static class OneAtATime implements ShardAllocationStrategy {
    private final ShardAllocationStrategy decides;

    OneAtATime(ShardAllocationStrategy decides) {
      this.decides = decides;
    }

    @Override
    public RegionInfo allocateShard(RegionInfo requester, String shardId, ShardAllocation allocation) {
      return decides.allocateShard(requester, shardId, allocation);
    }

    @Override
    public Set<String> rebalance(ShardAllocation allocation, Set<String> rebalanceInProgress) {
      return decides.rebalance(allocation, rebalanceInProgress);
    }
  }
}
