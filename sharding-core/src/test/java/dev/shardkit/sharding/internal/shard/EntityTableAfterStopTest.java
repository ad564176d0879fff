package dev.shardkit.sharding.internal.shard;

import static dev.shardkit.sharding.internal.shard.EntityTableTest.e1;
import static dev.shardkit.sharding.internal.shard.EntityTableTest.e2;
import static dev.shardkit.sharding.internal.shard.EntityTableTest.table;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.internal.shard.EntityTable.AfterStop;
import dev.shardkit.sharding.internal.shard.EntityTable.HandOffPlan;
import dev.shardkit.sharding.internal.shard.EntityTable.Next;
import dev.shardkit.sharding.internal.shard.EntityTable.Status;
import dev.shardkit.sharding.internal.shard.EntityTable.Wait;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import org.apache.pekko.actor.ActorRef;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What the shard does after an incarnation ended ({@link EntityTable#terminated}), and the
 * hand-off's part in it. Back-offs are 100 ms at first, at most 1 s; times are in nanoseconds.
 */
class EntityTableAfterStopTest {
  private static final long MS = 1_000_000L;

  @BeforeAll
  static void start() {
    EntityTableTest.startTestKit();
  }

  @AfterAll
  static void stop() {
    EntityTableTest.stopTestKit();
  }

  @Test
  void withoutRememberingAPassivatedOrStoppedEntityIsForgotten() {
    EntityTable<ActorRef> t = table(10, false);
    EntityTableTest.start(t, "a", e1);
    t.passivate("a");
    assertEquals(AfterStop.of(Next.NONE), t.terminated("a", false, 0));
    EntityTableTest.start(t, "a", e1);
    assertEquals(AfterStop.of(Next.NONE), t.terminated("a", false, 0));
    assertNull(t.status("a"));
  }

  @Test
  void withoutRememberingOnlyASecondFailureInARowBacksOff() {
    EntityTable<ActorRef> t = table(10, false);
    EntityTableTest.start(t, "a", e1);
    // The first failure costs nothing: the next message starts it again.
    assertEquals(new AfterStop(Next.NONE, 1, Duration.ZERO), t.terminated("a", true, 0));
    assertNull(t.status("a"));
    EntityTableTest.start(t, "a", e1);
    assertEquals(new AfterStop(Next.BACK_OFF, 2, Duration.ofMillis(100)), t.terminated("a", true, 10 * MS));
    assertEquals(Wait.BACKOFF, t.waitingFor("a"));
    assertEquals(OptionalLong.of(110 * MS), t.nextBackoffEnd());
    // Without messages held, the ended back-off forgets it.
    assertEquals(List.of(), t.backoffsEnded(109 * MS));
    assertEquals(List.of(), t.backoffsEnded(110 * MS));
    assertNull(t.status("a"));
    assertEquals(OptionalLong.empty(), t.nextBackoffEnd());
  }

  @Test
  void messagesHeldDuringABackOffStartTheEntityWhenItEnds() {
    EntityTable<ActorRef> t = table(10, false);
    EntityTableTest.start(t, "a", e1);
    t.terminated("a", true, 0);
    EntityTableTest.start(t, "a", e1);
    t.terminated("a", true, 0);
    t.hold("a", "m");
    assertEquals(EntityTable.Arrival.HOLD, t.arrived("a"));
    assertEquals(List.of("a"), t.backoffsEnded(100 * MS));
    assertTrue(t.admit("a"));
  }

  @Test
  void aRememberedEntityThatStopsBacksOffAndStartsAgain() {
    EntityTable<ActorRef> t = table(10, true);
    EntityTableTest.start(t, "a", e1);
    assertEquals(new AfterStop(Next.BACK_OFF, 1, Duration.ofMillis(100)), t.terminated("a", false, 0));
    assertEquals(List.of("a"), t.backoffsEnded(100 * MS));
    EntityTableTest.start(t, "a", e1);
    assertEquals(new AfterStop(Next.BACK_OFF, 2, Duration.ofMillis(200)), t.terminated("a", true, 150 * MS));
  }

  @Test
  void aRememberedEntityThatPassivatedIsForgotten() {
    EntityTable<ActorRef> t = table(10, true);
    EntityTableTest.start(t, "a", e1);
    t.passivate("a");
    assertEquals(AfterStop.of(Next.FORGET), t.terminated("a", false, 0));
    assertNull(t.status("a"));
  }

  @Test
  void messagesHeldWhileItStoppedStartTheNextIncarnation() {
    EntityTable<ActorRef> t = table(10, true);
    EntityTableTest.start(t, "a", e1);
    t.passivate("a");
    t.hold("a", "m");
    // Held messages win over forgetting: the entity stays remembered.
    assertEquals(AfterStop.of(Next.START_FOR_HELD), t.terminated("a", false, 0));
    assertTrue(t.admit("a"));
  }

  @Test
  void aRememberedTypeRetriesAFailedCreationAfterItsBackOff() {
    EntityTable<ActorRef> remembering = table(10, true);
    remembering.awaitGate("a");
    assertEquals(new AfterStop(Next.BACK_OFF, 1, Duration.ofMillis(100)), remembering.creationFailed("a", 0));
    EntityTable<ActorRef> other = table(10, false);
    assertEquals(AfterStop.of(Next.NONE), other.creationFailed("a", 0));
    assertNull(other.status("a"));
  }

  @Test
  void aHandOffStopsTheActiveAndStartsThoseWithHeldMessages() {
    EntityTable<ActorRef> t = table(10, true);
    t.limit(1);
    EntityTableTest.start(t, "active", e1);
    t.hold("slot", "s");
    t.arrived("slot");
    t.written(List.of("slot"));
    t.admit("slot");
    EntityTableTest.start(t, "backoff", e2);
    t.terminated("backoff", false, 0);
    t.hold("backoff", "b");
    EntityTableTest.start(t, "quiet", e2);
    t.terminated("quiet", false, 0);
    t.loaded(Set.of("recovering"));

    HandOffPlan<ActorRef> plan = t.handOff();
    assertEquals(Map.of("active", e1), plan.stop());
    assertEquals(List.of("backoff", "slot"), plan.start());
    assertEquals(Status.PASSIVATING, t.status("active"));
    // Left to the next home, or to their next message.
    assertNull(t.status("recovering"));
    assertNull(t.status("quiet"));
    assertEquals(OptionalLong.empty(), t.nextBackoffEnd());
    // Whatever starts now is stopped right after its messages.
    assertTrue(t.starting("slot"));
    assertTrue(t.started("slot", e2));
    assertTrue(assertThrows(IllegalStateException.class, t::handOff).getMessage().contains("handing off already"));
  }

  @Test
  void aRememberedEntityStoppedByTheHandOffIsLeftToTheNextHome() {
    EntityTable<ActorRef> t = table(10, true);
    EntityTableTest.start(t, "a", e1);
    t.handOff();
    assertEquals(AfterStop.of(Next.KEEP_FOR_NEXT_HOME), t.terminated("a", false, 0));
    assertEquals(Status.HANDED_OFF, t.status("a"));
    assertTrue(t.allStopped());
    // The hand-off was given up: it recovers at once.
    assertEquals(List.of("a"), t.cancelHandOff());
    assertEquals(Wait.RECOVERY, t.waitingFor("a"));
    assertTrue(assertThrows(IllegalStateException.class, t::cancelHandOff).getMessage().contains("not handing off"));
  }

  @Test
  void anEntityStillStoppingWhenTheHandOffIsCancelledStartsAgain() {
    EntityTable<ActorRef> t = table(10, true);
    EntityTableTest.start(t, "a", e1);
    t.handOff();
    assertEquals(List.of(), t.cancelHandOff());
    assertEquals(AfterStop.of(Next.START_REMEMBERED), t.terminated("a", false, 0));
    assertEquals(Wait.RECOVERY, t.waitingFor("a"));
  }

  @Test
  void anEntityThatAsksToPassivateDuringTheHandOffIsForgotten() {
    EntityTable<ActorRef> t = table(10, true);
    EntityTableTest.start(t, "a", e1);
    t.handOff();
    // Stopping already: no second stop is sent, but it must not start at the next home.
    assertFalse(t.passivate("a"));
    assertEquals(AfterStop.of(Next.FORGET), t.terminated("a", false, 0));
  }

  @Test
  void aHandedOffEntityThatGetsAMessageIsWrittenAgain() {
    EntityTable<ActorRef> t = table(10, true);
    EntityTableTest.start(t, "a", e1);
    t.handOff();
    t.terminated("a", false, 0);
    t.hold("a", "m");
    assertEquals(EntityTable.Arrival.REMEMBER_FIRST, t.arrived("a"));
    assertEquals(Wait.STORE, t.waitingFor("a"));
    assertEquals(List.of(), t.cancelHandOff());
  }
}
