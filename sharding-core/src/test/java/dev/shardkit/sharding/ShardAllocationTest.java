package dev.shardkit.sharding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.pekko.actor.Address;
import org.junit.jupiter.api.Test;

class ShardAllocationTest {

  private static RegionInfo region(String host, int port, int upNumber) {
    return new RegionInfo(new Address("pekko", "sys", host, port), Set.of("backend"), upNumber);
  }

  @Test
  void rejectsAShardUnderTwoRegions() {
    RegionInfo a = region("127.0.0.1", 2551, 1);
    RegionInfo b = region("127.0.0.1", 2552, 2);
    Map<RegionInfo, List<String>> m = new LinkedHashMap<>();
    m.put(a, List.of("1", "2"));
    m.put(b, List.of("3", "2"));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ShardAllocation.of(m));
    assertTrue(e.getMessage().contains("[2]"), e.getMessage());
    assertTrue(e.getMessage().contains(a.address().toString()), e.getMessage());
    assertTrue(e.getMessage().contains(b.address().toString()), e.getMessage());
  }

  @Test
  void rejectsAShardListedTwiceUnderOneRegion() {
    // Otherwise shardCount() (distinct shards) and the per-region counts would disagree.
    RegionInfo a = region("127.0.0.1", 2551, 1);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> ShardAllocation.of(Map.of(a, List.of("7", "7"))));
    assertTrue(e.getMessage().contains("[7]"), e.getMessage());
  }

  @Test
  void ordersRegionsOldestFirst() {
    RegionInfo young = region("127.0.0.1", 2551, 9);
    RegionInfo oldest = region("127.0.0.1", 2552, 0);
    RegionInfo middle = region("127.0.0.1", 2553, 4);
    Map<RegionInfo, List<String>> m = new LinkedHashMap<>();
    m.put(young, List.of("a"));
    m.put(oldest, List.of("b"));
    m.put(middle, List.of());
    ShardAllocation alloc = ShardAllocation.of(m);
    assertEquals(List.of(oldest, middle, young), alloc.regions());
    assertEquals(List.of(oldest, middle, young), new ArrayList<>(alloc.shardsByRegion().keySet()));
  }

  @Test
  void sameAgeIsOrderedByAddressAsIsOlderThanDoes() {
    RegionInfo b = region("127.0.0.2", 2551, 3);
    RegionInfo a = region("127.0.0.1", 2559, 3);
    RegionInfo unseen = region("127.0.0.0", 1, Integer.MAX_VALUE);
    Map<RegionInfo, List<String>> m = new HashMap<>();
    m.put(unseen, List.of());
    m.put(b, List.of());
    m.put(a, List.of());
    List<RegionInfo> ordered = ShardAllocation.of(m).regions();
    assertEquals(List.of(a, b, unseen), ordered);
    for (int i = 0; i + 1 < ordered.size(); i++) {
      assertTrue(ordered.get(i).isOlderThan(ordered.get(i + 1)));
    }
  }

  @Test
  void homeOfAndShardCount() {
    RegionInfo a = region("127.0.0.1", 2551, 1);
    RegionInfo b = region("127.0.0.1", 2552, 2);
    RegionInfo c = region("127.0.0.1", 2553, 3);
    Map<RegionInfo, List<String>> m = new LinkedHashMap<>();
    m.put(a, List.of("1", "2", "3"));
    m.put(b, List.of("4"));
    m.put(c, List.of());
    ShardAllocation alloc = ShardAllocation.of(m);
    assertEquals(4, alloc.shardCount());
    assertEquals(Optional.of(a), alloc.homeOf("2"));
    assertEquals(Optional.of(b), alloc.homeOf("4"));
    assertEquals(Optional.empty(), alloc.homeOf("5"));
    assertEquals(List.of("1", "2", "3"), alloc.shardsOf(a));
    assertEquals(List.of(), alloc.shardsOf(c));
    assertEquals(List.of(), alloc.shardsOf(region("127.0.0.1", 9999, 0)));
  }

  @Test
  void emptyAllocation() {
    ShardAllocation alloc = ShardAllocation.of(Map.of());
    assertEquals(0, alloc.shardCount());
    assertEquals(List.of(), alloc.regions());
    assertEquals(Optional.empty(), alloc.homeOf("1"));
  }

  @Test
  void isAnImmutableCopyOfItsInput() {
    RegionInfo a = region("127.0.0.1", 2551, 1);
    RegionInfo b = region("127.0.0.1", 2552, 2);
    List<String> shardsOfA = new ArrayList<>(List.of("1", "2"));
    Map<RegionInfo, List<String>> m = new LinkedHashMap<>();
    m.put(a, shardsOfA);
    ShardAllocation alloc = ShardAllocation.of(m);

    // A strategy's view must not shift under it when the caller keeps editing its own maps.
    shardsOfA.add("3");
    m.put(b, List.of("4"));
    assertEquals(List.of("1", "2"), alloc.shardsOf(a));
    assertEquals(List.of(a), alloc.regions());
    assertEquals(2, alloc.shardCount());
    assertEquals(Optional.empty(), alloc.homeOf("3"));

    assertThrows(UnsupportedOperationException.class, () -> alloc.shardsOf(a).add("x"));
    assertThrows(UnsupportedOperationException.class, () -> alloc.shardsByRegion().put(b, List.of()));
    assertThrows(UnsupportedOperationException.class, () -> alloc.regions().add(b));
  }
}
