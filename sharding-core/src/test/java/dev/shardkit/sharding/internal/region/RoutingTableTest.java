package dev.shardkit.sharding.internal.region;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.internal.delivery.Outbox;
import dev.shardkit.sharding.internal.region.RoutingTable.Home;
import dev.shardkit.sharding.internal.region.RoutingTable.Local;
import dev.shardkit.sharding.internal.region.RoutingTable.Remote;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class RoutingTableTest {
  private static ActorTestKit testKit;
  private static ActorRef<Object> shardA;
  private static ActorRef<Object> shardB;
  private static ActorRef<Object> region1;
  private static ActorRef<Object> region2;

  @BeforeAll
  static void startTestKit() {
    // Probes only provide real ActorRef identities; the table never sends anything.
    testKit = ActorTestKit.create();
    shardA = testKit.createTestProbe(Object.class).ref();
    shardB = testKit.createTestProbe(Object.class).ref();
    region1 = testKit.createTestProbe(Object.class).ref();
    region2 = testKit.createTestProbe(Object.class).ref();
  }

  private static final Map<ActorRef<Object>, Outbox> OUTBOXES = new java.util.HashMap<>();

  /** A remote home; one outbox per region, as a region keeps one link per destination. */
  private static Remote remote(ActorRef<Object> region) {
    return new Remote(region, OUTBOXES.computeIfAbsent(region, r -> new Outbox(r, 10)));
  }

  /** How many shards the table knows a home for: every probe lives on the test kit's one node. */
  private static int knownHomes(RoutingTable t) {
    return t.localShards().size() + t.shardsOn(region1.path().address()).size();
  }

  @AfterAll
  static void stopTestKit() {
    testKit.shutdownTestKit();
  }

  @Test
  void emptyTableKnowsNothing() {
    RoutingTable t = RoutingTable.empty();
    assertEquals(0, knownHomes(t));
    assertNull(t.home("1"));
    assertNull(t.home("1"));
    assertTrue(t.localShards().isEmpty());
    assertTrue(t.shardsOf(region1).isEmpty());
    assertSame(t, RoutingTable.empty());
  }

  @Test
  void homesAndTheirTargets() {
    RoutingTable t = RoutingTable.empty()
        .withHome("1", new Local(shardA))
        .withHome("2", remote(region1));
    assertEquals(new Local(shardA), t.home("1"));
    assertEquals(remote(region1), t.home("2"));
    assertSame(shardA, t.home("1").target());
    assertSame(region1, t.home("2").target());
    assertNull(t.home("3"));
    assertEquals(2, knownHomes(t));
  }

  @Test
  void homeTargets() {
    Home local = new Local(shardB);
    Home remote = remote(region2);
    assertSame(shardB, local.target());
    assertSame(region2, remote.target());
  }

  @Test
  void withHomeReplacesAnEarlierHome() {
    RoutingTable remote = RoutingTable.empty().withHome("1", remote(region1));
    RoutingTable moved = remote.withHome("1", remote(region2));
    RoutingTable local = moved.withHome("1", new Local(shardA));
    assertSame(region2, moved.home("1").target());
    assertSame(shardA, local.home("1").target());
    assertEquals(1, knownHomes(local));
    assertEquals(List.of(), local.shardsOf(region2));
  }

  @Test
  void withoutForgetsOneShard() {
    RoutingTable t = RoutingTable.empty()
        .withHome("1", new Local(shardA))
        .withHome("2", remote(region1));
    RoutingTable less = t.without("1");
    assertNull(less.home("1"));
    assertSame(region1, less.home("2").target());
    assertEquals(1, knownHomes(less));
    // Unknown shard: nothing to copy, so the same table (cheap for a hot-path publisher).
    assertSame(less, less.without("1"));
    assertSame(t, t.without("nope"));
  }

  @Test
  void withoutRegionForgetsOnlyThatRegionsShards() {
    RoutingTable t = RoutingTable.empty()
        .withHome("1", remote(region1))
        .withHome("2", remote(region2))
        .withHome("3", remote(region1))
        .withHome("4", new Local(shardA));
    RoutingTable less = t.withoutRegion(region1);
    assertNull(less.home("1"));
    assertNull(less.home("3"));
    assertSame(region2, less.home("2").target());
    assertSame(shardA, less.home("4").target());
    assertEquals(2, knownHomes(less));
    assertSame(less, less.withoutRegion(region1));
  }

  @Test
  void withoutRegionNeverDropsLocalShards() {
    // A Local home names the shard actor, not a region; even if refs were equal it is not remote.
    RoutingTable t = RoutingTable.empty().withHome("1", new Local(region1));
    assertSame(t, t.withoutRegion(region1));
    assertSame(region1, t.home("1").target());
  }

  @Test
  void localShardsAndShardsOfARegion() {
    RoutingTable t = RoutingTable.empty()
        .withHome("1", new Local(shardA))
        .withHome("2", new Local(shardB))
        .withHome("3", remote(region1))
        .withHome("4", remote(region2))
        .withHome("5", remote(region1));
    assertEquals(Map.of("1", shardA, "2", shardB), t.localShards());
    assertEquals(Set.of("3", "5"), new HashSet<>(t.shardsOf(region1)));
    assertEquals(2, t.shardsOf(region1).size());
    assertEquals(List.of("4"), t.shardsOf(region2));
    assertEquals(List.of(), t.shardsOf(shardA));
  }

  @Test
  void tablesAreImmutable() {
    RoutingTable t0 = RoutingTable.empty();
    RoutingTable t1 = t0.withHome("1", new Local(shardA));
    RoutingTable t2 = t1.withHome("2", remote(region1));
    RoutingTable t3 = t2.withHome("1", remote(region2));
    RoutingTable t4 = t3.without("2");
    RoutingTable t5 = t3.withoutRegion(region2);

    assertNotSame(t0, t1);
    assertEquals(0, knownHomes(t0));
    assertNull(t0.home("1"));
    assertEquals(1, knownHomes(t1));
    assertSame(shardA, t1.home("1").target());
    assertNull(t1.home("2"));
    assertSame(shardA, t2.home("1").target());
    assertSame(region2, t3.home("1").target());
    assertSame(region1, t3.home("2").target());
    assertNull(t4.home("2"));
    assertSame(region1, t5.home("2").target());
    assertNull(t5.home("1"));
    // t3 was the source of both t4 and t5 and must be untouched by either.
    assertEquals(2, knownHomes(t3));
    assertSame(region2, t3.home("1").target());
    assertSame(region1, t3.home("2").target());
  }

  @Test
  void derivedMapsAreCopies() {
    RoutingTable t = RoutingTable.empty().withHome("1", new Local(shardA)).withHome("2", remote(region1));
    Map<String, ActorRef<Object>> local = t.localShards();
    try {
      local.clear();
    } catch (UnsupportedOperationException fine) {
      // Either an unmodifiable map or a private copy is acceptable; only the table matters.
    }
    try {
      t.shardsOf(region1).clear();
    } catch (UnsupportedOperationException fine) {
      // As above.
    }
    assertEquals(Map.of("1", shardA), t.localShards());
    assertEquals(List.of("2"), t.shardsOf(region1));
    assertEquals(2, knownHomes(t));
  }

  @Test
  void remoteHomesOnAnUnreachableNodeAreHeldButRemembered() {
    // The probes all live in one system, so one address stands for "the node of region1 and region2".
    org.apache.pekko.actor.Address node = region1.path().address();
    RoutingTable t = RoutingTable.empty()
        .withHome("1", new Local(shardA))
        .withHome("2", remote(region1))
        .withHome("3", remote(region2))
        .withUnreachable(Set.of(node));
    assertEquals(new Local(shardA), t.home("1"), "a local shard is not held for another node");
    assertNull(t.home("2"));
    assertNull(t.home("3"));
    assertEquals(remote(region1), t.knownHome("2"));
    assertTrue(t.isHeld(t.knownHome("3")));
    assertEquals(Set.of("2", "3"), new HashSet<>(t.shardsOn(node)));

    RoutingTable added = t.withHome("4", remote(region1));
    assertNull(added.home("4"), "a home added later on the same node is held too");
    assertEquals(Set.of(node), added.without("2").unreachable());

    RoutingTable back = added.withUnreachable(Set.of());
    assertEquals(remote(region1), back.home("2"));
    assertEquals(region2, back.home("3").target());
    assertTrue(back.withoutRegion(region1).shardsOn(node).equals(List.of("3")));
  }

  @Test
  void aClosingRegionsShardsAreHeldUntilItIsForgotten() {
    RoutingTable t = RoutingTable.empty()
        .withHome("1", remote(region1))
        .withHome("2", remote(region2))
        .withHome("3", new Local(shardA));
    RoutingTable closing = t.withClosing(region1);
    assertTrue(closing.isClosing(region1));
    assertNull(closing.home("1"), "held while the link to the gone region closes");
    assertEquals(remote(region1), closing.knownHome("1"));
    assertSame(region2, closing.home("2").target());
    assertSame(shardA, closing.home("3").target());
    assertSame(closing, closing.withClosing(region1));

    RoutingTable forgotten = closing.withoutRegion(region1);
    assertTrue(!forgotten.isClosing(region1));
    assertNull(forgotten.knownHome("1"));
    RoutingTable placedAgain = forgotten.withHome("1", remote(region1));
    assertSame(region1, placedAgain.home("1").target(), "a region no longer closing is routable again");
  }

  @Test
  void localShardsAreHeldWhileThisNodeWaitsToBeConfirmed() {
    RoutingTable t = RoutingTable.empty()
        .withHome("1", new Local(shardA))
        .withHome("2", remote(region1))
        .withLocalHeld(true);
    assertNull(t.home("1"), "callers' messages for it go through the region, which holds them");
    assertEquals(new Local(shardA), t.knownHome("1"), "the home is still known");
    assertTrue(t.isHeld(t.knownHome("1")));
    assertEquals(remote(region1), t.home("2"), "other nodes' shards are not affected");
    assertEquals(Map.of("1", shardA), t.localShards());

    RoutingTable added = t.withHome("3", new Local(shardB)).without("2");
    assertNull(added.home("3"), "a shard started meanwhile is held too");
    assertTrue(added.localHeld());

    RoutingTable back = added.withLocalHeld(false);
    assertEquals(new Local(shardA), back.home("1"));
    assertEquals(new Local(shardB), back.home("3"));
    assertSame(back, back.withLocalHeld(false));
    assertTrue(added.withUnreachable(Set.of(region1.path().address())).localHeld(), "kept across other changes");
    assertTrue(added.withClosing(region2).localHeld(), "and across a region closing");
  }

  @Test
  void withHomesSetsManyHomesInOneChange() {
    RoutingTable t = RoutingTable.empty()
        .withHome("1", remote(region1))
        .withHome("2", new Local(shardA))
        .withHome("9", remote(region2));
    Map<String, Home> homes = new java.util.LinkedHashMap<>();
    homes.put("1", remote(region2));
    homes.put("2", remote(region1));
    homes.put("3", new Local(shardB));
    RoutingTable after = t.withHomes(homes);
    assertSame(region2, after.home("1").target());
    assertSame(region1, after.home("2").target());
    assertSame(shardB, after.home("3").target());
    assertSame(region2, after.home("9").target(), "a shard not named keeps its home");
    assertEquals(Map.of("3", shardB), after.localShards(), "a shard moved away is no longer hosted here");
    assertEquals(List.of("2"), after.shardsOf(region1), "a shard moved away from a region is no longer its");
    assertEquals(Set.of("1", "9"), new HashSet<>(after.shardsOf(region2)));
    assertEquals(new Local(shardA), t.home("2"), "the table it came from is untouched");
    assertSame(t, t.withHomes(Map.of()));
  }

  @Test
  void withHomesMakesTheTableThatOneHomeAtATimeMakesWithTheSameIndexes() {
    ActorRef<Object> region3 = testKit.createTestProbe(Object.class).ref();
    List<Home> choices = List.of(new Local(shardA), new Local(shardB), remote(region1), remote(region2),
        remote(region3));
    List<ActorRef<Object>> regions = List.of(region1, region2, region3);
    Random random = new Random(19);
    RoutingTable bulk = RoutingTable.empty();
    Map<String, Home> model = new java.util.HashMap<>();
    // Batches into an empty table, then over earlier ones: replacing homes with others and with
    // the same, moving shards between regions and here, emptying regions, and growing the map.
    for (int batch = 0; batch < 30; batch++) {
      RoutingTable before = bulk;
      Map<String, Home> told = new java.util.HashMap<>();
      int size = 1 + random.nextInt(batch % 3 == 0 ? 3_000 : 100);
      for (int i = 0; i < size; i++) {
        told.put(Integer.toString(random.nextInt(4_000)), choices.get(random.nextInt(choices.size())));
      }
      RoutingTable oneAtATime = before;
      for (var e : told.entrySet()) {
        oneAtATime = oneAtATime.withHome(e.getKey(), e.getValue());
      }
      bulk = before.withHomes(told);
      model.putAll(told);
      assertSameTable(model, regions, oneAtATime);
      assertSameTable(model, regions, bulk);
      if (batch % 10 == 9) {
        // A region's index made in bulk serves its removal as one made one shard at a time does.
        bulk = bulk.withoutRegion(region3);
        model.values().removeIf(home -> home.target() == region3);
        assertSameTable(model, regions, bulk);
      }
    }
  }

  /** The table has exactly the homes of {@code model}, and its indexes agree with them. */
  private static void assertSameTable(Map<String, Home> model, List<ActorRef<Object>> regions, RoutingTable t) {
    for (int i = 0; i < 4_000; i++) {
      String shardId = Integer.toString(i);
      assertEquals(model.get(shardId), t.knownHome(shardId), "home of shard " + shardId);
    }
    Map<String, ActorRef<Object>> locals = new java.util.HashMap<>();
    model.forEach((shardId, home) -> {
      if (home instanceof Local l) {
        locals.put(shardId, l.shard());
      }
    });
    assertEquals(locals, t.localShards(), "the shards hosted here");
    Set<String> remote = new HashSet<>();
    for (ActorRef<Object> region : regions) {
      Set<String> of = new HashSet<>();
      model.forEach((shardId, home) -> {
        if (home.target() == region) {
          of.add(shardId);
        }
      });
      List<String> indexed = t.shardsOf(region);
      assertEquals(of, new HashSet<>(indexed), "the shards of " + region);
      assertEquals(of.size(), indexed.size(), "each shard of " + region + " once");
      remote.addAll(of);
    }
    assertEquals(remote, new HashSet<>(t.shardsOn(region1.path().address())), "the shards on the node");
  }

  @Test
  void aRegionLosingItsLastShardIsForgottenByTheIndex() {
    RoutingTable t = RoutingTable.empty().withHome("1", remote(region1)).withHome("1", new Local(shardA));
    assertEquals(List.of(), t.shardsOf(region1));
    assertEquals(List.of(), t.shardsOn(region1.path().address()));
    assertSame(t, t.withoutRegion(region1), "nothing lives there any more");
  }

  @Test
  void badHomesAreRefusedNamingWhatIsMissing() {
    RoutingTable t = RoutingTable.empty();
    IllegalArgumentException noHome = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
        () -> t.withHome("7", null));
    assertTrue(noHome.getMessage().contains("[7]"), noHome.getMessage());
    Map<String, Home> nullId = new java.util.HashMap<>();
    nullId.put(null, new Local(shardA));
    assertTrue(org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> t.withHomes(nullId))
        .getMessage().contains("shard id [null]"));
    assertTrue(org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> t.withHomes(null))
        .getMessage().contains("must not be null"));
  }
}
