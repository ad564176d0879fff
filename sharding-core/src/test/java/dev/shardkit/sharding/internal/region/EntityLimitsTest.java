package dev.shardkit.sharding.internal.region;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

class EntityLimitsTest {

  @Test
  void theFirstShardGetsTheWholeLimit() {
    EntityLimits l = new EntityLimits(10);
    assertEquals(Map.of("a", 10), l.added("a"));
    assertEquals(10, l.granted("a"));
  }

  @Test
  void aShrinkingShardKeepsItsOldShareUntilItReportsFewerLiveEntities() {
    EntityLimits l = new EntityLimits(10);
    l.added("a");
    // a may still have 10 live entities: b gets nothing until a reports fewer.
    Map<String, Integer> changes = l.added("b");
    assertEquals(5, changes.get("a"));
    assertEquals(0, changes.get("b"));
    assertEquals(10, l.inUse());
    // a passivated down to 7: b may grow to what is free, no more.
    assertEquals(Map.of("b", 3), l.reported("a", 7));
    assertEquals(10, l.inUse());
    assertEquals(Map.of("b", 5), l.reported("a", 5));
    assertEquals(10, l.inUse());
  }

  @Test
  void sharesAreEvenAndAddUpToTheLimit() {
    EntityLimits l = new EntityLimits(10);
    for (String s : new String[] {"a", "b", "c"}) {
      l.added(s);
    }
    l.reported("a", 0);
    l.reported("b", 0);
    l.reported("c", 0);
    assertEquals(4, l.granted("a"));
    assertEquals(3, l.granted("b"));
    assertEquals(3, l.granted("c"));
    assertEquals(10, l.inUse());
  }

  @Test
  void aRemovedShardsShareGoesToTheOthers() {
    EntityLimits l = new EntityLimits(10);
    l.added("a");
    l.added("b");
    l.reported("a", 5);
    Map<String, Integer> changes = l.removed("a");
    assertEquals(Map.of("b", 10), changes);
    assertEquals(10, l.inUse());
  }

  @Test
  void neverMoreInUseThanTheLimitWhileShardsComeAndGo() {
    EntityLimits l = new EntityLimits(20);
    java.util.Random random = new java.util.Random(7);
    java.util.Set<String> shards = new java.util.TreeSet<>();
    for (int step = 0; step < 2000; step++) {
      String s = "s" + random.nextInt(8);
      int action = random.nextInt(3);
      if (action == 0 && shards.size() < 8) {
        shards.add(s);
        l.added(s);
      } else if (action == 1 && shards.remove(s)) {
        l.removed(s);
      } else if (shards.contains(s)) {
        l.reported(s, random.nextInt(l.granted(s) + 1));
      }
      assertTrue(l.inUse() <= 20, "step " + step + ": " + l.inUse() + " in use");
    }
  }

  @Test
  void moreShardsThanTheLimitStillGiveEachShardOne() {
    EntityLimits l = new EntityLimits(1);
    l.added("a");
    assertEquals(1, l.added("b").get("b"));
  }

  @Test
  void aLimitBelowOneIsRefused() {
    assertThrows(IllegalArgumentException.class, () -> new EntityLimits(0));
  }
}
