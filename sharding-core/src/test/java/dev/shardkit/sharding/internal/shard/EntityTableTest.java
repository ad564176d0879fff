package dev.shardkit.sharding.internal.shard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.internal.shard.EntityTable.Arrival;
import dev.shardkit.sharding.internal.shard.EntityTable.Next;
import dev.shardkit.sharding.internal.shard.EntityTable.Status;
import dev.shardkit.sharding.internal.shard.EntityTable.Wait;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.apache.pekko.actor.ActorRef;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/** The table's states and its checked transitions: what each allows, and what it refuses. */
class EntityTableTest {
  static ActorTestKit testKit;
  static ActorRef e1;
  static ActorRef e2;
  static ActorRef e1Again;

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

  /** A table whose entities back off 100 ms at first, at most 1 s. */
  static EntityTable<ActorRef> table(int bufferLimit, boolean remembering) {
    return new EntityTable<>(bufferLimit, remembering, new RestartBackoff(Duration.ofMillis(100), Duration.ofSeconds(1)),
        ref -> EntityTable.idFromName(ref.path().name()));
  }

  /** Starts an entity as the shard's machine does: starting, then started; true if it is to stop at once. */
  static boolean start(EntityTable<ActorRef> t, String entityId, ActorRef ref) {
    boolean stopAfter = t.starting(entityId);
    assertEquals(stopAfter, t.started(entityId, ref));
    return stopAfter;
  }

  /** Asserts a refusal that names the entity, its state and the step, and returns its message. */
  static String refused(Executable step, String entityId, String state, String what) {
    String message = assertThrows(IllegalStateException.class, step).getMessage();
    assertTrue(message.contains("[" + entityId + "]"), message);
    assertTrue(message.contains(state), message);
    assertTrue(message.contains(what), message);
    return message;
  }

  @Test
  void emptyTable() {
    EntityTable<ActorRef> t = table(10, false);
    assertNull(t.active("a"));
    assertNull(t.status("a"));
    assertNull(t.idOf(e1));
    assertEquals(0, t.size());
    assertEquals(Set.of(), t.entityIds());
    assertEquals(0, t.heldMessages());
    assertTrue(t.allStopped());
    assertTrue(t.startsAtOnce());
  }

  @Test
  void startedEntityIsActive() {
    EntityTable<ActorRef> t = table(10, false);
    assertFalse(start(t, "a", e1));
    assertFalse(start(t, "b", e2));
    assertSame(e1, t.active("a"));
    assertEquals(Status.ACTIVE, t.status("a"));
    assertEquals("a", t.idOf(e1));
    assertEquals("b", t.idOf(e2));
    assertEquals(Set.of("a", "b"), t.entityIds());
    assertFalse(t.allStopped());
  }

  @Test
  void passivatedEntityHoldsItsMessagesForItsNextIncarnation() {
    EntityTable<ActorRef> t = table(10, false);
    start(t, "a", e1);
    assertTrue(t.passivate("a"));
    assertEquals(Status.PASSIVATING, t.status("a"));
    // No longer a target for direct delivery, but still live and still known by its ref.
    assertNull(t.active("a"));
    assertEquals("a", t.idOf(e1));
    assertEquals(1, t.size());
    for (String m : List.of("m1", "m2", "m3")) {
      assertTrue(t.hold("a", m));
      assertEquals(Arrival.HOLD, t.arrived("a"));
    }
    assertEquals(Next.START_FOR_HELD, t.terminated("a", false, 0).next());
    assertNull(t.status("a"));
    assertNull(t.idOf(e1));
    assertTrue(t.admit("a"));
    start(t, "a", e1Again);
    assertEquals(List.of("m1", "m2", "m3"), t.takeHeld("a"));
    assertEquals(0, t.heldMessages());
    assertSame(e1Again, t.active("a"));
    assertEquals("a", t.idOf(e1Again));
  }

  @Test
  void passivatingTwiceAsksForOneStop() {
    EntityTable<ActorRef> t = table(10, false);
    start(t, "a", e1);
    assertTrue(t.passivate("a"));
    assertFalse(t.passivate("a"));
    assertEquals(Status.PASSIVATING, t.status("a"));
  }

