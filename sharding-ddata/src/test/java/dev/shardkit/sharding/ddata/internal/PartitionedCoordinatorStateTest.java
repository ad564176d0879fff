package dev.shardkit.sharding.ddata.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.spi.CoordinatorEvent;
import dev.shardkit.sharding.spi.CoordinatorEvent.ProxyRegistered;
import dev.shardkit.sharding.spi.CoordinatorEvent.RegionRegistered;
import dev.shardkit.sharding.spi.CoordinatorEvent.RegionTerminated;
import dev.shardkit.sharding.spi.CoordinatorEvent.ShardHomeAllocated;
import dev.shardkit.sharding.spi.CoordinatorEvent.ShardHomeDeallocated;
import dev.shardkit.sharding.spi.CoordinatorState;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorRefResolver;
import org.apache.pekko.actor.typed.ActorSystem;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Splitting a coordinator state into parts and merging it back: what comes back is the state,
 * allocation order included; an event touches only the parts it must; parts stay within their
 * limit at 100 000 shards.
 */
class PartitionedCoordinatorStateTest {
  private static final int PART_OF_SHARD_42 = 114;
  private static final int PART_OF_A = 26;
  private static ActorSystem<Void> system;
  private static final List<ActorRef<Object>> REGIONS = new ArrayList<>();
  private static Function<ActorRef<Object>, String> refs;
  private static Function<String, ActorRef<Object>> resolve;

  @BeforeAll
  static void start() {
    system = DDataGolden.system();
    ActorRefResolver resolver = ActorRefResolver.get(system);
    // 1 000 regions on as many nodes, as a coordinator of a large cluster knows them.
    for (int i = 0; i < 1000; i++) {
      REGIONS.add(resolver.resolveActorRef("pekko://" + DDataGolden.SYSTEM + "@10.0." + (i / 250) + "." + (i % 250)
          + ":25520/system/shardkit-region-Orders#" + (1_000_000_000L + i)));
    }
    refs = resolver::toSerializationFormat;
    resolve = resolver::resolveActorRef;
  }

  @AfterAll
  static void stop() {
    system.terminate();
  }

  private static ActorRef<Object> region(int i) {
    return REGIONS.get(i);
  }

  /** Regions 0..regions-1 and a proxy, then shards 0..shards-1 spread over them round robin. */
  private static CoordinatorState state(int regions, int shards, String prefix) {
    CoordinatorState s = CoordinatorState.empty();
    for (int i = 0; i < regions; i++) {
      s = s.applied(new RegionRegistered(region(i)));
    }
    s = s.applied(new ProxyRegistered(region(999)));
    for (int i = 0; i < shards; i++) {
      s = s.applied(new ShardHomeAllocated(prefix + i, region(i % regions)));
    }
    return s;
  }

  private static List<byte[]> payloads(PartitionedCoordinatorState p) {
    List<byte[]> all = new ArrayList<>();
    for (int i = 0; i <= p.shardParts(); i++) {
      all.add(p.payload(i, refs));
    }
    return all;
  }

  private static CoordinatorState decoded(List<byte[]> payloads) {
    return PartitionedCoordinatorState.decode(payloads.get(0), payloads.subList(1, payloads.size()), resolve);
  }

  @Test
  void theStateComesBackFromItsPartsWithEveryRegionsShardsInAllocationOrder() {
    CoordinatorState s = state(3, 50, "s-");
    for (int parts : new int[] {1, 4, 7}) {
      CoordinatorState back = decoded(payloads(PartitionedCoordinatorState.of(s, parts)));
      assertEquals(s, back, parts + " part(s)");
      assertEquals(s.regions().get(region(1)), back.regions().get(region(1)));
      assertEquals(List.copyOf(s.regions().keySet()), List.copyOf(back.regions().keySet()), "registration order");
      assertEquals(s.proxies(), back.proxies());
    }
    assertEquals(CoordinatorState.empty(), decoded(payloads(PartitionedCoordinatorState.of(CoordinatorState.empty(), 2))));
  }

  @Test
  void anAllocationRewritesOnlyItsShardsPartAndTheOthersKeepTheirBytes() {
    CoordinatorState s = state(3, 50, "s-");
    PartitionedCoordinatorState before = PartitionedCoordinatorState.of(s, 8);
    List<byte[]> old = payloads(before);
    // s-7 goes away and comes back elsewhere: it must then come last in its new region's list.
    List<CoordinatorEvent> events = List.of(new ShardHomeDeallocated("s-7"), new ShardHomeAllocated("s-7", region(0)),
        new ShardHomeAllocated("new", region(2)));
    CoordinatorState after = s;
    for (CoordinatorEvent e : events) {
      after = after.applied(e);
    }
    PartitionedCoordinatorState.Change change = before.after(events, after);
    assertEquals(Set.of(PartitionedCoordinatorState.partOf("s-7", 8), PartitionedCoordinatorState.partOf("new", 8)),
        change.touched());
    List<byte[]> now = new ArrayList<>(old);
    for (int i : change.touched()) {
      now.set(i, change.after().payload(i, refs));
    }
    for (int i = 0; i <= 8; i++) {
      assertArrayEquals(change.touched().contains(i) ? change.after().payload(i, refs) : old.get(i),
          payloads(change.after()).get(i), "part " + i);
    }
    CoordinatorState back = decoded(now);
    assertEquals(after, back);
    assertEquals("s-7", back.regions().get(region(0)).get(back.regions().get(region(0)).size() - 1));
  }

