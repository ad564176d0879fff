package dev.shardkit.sharding.internal.coordinator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.internal.TestRefs;
import dev.shardkit.sharding.internal.coordinator.CoordinatorWrites.Batch;
import dev.shardkit.sharding.internal.coordinator.CoordinatorWrites.Next;
import dev.shardkit.sharding.spi.CoordinatorEvent.RegionRegistered;
import dev.shardkit.sharding.spi.CoordinatorEvent.ShardHomeAllocated;
import dev.shardkit.sharding.spi.CoordinatorEvent.ShardHomeDeallocated;
import dev.shardkit.sharding.spi.CoordinatorEvent;
import dev.shardkit.sharding.spi.CoordinatorState;
import java.util.ArrayList;
import java.util.List;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class CoordinatorWritesTest {
  @RegisterExtension static final TestRefs refs = new TestRefs();

  private static ActorRef<Object> r(int n) {
    return refs.region(n);
  }

  private static CoordinatorState stateOf(List<CoordinatorEvent> events) {
    return TestRefs.applied(CoordinatorState.empty(), events);
  }

  /** Effects that record, in order, that they ran. */
  private final List<String> ran = new ArrayList<>();

  private Runnable effect(String name) {
    return () -> ran.add(name);
  }

  private void run(List<Runnable> effects) {
    effects.forEach(Runnable::run);
  }

  @Test
  void decisionsTakeEffectAtOnceAndAreStoredOneWriteAtATimeWithTheStateAfterEach() {
    CoordinatorWrites w = new CoordinatorWrites(CoordinatorState.empty());
    w.decide(List.of(new RegionRegistered(r(1))), effect("ack r(1)"));
    Next first = w.next();
    assertEquals(List.of(new RegionRegistered(r(1))), first.write().events());
    assertEquals(stateOf(List.of(new RegionRegistered(r(1)))), first.write().after());
    assertTrue(first.run().isEmpty(), "nothing is announced before it is stored");

    // Decided meanwhile: visible to later decisions, but no second write in flight.
    w.decide(List.of(new ShardHomeAllocated("a", r(1))), effect("home a"));
    w.decide(List.of(new RegionRegistered(r(2)), new ShardHomeAllocated("b", r(2))), effect("home b"));
    assertEquals(r(1), w.decided().shards().get("a"));
    assertEquals(CoordinatorState.empty(), w.stored());
    assertTrue(w.busy());
    Next blocked = w.next();
    assertNull(blocked.write());
    assertTrue(blocked.run().isEmpty());

    run(w.written());
    assertEquals(List.of("ack r(1)"), ran);
    assertEquals(first.write().after(), w.stored());

    Batch second = w.next().write();
    assertEquals(
        List.of(new ShardHomeAllocated("a", r(1)), new RegionRegistered(r(2)), new ShardHomeAllocated("b", r(2))),
        second.events(), "everything decided during the first write, in order, in one write");
    assertEquals(w.decided(), second.after());
    run(w.written());
    assertEquals(List.of("ack r(1)", "home a", "home b"), ran);
    assertFalse(w.busy());
    assertEquals(w.decided(), w.stored());
  }

  /**
   * Seed 73697 of the coordinator simulation: a write's reply was lost, though the store held it
   * (shard 15 moved to r(1)); a later decision moved the shard back, so decided and stored agreed
   * again, and the coordinator told a region the old home while the store held the new one.
   */
  @Test
  void aShardNamedByAWriteWithoutAnAnswerIsNotSettledEvenIfTheRetryLeavesItAsItWas() {
    CoordinatorWrites w = new CoordinatorWrites(stateOf(List.of(new RegionRegistered(r(0)),
        new RegionRegistered(r(1)), new ShardHomeAllocated("15", r(0)))));
    assertEquals(r(0), w.settledHome("15"));
    w.decide(List.of(new ShardHomeDeallocated("15"), new ShardHomeAllocated("15", r(1))), effect("moved"));
    w.next();
    assertNull(w.settledHome("15"), "a write naming the shard is in flight");
    // The reply is lost: the store may hold r(1) now. The shard is moved back meanwhile.
    w.decide(List.of(new ShardHomeDeallocated("15"), new ShardHomeAllocated("15", r(0))), effect("back"));
    assertEquals(r(0), w.decided().shards().get("15"));
    assertEquals(r(0), w.stored().shards().get("15"));
    assertNull(w.settledHome("15"), "the failed write may have stored another home");
    Batch retried = w.retry();
    assertEquals(r(0), retried.after().shards().get("15"));
    assertNull(w.settledHome("15"), "the retry that would settle it is not confirmed yet");
    run(w.written());
    assertEquals(r(0), w.settledHome("15"), "settled once the retry is stored");
    assertEquals(List.of("moved", "back"), ran);
  }

  @Test
  void anEffectWithoutEventsRunsOnceEverythingDecidedBeforeItIsStored() {
    CoordinatorWrites w = new CoordinatorWrites(CoordinatorState.empty());
    w.decide(List.of(), effect("at once"));
    Next idle = w.next();
    assertNull(idle.write(), "nothing to write");
    run(idle.run());
    assertEquals(List.of("at once"), ran);

    w.decide(List.of(new RegionRegistered(r(1))), effect("registered"));
    w.next();
    w.decide(List.of(), effect("after the registration"));
    assertTrue(w.next().run().isEmpty(), "waits for the write in flight");
    run(w.written());
    run(w.next().run());
    assertEquals(List.of("at once", "registered", "after the registration"), ran);
  }

  @Test
  void aFailedWriteIsRetriedTogetherWithWhatWasDecidedSince() {
    CoordinatorWrites w = new CoordinatorWrites(CoordinatorState.empty());
    w.decide(List.of(new RegionRegistered(r(1))), effect("one"));
    w.next();
    w.decide(List.of(new ShardHomeAllocated("a", r(1))), effect("two"));
    Batch retry = w.retry();
    assertEquals(List.of(new RegionRegistered(r(1)), new ShardHomeAllocated("a", r(1))), retry.events());
    assertEquals(w.decided(), retry.after());
    assertNull(w.next().write(), "the retry is the write in flight");
    run(w.written());
    assertEquals(List.of("one", "two"), ran);
    assertNull(w.next().write(), "nothing was left for another write");
    assertEquals(w.decided(), w.stored());
  }

  @Test
  void theEffectsWaitingForAWriteAreCountedInFlightQueuedAndThroughARetry() {
    CoordinatorWrites w = new CoordinatorWrites(CoordinatorState.empty());
    assertEquals(0, w.waitingEffects());
    w.decide(List.of(new RegionRegistered(r(1))), effect("one"));
    w.next();
    w.decide(List.of(), effect("two"));
    w.decide(List.of(), effect("three"));
    assertEquals(3, w.waitingEffects(), "one in flight, two queued");
    w.retry();
    assertEquals(3, w.waitingEffects(), "a retry takes them all along, none twice");
    run(w.written());
    assertEquals(0, w.waitingEffects());
  }

  @Test
  void aHomeIsSettledOnlyOnceStoredAndNotBeingChanged() {
    CoordinatorWrites w =
        new CoordinatorWrites(stateOf(List.of(new RegionRegistered(r(1)), new RegionRegistered(r(2)))));
    w.decide(List.of(new ShardHomeAllocated("a", r(1))), () -> { });
    assertNull(w.settledHome("a"), "decided, not yet stored");
    w.next();
    w.written();
    assertEquals(r(1), w.settledHome("a"));
    w.decide(List.of(new CoordinatorEvent.ShardHomeDeallocated("a"), new ShardHomeAllocated("a", r(2))), () -> { });
    assertNull(w.settledHome("a"), "its move is not stored yet");
  }

  @Test
  void aDecisionThatDoesNotFitIsNotTaken() {
    CoordinatorWrites w = new CoordinatorWrites(CoordinatorState.empty());
    assertThrows(IllegalStateException.class,
        () -> w.decide(List.of(new RegionRegistered(r(1)), new ShardHomeAllocated("a", r(2))), effect("never")));
    assertEquals(CoordinatorState.empty(), w.decided());
    assertFalse(w.busy());
    assertTrue(w.next().run().isEmpty());
    assertThrows(IllegalStateException.class, w::written, "no write in flight");
    assertThrows(IllegalStateException.class, w::retry, "no write in flight");
  }
}