  @Test
  void aSecondIncarnationIsRefused() {
    EntityTable<ActorRef> t = table(10, false);
    start(t, "a", e1);
    refused(() -> t.starting("a"), "a", "ACTIVE", "start");
    // Nor while the first is stopping: that would break single incarnation.
    t.passivate("a");
    refused(() -> t.starting("a"), "a", "PASSIVATING", "start");
    refused(() -> t.admit("a"), "a", "PASSIVATING", "be admitted");
    // The refused steps changed nothing.
    assertEquals(Status.PASSIVATING, t.status("a"));
    assertEquals("a", t.idOf(e1));
    assertNull(t.idOf(e1Again));
  }

  @Test
  void anActiveEntityCannotWait() {
    EntityTable<ActorRef> t = table(10, true);
    start(t, "a", e1);
    refused(() -> t.awaitGate("a"), "a", "ACTIVE", "wait for the delivery gate");
    refused(() -> t.awaitLoad("a"), "a", "ACTIVE", "wait for the store to be read");
    refused(() -> t.hold("a", "m"), "a", "ACTIVE", "have a message held");
    refused(() -> t.arrived("a"), "a", "ACTIVE", "have a message held");
    refused(() -> t.creationFailed("a", 0), "a", "ACTIVE", "fail to start");
    assertEquals(Status.ACTIVE, t.status("a"));
    assertNull(t.waitingFor("a"));
    assertEquals(0, t.heldMessages());
  }

  @Test
  void onlyALiveEntityPassivatesOrStops() {
    EntityTable<ActorRef> t = table(10, false);
    refused(() -> t.passivate("x"), "x", "unknown", "passivate");
    refused(() -> t.terminated("x", false, 0), "x", "unknown", "have stopped");
    t.awaitGate("w");
    refused(() -> t.passivate("w"), "w", "WAITING (GATE)", "passivate");
    refused(() -> t.terminated("w", false, 0), "w", "WAITING (GATE)", "have stopped");
    assertEquals(Wait.GATE, t.waitingFor("w"));
  }

  @Test
  void waitingForLoadIsOnlyForAnUnknownEntity() {
    EntityTable<ActorRef> t = table(10, true);
    t.awaitLoad("a");
    assertEquals(Wait.LOADING, t.waitingFor("a"));
    refused(() -> t.awaitLoad("a"), "a", "WAITING (LOADING)", "wait for the store to be read");
  }

  @Test
  void anEntityWaitingForRoomIsNotAdmittedTwice() {
    EntityTable<ActorRef> t = table(10, false);
    t.limit(1);
    assertFalse(t.startsAtOnce());
    assertTrue(t.admit("a"));
    start(t, "a", e1);
    assertFalse(t.admit("b"));
    assertEquals(Wait.SLOT, t.waitingFor("b"));
    assertEquals(0, t.roomToKeep());
    assertNull(t.nextForRoom());
    refused(() -> t.admit("b"), "b", "WAITING (SLOT)", "be admitted");
    t.passivate("a");
    t.terminated("a", false, 0);
    assertEquals("b", t.nextForRoom());
    start(t, "b", e2);
    assertNull(t.nextForRoom());
    assertEquals(List.of(), t.waitingIds(Wait.SLOT));
  }

  @Test
  void aShrinkingLimitIsReported() {
    EntityTable<ActorRef> t = table(10, false);
    assertTrue(t.limit(2));
    start(t, "a", e1);
    start(t, "b", e2);
    assertFalse(t.overLimit());
    assertTrue(t.limit(1));
    assertTrue(t.overLimit());
    assertFalse(t.limit(5));
  }

  @Test
  void aNewEntityOfARememberingTypeIsWrittenFirst() {
    EntityTable<ActorRef> t = table(10, true);
    assertFalse(t.startsAtOnce());
    assertTrue(t.hold("a", "m"));
    assertEquals(Arrival.REMEMBER_FIRST, t.arrived("a"));
    assertEquals(Wait.STORE, t.waitingFor("a"));
    assertTrue(t.hold("a", "m2"));
    assertEquals(Arrival.HOLD, t.arrived("a"));
    assertEquals(List.of("a"), t.written(List.of("a", "other")));
    assertTrue(t.admit("a"));
    start(t, "a", e1);
    assertEquals(List.of("m", "m2"), t.takeHeld("a"));
    assertEquals(List.of(), t.written(List.of("a")));
  }

