package dev.shardkit.sharding.internal.shard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.pekko.actor.ActorRef;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What a failed shard hands its next incarnation: every message its table held, each entity's in
 * order, handed over once, with the hand-off flag and the limit share.
 */
class ShardCarryOverTest {
  static ActorTestKit testKit;
  static ActorRef entity;

  @BeforeAll
  static void startTestKit() {
    // A probe only provides a real ActorRef identity; nothing is sent to it.
    testKit = ActorTestKit.create();
    entity = Adapter.toClassic(testKit.createTestProbe(Object.class).ref());
  }

  @AfterAll
  static void stopTestKit() {
    testKit.shutdownTestKit();
  }

  @Test
  void theFirstIncarnationStartsWithNothingButItsLimit() {
    ShardCarryOver.Taken first = new ShardCarryOver(7).take();
    assertEquals(Map.of(), first.held());
    assertFalse(first.handingOff());
    assertEquals(7, first.entityLimit());
    assertEquals(0, first.limitsHeard(), "its share at start is not one it heard");
    assertEquals(0, first.messages());
    assertEquals(1, first.incarnation());
  }

  @Test
  void eachIncarnationHasItsNumberWhetherOrNotTheOneBeforeKeptAnything() {
    ShardCarryOver carried = new ShardCarryOver(7);
    assertEquals(1, carried.take().incarnation());
    // One that failed as it started kept nothing.
    assertEquals(2, carried.take().incarnation());
    carried.keep(new ShardCarryOver.Taken(Map.of(), false, 7, 0, 2));
    assertEquals(3, carried.take().incarnation());
  }

  @Test
  void theSharesHeardGoOnCountingAcrossIncarnations() {
    ShardCarryOver carried = new ShardCarryOver(7);
    carried.take();
    carried.keep(new ShardCarryOver.Taken(Map.of(), false, 3, 2, 1));
    ShardCarryOver.Taken next = carried.take();
    assertEquals(3, next.entityLimit());
    assertEquals(2, next.limitsHeard(), "the region counts the shares it told the shard actor, not an incarnation");
  }

  @Test
  void whatTheTableHeldIsTakenOutOfItInOrderAndHandedOverOnce() {
    EntityTable<ActorRef> table = EntityTableTest.table(100, false);
    // "a" passivates and "b" waits for room: both have messages held.
    EntityTableTest.start(table, "a", entity);
    table.passivate("a");
    table.hold("a", "a1");
    table.hold("a", "a2");
    table.limit(1);
    table.hold("b", "b1");
    table.hold("b", "b2");
    table.hold("b", "b3");

    ShardCarryOver carried = new ShardCarryOver(Integer.MAX_VALUE);
    carried.keep(new ShardCarryOver.Taken(table.takeAllHeld(), table.handingOff(), table.limit(), 0, 1));
    assertEquals(0, table.heldMessages(), "the failed incarnation keeps none of them");

    ShardCarryOver.Taken taken = carried.take();
    assertEquals(List.of("a1", "a2"), taken.held().get("a"));
    assertEquals(List.of("b1", "b2", "b3"), taken.held().get("b"));
    assertEquals(5, taken.messages());
    assertFalse(taken.handingOff());
    assertEquals(1, taken.entityLimit());
    // A second restart with nothing held must not deliver them again.
    assertEquals(0, carried.take().messages());
    assertEquals(1, carried.take().entityLimit(), "the share stays until a later incarnation keeps another");
  }

  @Test
  void aShardThatFailsWhileHandingOffGoesOnHandingOff() {
    EntityTable<ActorRef> table = EntityTableTest.table(100, false);
    EntityTableTest.start(table, "a", entity);
    table.handOff();
    assertTrue(table.handingOff());
    ShardCarryOver carried = new ShardCarryOver(Integer.MAX_VALUE);
    carried.keep(new ShardCarryOver.Taken(table.takeAllHeld(), table.handingOff(), table.limit(), 0, 1));
    assertTrue(carried.take().handingOff());
    assertFalse(carried.take().handingOff(), "handed over once");
  }

  @Test
  void keptMessagesAreACopy() {
    ShardCarryOver carried = new ShardCarryOver(1);
    Map<String, List<Object>> held = new LinkedHashMap<>();
    held.put("a", new ArrayList<>(List.of("a1")));
    carried.keep(new ShardCarryOver.Taken(held, false, 1, 2, 1));
    held.clear();
    assertEquals(List.of("a1"), carried.take().held().get("a"));
  }
}