  @Test
  void regionEventsTouchTheDirectoryAndATerminatedRegionsShardParts() {
    CoordinatorState s = state(3, 12, "s-");
    PartitionedCoordinatorState before = PartitionedCoordinatorState.of(s, 16);
    CoordinatorState after = s.applied(new RegionTerminated(region(1)));
    PartitionedCoordinatorState.Change change = before.after(List.of(new RegionTerminated(region(1))), after);
    Set<Integer> expected = new HashSet<>(Set.of(0));
    s.regions().get(region(1)).forEach(shard -> expected.add(PartitionedCoordinatorState.partOf(shard, 16)));
    assertEquals(expected, change.touched());
    assertEquals(after, decoded(payloads(change.after())));

    CoordinatorState joined = after.applied(new RegionRegistered(region(5))).applied(new ShardHomeAllocated("x",
        region(5)));
    PartitionedCoordinatorState.Change next = change.after().after(List.of(new RegionRegistered(region(5)),
        new ShardHomeAllocated("x", region(5))), joined);
    assertEquals(Set.of(0, PartitionedCoordinatorState.partOf("x", 16)), next.touched());
    assertEquals(joined, decoded(payloads(next.after())));
  }

  @Test
  void doublingSplitsEveryPartInTwoAndKeepsTheState() {
    CoordinatorState s = state(4, 300, "shard-");
    PartitionedCoordinatorState doubled = PartitionedCoordinatorState.of(s, 4).doubled();
    assertEquals(8, doubled.shardParts());
    assertEquals(s, decoded(payloads(doubled)));
    int total = 0;
    for (int i = 1; i <= 8; i++) {
      total += doubled.shardsIn(i);
    }
    assertEquals(300, total);
  }

  @Test
  void aLargeStateIsSizedSoThatEveryPartFitsAndOneAllocationTouchesOnePart() {
    // 20 000 shards with ids of 30 characters or so over 1 000 regions (DDataLargeCoordinatorStateTest
    // stores 100 000 between real nodes).
    CoordinatorState s = state(1000, 20_000, "customer-order-shard-0000");
    PartitionedCoordinatorState p = PartitionedCoordinatorState.sized(s, refs);
    int largest = 0;
    for (int i = 1; i <= p.shardParts(); i++) {
      largest = Math.max(largest, p.payload(i, refs).length);
    }
    assertTrue(largest <= PartitionedCoordinatorState.PART_LIMIT, "largest part " + largest + " bytes");
    assertTrue(p.shardParts() >= 16 && p.shardParts() <= 64, p.shardParts() + " parts for about 700 KB of shards");
    // One allocation rewrites one part, whatever the total.
    CoordinatorState after = s.applied(new ShardHomeAllocated("one-more", region(3)));
    assertEquals(Set.of(PartitionedCoordinatorState.partOf("one-more", p.shardParts())),
        p.after(List.of(new ShardHomeAllocated("one-more", region(3))), after).touched());
    assertEquals(s, decoded(payloads(p)));
  }

  @Test
  void theHashThatPlacesShardsIsStable() {
    // Fixed values: a change of the hash would split stored states differently (a take-over
    // rewrites every part, so it would be safe, but it must be deliberate).
    assertEquals(PART_OF_SHARD_42, PartitionedCoordinatorState.partOf("shard-42", 128));
    assertEquals(PART_OF_A, PartitionedCoordinatorState.partOf("a", 256));
  }

  @Test
  void partsThatDoNotDescribeAStateAreRefusedNamingWhy() {
    CoordinatorState s = state(2, 10, "s-");
    List<byte[]> parts = payloads(PartitionedCoordinatorState.of(s, 2));
    IllegalArgumentException wrongPart = assertThrows(IllegalArgumentException.class,
        () -> PartitionedCoordinatorState.decode(parts.get(0), List.of(parts.get(2), parts.get(1)), resolve));
    assertTrue(wrongPart.getMessage().contains("not its own"), wrongPart.getMessage());
    byte[] noRegions = PartitionedCoordinatorState.of(CoordinatorState.empty(), 1).payload(0, refs);
    IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class,
        () -> PartitionedCoordinatorState.decode(noRegions, List.of(payloads(PartitionedCoordinatorState.of(s, 1))
            .get(1)), resolve));
    assertTrue(unknown.getMessage().contains("which the directory does not list"), unknown.getMessage());
    IllegalArgumentException format = assertThrows(IllegalArgumentException.class,
        () -> PartitionedCoordinatorState.decode(new byte[] {9}, List.of(parts.get(1)), resolve));
    assertTrue(format.getMessage().contains("the directory is in payload format 9"), format.getMessage());
    IllegalArgumentException none = assertThrows(IllegalArgumentException.class,
        () -> PartitionedCoordinatorState.of(s, 0));
    assertTrue(none.getMessage().contains("at least 1 shard part"), none.getMessage());
    assertFalse(PartitionedCoordinatorState.of(s, 1).payload(1, refs).length == 0);
  }
}