  @Test
  void theStoreReadAdmitsRememberedEntitiesAndQueuesTheRest() {
    EntityTable<ActorRef> t = table(10, true);
    t.awaitLoad("known");
    t.awaitLoad("new");
    EntityTable.Loaded loaded = t.loaded(Set.of("known", "r1"));
    assertEquals(List.of("known"), loaded.admit());
    assertEquals(List.of("new"), loaded.remember());
    assertEquals(Wait.STORE, t.waitingFor("new"));
    assertEquals(Wait.RECOVERY, t.waitingFor("r1"));
    assertTrue(t.recovering());
    assertEquals(List.of("r1"), t.nextRecoveries(5));
    // A message for a remembered entity need not wait for its recovery batch.
    t.hold("r1", "m");
    assertEquals(Arrival.ADMIT, t.arrived("r1"));
    assertTrue(t.admit("r1"));
    start(t, "r1", e1);
    assertFalse(t.recovering());
  }

  @Test
  void theHoldLimitIsOverAllEntities() {
    EntityTable<ActorRef> t = table(3, false);
    start(t, "a", e1);
    start(t, "b", e2);
    t.passivate("a");
    t.passivate("b");
    assertTrue(t.hold("a", 1));
    assertTrue(t.hold("b", 2));
    assertTrue(t.hold("a", 3));
    assertFalse(t.hold("b", 4));
    assertEquals(3, t.heldMessages());
    // Taking one entity's messages frees its share for others.
    assertEquals(List.of(1, 3), t.takeHeld("a"));
    assertTrue(t.hold("b", 6));
    assertEquals(List.of(2, 6), t.takeHeld("b"));
  }

  @Test
  void aStartingEntityIsLiveButNotActiveUntilItHasStarted() {
    EntityTable<ActorRef> t = table(10, false);
    t.limit(1);
    assertTrue(t.admit("a"));
    assertFalse(t.starting("a"));
    assertEquals(Status.STARTING, t.status("a"));
    assertNull(t.active("a"));
    assertEquals(1, t.size());
    assertEquals(Set.of("a"), t.entityIds());
    assertFalse(t.allStopped());
    // Its room is taken: another waits.
    assertFalse(t.admit("b"));
    refused(() -> t.starting("a"), "a", "STARTING", "start");
    assertFalse(t.started("a", e1));
    assertSame(e1, t.active("a"));
    assertEquals("a", t.idOf(e1));
    refused(() -> t.started("a", e1Again), "a", "ACTIVE", "have started");
    refused(() -> t.notStarted("a"), "a", "ACTIVE", "fail to start");
  }

  @Test
  void aStartingEntityChosenToPassivateIsStoppedOnceItHasStarted() {
    EntityTable<ActorRef> t = table(10, false);
    t.starting("a");
    assertTrue(t.passivate("a"), "to be told once started");
    assertFalse(t.passivate("a"));
    assertEquals(Status.STARTING, t.status("a"));
    assertTrue(t.started("a", e1), "tell it to stop now");
    assertEquals(Status.PASSIVATING, t.status("a"));
    assertNull(t.active("a"));
  }

  @Test
  void aStartThatDidNotHappenLeavesTheEntityUnknownAndFreesItsRoom() {
    EntityTable<ActorRef> t = table(10, false);
    t.limit(1);
    t.starting("a");
    t.passivate("a");
    t.notStarted("a");
    assertNull(t.status("a"));
    assertEquals(0, t.size());
    assertTrue(t.admit("b"));
    t.awaitGate("a");
    assertEquals(Wait.GATE, t.waitingFor("a"));
    refused(() -> t.notStarted("a"), "a", "WAITING (GATE)", "fail to start");
    refused(() -> t.started("a", e1), "a", "WAITING (GATE)", "have started");
  }

  @Test
  void aHandOffStopsAStartingEntityOnceItHasStarted() {
    EntityTable<ActorRef> t = table(10, false);
    start(t, "active", e2);
    t.starting("a");
    EntityTable.HandOffPlan<ActorRef> plan = t.handOff();
    assertEquals(java.util.Map.of("active", e2), plan.stop(), "nothing to tell a starting entity yet");
    assertTrue(t.started("a", e1));
    assertEquals(Status.PASSIVATING, t.status("a"));
  }

  @Test
  void entityIdsIsASnapshot() {
    EntityTable<ActorRef> t = table(10, false);
    start(t, "a", e1);
    Set<String> ids = t.entityIds();
    start(t, "b", e2);
    assertEquals(Set.of("a"), ids);
    assertThrows(UnsupportedOperationException.class, () -> ids.add("c"));
  }
}
