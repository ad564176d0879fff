package dev.shardkit.sharding.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.internal.EntityTable.Status;
import java.util.List;
import java.util.Set;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.ActorRef;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class EntityTableTest {
  private static ActorTestKit testKit;
  private static ActorRef e1;
  private static ActorRef e2;
  private static ActorRef e1Again;

  @BeforeAll
  static void startTestKit() {
    // Probes only provide real ActorRef identities; the table never sends anything.
    testKit = ActorTestKit.create();
    e1 = Adapter.toClassic(testKit.createTestProbe(Object.class).ref());
    e2 = Adapter.toClassic(testKit.createTestProbe(Object.class).ref());
    e1Again = Adapter.toClassic(testKit.createTestProbe(Object.class).ref());
  }

  @AfterAll
  static void stopTestKit() {
    testKit.shutdownTestKit();
  }

  @Test
  void emptyTable() {
    EntityTable t = new EntityTable(10);
    assertNull(t.active("a"));
    assertNull(t.status("a"));
    assertNull(t.idOf(e1));
    assertEquals(0, t.size());
    assertEquals(Set.of(), t.entityIds());
    assertEquals(0, t.heldMessages());
    assertFalse(t.passivating("a"));
    assertEquals(List.of(), t.stopped("a"));
  }

  @Test
  void startedEntityIsActive() {
    EntityTable t = new EntityTable(10);
    t.started("a", e1);
    t.started("b", e2);
    assertSame(e1, t.active("a"));
    assertSame(e2, t.active("b"));
    assertEquals(Status.ACTIVE, t.status("a"));
    assertEquals("a", t.idOf(e1));
    assertEquals("b", t.idOf(e2));
    assertEquals(2, t.size());
    assertEquals(Set.of("a", "b"), t.entityIds());
  }

  @Test
  void fullLifecycleReturnsHeldMessagesInOrder() {
    EntityTable t = new EntityTable(10);
    t.started("a", e1);
    assertTrue(t.passivating("a"));
    assertEquals(Status.PASSIVATING, t.status("a"));
    // No longer a target for direct delivery, but still live and still known by its ref.
    assertNull(t.active("a"));
    assertEquals("a", t.idOf(e1));
    assertEquals(Set.of("a"), t.entityIds());
    assertEquals(1, t.size());

    assertTrue(t.hold("a", "m1"));
    assertTrue(t.hold("a", "m2"));
    assertTrue(t.hold("a", "m3"));
    assertEquals(3, t.heldMessages());

    assertEquals(List.of("m1", "m2", "m3"), t.stopped("a"));
    assertNull(t.status("a"));
    assertNull(t.active("a"));
    assertNull(t.idOf(e1));
    assertEquals(0, t.size());
    assertEquals(Set.of(), t.entityIds());
    assertEquals(0, t.heldMessages());
    // Held messages go to exactly one next incarnation.
    assertEquals(List.of(), t.stopped("a"));
  }

  @Test
  void stoppedIdCanStartAgainWithANewRef() {
    EntityTable t = new EntityTable(10);
    t.started("a", e1);
    t.passivating("a");
    t.hold("a", "m");
    t.stopped("a");
    t.started("a", e1Again);
    assertSame(e1Again, t.active("a"));
    assertEquals("a", t.idOf(e1Again));
    assertNull(t.idOf(e1));
    assertEquals(Status.ACTIVE, t.status("a"));
  }

  @Test
  void doubleStartIsRejected() {
    EntityTable t = new EntityTable(10);
    t.started("a", e1);
    IllegalStateException active = assertThrows(IllegalStateException.class, () -> t.started("a", e1Again));
    assertTrue(active.getMessage().contains("[a]"), active.getMessage());
    // A second incarnation while the first is stopping would break single incarnation.
    t.passivating("a");
    assertThrows(IllegalStateException.class, () -> t.started("a", e1Again));
    // The rejected start changed nothing.
    assertEquals(Status.PASSIVATING, t.status("a"));
    assertEquals("a", t.idOf(e1));
    assertNull(t.idOf(e1Again));
  }

  @Test
  void passivatingANonActiveIdReturnsFalse() {
    EntityTable t = new EntityTable(10);
    assertFalse(t.passivating("unknown"));
    assertNull(t.status("unknown"));
    t.started("a", e1);
    assertTrue(t.passivating("a"));
    assertFalse(t.passivating("a"));
    assertEquals(Status.PASSIVATING, t.status("a"));
    t.stopped("a");
    assertFalse(t.passivating("a"));
  }

  @Test
  void stoppingWithoutHeldMessagesReturnsNothing() {
    EntityTable t = new EntityTable(10);
    t.started("a", e1);
    assertEquals(List.of(), t.stopped("a"));
    assertEquals(0, t.size());
  }

  @Test
  void heldMessagesAreKeptPerEntity() {
    EntityTable t = new EntityTable(10);
    t.started("a", e1);
    t.started("b", e2);
    t.passivating("a");
    t.passivating("b");
    t.hold("a", "a1");
    t.hold("b", "b1");
    t.hold("a", "a2");
    assertEquals(List.of("b1"), t.stopped("b"));
    assertEquals(2, t.heldMessages());
    assertEquals(List.of("a1", "a2"), t.stopped("a"));
  }

  @Test
  void holdLimitIsOverAllPassivatingEntities() {
    EntityTable t = new EntityTable(3);
    t.started("a", e1);
    t.started("b", e2);
    t.passivating("a");
    t.passivating("b");
    assertTrue(t.hold("a", 1));
    assertTrue(t.hold("b", 2));
    assertTrue(t.hold("a", 3));
    assertFalse(t.hold("b", 4));
    assertFalse(t.hold("a", 5));
    assertEquals(3, t.heldMessages());
    // Stopping one entity frees its share for others.
    assertEquals(List.of(1, 3), t.stopped("a"));
    assertTrue(t.hold("b", 6));
    assertEquals(List.of(2, 6), t.stopped("b"));
  }

  @Test
  void zeroLimitHoldsNothing() {
    EntityTable t = new EntityTable(0);
    t.started("a", e1);
    t.passivating("a");
    assertFalse(t.hold("a", "m"));
    assertEquals(List.of(), t.stopped("a"));
  }

  @Test
  void entityIdsIsASnapshot() {
    EntityTable t = new EntityTable(10);
    t.started("a", e1);
    Set<String> ids = t.entityIds();
    t.started("b", e2);
    assertEquals(Set.of("a"), ids);
    assertThrows(UnsupportedOperationException.class, () -> ids.add("c"));
  }
}
