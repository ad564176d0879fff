package dev.shardkit.sharding.internal.shard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.internal.shard.ShardEffect.CancelTimer;
import dev.shardkit.sharding.internal.shard.ShardEffect.Drop;
import dev.shardkit.sharding.internal.shard.ShardEffect.ParkOnGate;
import dev.shardkit.sharding.internal.shard.ShardEffect.RememberLoad;
import dev.shardkit.sharding.internal.shard.ShardEffect.RememberUpdate;
import dev.shardkit.sharding.internal.shard.ShardEffect.ReplySnapshot;
import dev.shardkit.sharding.internal.shard.ShardEffect.Report;
import dev.shardkit.sharding.internal.shard.ShardEffect.StartEntity;
import dev.shardkit.sharding.internal.shard.ShardEffect.StartTimer;
import dev.shardkit.sharding.internal.shard.ShardEffect.StopEntity;
import dev.shardkit.sharding.internal.shard.ShardEffect.Stopped;
import dev.shardkit.sharding.internal.shard.ShardEffect.TellRegion;
import dev.shardkit.sharding.internal.shard.ShardEffect.ToEntity;
import dev.shardkit.sharding.internal.shard.ShardInput.CancelHandOff;
import dev.shardkit.sharding.internal.shard.ShardInput.Deliver;
import dev.shardkit.sharding.internal.shard.ShardInput.EntityCreationFailed;
import dev.shardkit.sharding.internal.shard.ShardInput.EntityLimit;
import dev.shardkit.sharding.internal.shard.ShardInput.EntityStartRefused;
import dev.shardkit.sharding.internal.shard.ShardInput.EntityStarted;
import dev.shardkit.sharding.internal.shard.ShardInput.EntityTerminated;
import dev.shardkit.sharding.internal.shard.ShardInput.GateOpened;
import dev.shardkit.sharding.internal.shard.ShardInput.GetShardState;
import dev.shardkit.sharding.internal.shard.ShardInput.HandOff;
import dev.shardkit.sharding.internal.shard.ShardInput.Passivate;
import dev.shardkit.sharding.internal.shard.ShardInput.RememberLoadFailed;
import dev.shardkit.sharding.internal.shard.ShardInput.RememberLoaded;
import dev.shardkit.sharding.internal.shard.ShardInput.RememberRefused;
import dev.shardkit.sharding.internal.shard.ShardInput.RememberWriteFailed;
import dev.shardkit.sharding.internal.shard.ShardInput.RememberWritten;
import dev.shardkit.sharding.internal.shard.ShardInput.Start;
import dev.shardkit.sharding.internal.shard.ShardInput.TimerFired;
import dev.shardkit.sharding.internal.shard.ShardMachine.Phase;
import dev.shardkit.sharding.internal.shard.ShardNotice.BackingOff;
import dev.shardkit.sharding.internal.shard.ShardNotice.CreationFailed;
import dev.shardkit.sharding.internal.shard.ShardNotice.EntityFailed;
import dev.shardkit.sharding.internal.shard.ShardNotice.PassivateIgnored;
import dev.shardkit.sharding.internal.shard.ShardNotice.StartingRemembered;
import dev.shardkit.sharding.internal.shard.ShardNotice.StoreReadFailed;
import dev.shardkit.sharding.internal.shard.ShardNotice.StoreWriteFailed;
import dev.shardkit.sharding.internal.shard.ShardProtocol.EntitiesLive;
import dev.shardkit.sharding.internal.shard.ShardProtocol.ShardSnapshot;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.slf4j.event.Level;

/**
 * The shard's machine, driven input by input: each test hands it what the shard actor would, and
 * checks the effects it answers with, in order. Entities are plain values ({@link Ent}); the clock
 * is the test's.
 */
class ShardMachineTest {
  private static final long MS = 1_000_000L;
  private static final Exception BOOM = new IllegalStateException("boom");

  /** An incarnation of an entity: its id and which incarnation. */
  record Ent(String id, int n) {}

  /** A machine and the test's clock. */
  static final class Run {
    final ShardMachine<Ent> m;
    long now;
    /** The id of the store read the shard started with, if it remembers its entities. */
    long read;

    Run(ShardConfig cfg, ShardCarryOver.Taken taken) {
      m = new ShardMachine<>(cfg, taken, Ent::id);
    }

    List<ShardEffect<Ent>> in(ShardInput<Ent> input) {
      return List.copyOf(m.handle(input, now));
    }

    List<ShardEffect<Ent>> at(long nanos, ShardInput<Ent> input) {
      now = nanos;
      return in(input);
    }

    /** Delivers and confirms every start it causes, as the driver would with a gate that is open. */
    List<ShardEffect<Ent>> deliverAndStart(String entityId, Object message, int incarnation) {
      List<ShardEffect<Ent>> effects = in(deliver(entityId, message));
      for (ShardEffect<Ent> e : effects) {
        if (e instanceof StartEntity<Ent> s) {
          in(new EntityStarted<>(s.entityId(), new Ent(s.entityId(), incarnation)));
        }
      }
      return effects;
    }
  }

  /** Buffer 5, back-off 100 ms up to 1 s, batches every 100 ms, store retries 200 ms up to 5 s. */
  static ShardConfig config(boolean remembering, Optional<Duration> idle, boolean automatic, int recoveryBatch) {
    return new ShardConfig("T", "7", 5, remembering, Duration.ofMillis(100), Duration.ofSeconds(1), idle, automatic,
        recoveryBatch, Duration.ofMillis(100), Duration.ofMillis(200), Duration.ofSeconds(5), "the test store");
  }

  static Run plain() {
    Run r = new Run(config(false, Optional.empty(), false, 0), new ShardCarryOver(Integer.MAX_VALUE).take());
    assertEquals(List.of(), r.in(new Start<>()));
    return r;
  }

  /** A shard whose share of the active-entity limit is {@code limit}. */
  static Run limited(int limit) {
    Run r = new Run(config(false, Optional.empty(), true, 0), new ShardCarryOver(limit).take());
    r.in(new Start<>());
    return r;
  }

  /** A remembering shard that reads its store: {@link Run#read} is the read's id. */
  static Run remembering(int recoveryBatch) {
    Run r = new Run(config(true, Optional.empty(), false, recoveryBatch), new ShardCarryOver(Integer.MAX_VALUE).take());
    List<ShardEffect<Ent>> start = r.in(new Start<>());
    assertEquals(1, start.size());
    r.read = readId(start);
    assertEquals(Phase.LOADING, r.m.phase());
    return r;
  }

  static long readId(List<ShardEffect<Ent>> effects) {
    return effects.stream().filter(e -> e instanceof RememberLoad<Ent>).map(e -> ((RememberLoad<Ent>) e).readId())
        .findFirst().orElseThrow();
  }

  static RememberUpdate<Ent> update(List<ShardEffect<Ent>> effects) {
    return effects.stream().filter(e -> e instanceof RememberUpdate<Ent>).map(e -> (RememberUpdate<Ent>) e)
        .findFirst().orElseThrow();
  }

  static StartTimer<Ent> timer(List<ShardEffect<Ent>> effects, ShardTimer key) {
    return effects.stream().filter(e -> e instanceof StartTimer<Ent> t && t.key() == key)
        .map(e -> (StartTimer<Ent>) e).findFirst().orElseThrow();
  }

  static Deliver<Ent> deliver(String entityId, Object message) {
    return new Deliver<>(entityId, message);
  }

  static StartEntity<Ent> start(String entityId, Object... messages) {
    return new StartEntity<>(entityId, List.of(messages));
  }

  static Ent ent(String id, int n) {
    return new Ent(id, n);
  }

  // ---- delivery

  @Test
  void aNewEntityStartsWithItsFirstMessageAndThenTakesTheFastLane() {
    Run r = plain();
    assertEquals(Phase.RUNNING, r.m.phase());
    assertEquals(List.of(start("a", "m1")), r.in(deliver("a", "m1")));
    assertEquals(1, r.m.liveEntities());
    assertNull(r.m.activeFor("a", 0), "starting, not active yet");
    assertEquals(List.of(), r.in(new EntityStarted<>("a", ent("a", 1))));
    assertEquals(ent("a", 1), r.m.activeFor("a", 0));
    // Handed to handle all the same, a message for an active entity goes to it.
    assertEquals(List.of(new ToEntity<>(ent("a", 1), "m2")), r.in(deliver("a", "m2")));
  }

  @Test
  void aMessageWithAnInvalidEntityIdIsDropped() {
    Run r = plain();
    assertEquals(List.of(new Drop<>("m", "dropping a message for shard [7]: the entity id is null")),
        r.in(deliver(null, "m")));
    assertEquals(List.of(new Drop<>("m", "dropping a message for shard [7]: the entity id is empty")),
        r.in(deliver("", "m")));
    assertNull(r.m.activeFor(null, 0));
  }

  @Test
  void inputsBeforeTheStartAreABugAndAStoppedShardHandlesNothing() {
    Run r = new Run(config(false, Optional.empty(), false, 0), new ShardCarryOver(Integer.MAX_VALUE).take());
    assertEquals(Phase.NEW, r.m.phase());
    assertThrows(IllegalStateException.class, () -> r.in(deliver("a", "m")));
    r.in(new Start<>());
    assertThrows(IllegalStateException.class, () -> r.in(new Start<>()));
    assertEquals(List.of(new Stopped<>()), r.in(new HandOff<>()));
    assertEquals(Phase.STOPPED, r.m.phase());
    assertEquals(List.of(), r.in(deliver("a", "m")));
  }

  // ---- starting: the gate, failing factories

  @Test
  void aClosedGateHoldsTheEntityAndItsMessagesUntilItOpens() {
    Run r = plain();
    r.in(deliver("a", "m1"));
    assertEquals(List.of(new ParkOnGate<>()), r.in(new EntityStartRefused<>("a", List.of("m1"))));
    assertEquals(0, r.m.liveEntities());
    assertEquals(List.of(), r.in(deliver("a", "m2")));
    assertEquals(List.of(start("b", "n1")), r.in(deliver("b", "n1")));
    assertEquals(List.of(), r.in(new EntityStartRefused<>("b", List.of("n1"))), "parked once");
    assertEquals(List.of(start("a", "m1", "m2"), start("b", "n1")), r.in(new GateOpened<>()));
    // Closed again after it opened: the shard asks to hear of it again, once.
    assertEquals(List.of(new ParkOnGate<>()), r.in(new EntityStartRefused<>("a", List.of("m1", "m2"))));
    assertEquals(List.of(), r.in(new EntityStartRefused<>("b", List.of("n1"))));
    assertEquals(3, r.m.heldMessages());
  }

  @Test
  void whileTheGateIsClosedTheBufferLimitHolds() {
    Run r = plain();
    r.in(deliver("a", "a1"));
    r.in(new EntityStartRefused<>("a", List.of("a1")));
    for (int i = 2; i <= 5; i++) {
      assertEquals(List.of(), r.in(deliver("a", "a" + i)));
    }
    assertEquals(5, r.m.heldMessages(), "the buffer is full");
    assertEquals(List.of(start("b", "b1")), r.in(deliver("b", "b1")));
    assertEquals(List.of(new Drop<>("b1", "buffer full while entity [b] of shard [7] waits for this node to be "
        + "confirmed a member")), r.in(new EntityStartRefused<>("b", List.of("b1"))));
    assertEquals(List.of(new Drop<>("a6", "buffer full while entity [a] of shard [7] waits to start or passivates")),
        r.in(deliver("a", "a6")));
  }

  @Test
  void aBehaviorThatCannotBeCreatedCostsOnlyItsMessages() {
    Run r = plain();
    r.in(deliver("a", "m1"));
    List<ShardEffect<Ent>> failed = r.in(new EntityCreationFailed<>("a", List.of("m1"), BOOM));
    assertEquals(List.of(new Report<>(new CreationFailed("T", "7", "a", BOOM)),
        new Drop<>("m1", "entity [a] could not be created: " + BOOM)), failed);
    ShardNotice notice = ((Report<Ent>) failed.get(0)).notice();
    assertEquals(Level.ERROR, notice.level());
    assertEquals("Entity type [T]: creating entity [a] in shard [7] failed", notice.render());
    assertSame(BOOM, notice.throwable());
    assertEquals(0, r.m.liveEntities());
    assertEquals(List.of(start("a", "m2")), r.in(deliver("a", "m2")));
  }

  @Test
  void aRememberedEntityWhoseCreationFailsTriesAgainAfterItsBackOff() {
    Run r = remembering(0);
    r.in(new RememberLoaded<>(r.read, Set.of()));
    RememberUpdate<Ent> write = update(r.in(deliver("a", "m1")));
    assertEquals(List.of(start("a", "m1")), r.in(new RememberWritten<>(write.batchId())));
    List<ShardEffect<Ent>> failed = r.in(new EntityCreationFailed<>("a", List.of("m1"), BOOM));
    StartTimer<Ent> backoff = timer(failed, ShardTimer.BACKOFF);
    assertEquals(List.of(new Report<>(new CreationFailed("T", "7", "a", BOOM)),
        new Drop<>("m1", "entity [a] could not be created: " + BOOM),
        new Report<>(new BackingOff("T", "7", "a", 1, Duration.ofMillis(100))), backoff), failed);
    assertEquals(Duration.ofMillis(100), backoff.delay());
    assertEquals(List.of(start("a")), r.at(100 * MS, new TimerFired<>(ShardTimer.BACKOFF, backoff.generation())));
  }

  // ---- passivation

  @Test
  void anEntityThatAsksToPassivateStopsAndWhatComesMeanwhileWaitsForItsNextIncarnation() {
    Run r = plain();
    r.deliverAndStart("a", "m1", 1);
    assertEquals(List.of(new StopEntity<>(ent("a", 1))), r.in(new Passivate<>(ent("a", 1))));
    assertNull(r.m.activeFor("a", 0));
    assertEquals(List.of(), r.in(new Passivate<>(ent("a", 1))), "one stop");
    assertEquals(List.of(), r.in(deliver("a", "m2")));
    assertEquals(List.of(), r.in(deliver("a", "m3")));
    assertEquals(2, r.m.heldMessages());
    assertEquals(List.of(start("a", "m2", "m3")), r.in(new EntityTerminated<>(ent("a", 1), false, null)));
    assertEquals(0, r.m.heldMessages());
  }

  @Test
  void aPassivateFromSomethingElseIsIgnored() {
    Run r = plain();
    r.deliverAndStart("a", "m1", 1);
    Ent earlier = ent("a", 0);
    List<ShardEffect<Ent>> effects = r.in(new Passivate<>(earlier));
    assertEquals(List.of(new Report<>(new PassivateIgnored("T", "7", earlier))), effects);
    ShardNotice notice = ((Report<Ent>) effects.get(0)).notice();
    assertEquals(Level.DEBUG, notice.level());
    assertEquals("Entity type [T]: ignoring Passivate for " + earlier + ", not an entity of shard [7]",
        notice.render());
    assertEquals(ent("a", 1), r.m.activeFor("a", 0));
  }

  @Test
  void theActiveEntityLimitPassivatesTheLeastRecentlyUsed() {
    Run r = limited(2);
    r.now = 1;
    r.deliverAndStart("a", "a1", 1);
    r.now = 2;
    r.deliverAndStart("b", "b1", 1);
    // The fast lane counts as use.
    assertEquals(ent("a", 1), r.m.activeFor("a", 3));
    assertEquals(List.of(new StopEntity<>(ent("b", 1))), r.at(4, deliver("c", "c1")));
    assertEquals(List.of(start("c", "c1")), r.in(new EntityTerminated<>(ent("b", 1), false, null)));
    r.in(new EntityStarted<>("c", ent("c", 1)));
    assertEquals(List.of(new ReplySnapshot<>(null, new ShardSnapshot("7", Set.of("a", "c"), 0, 1))),
        r.in(new GetShardState<>(null)));
  }

  @Test
  void anEntityStartedToFillRoomMayMakeRoomItselfAndStopsOnceStarted() {
    Run r = limited(1);
    r.now = 1;
    r.deliverAndStart("a", "a1", 1);
    assertEquals(List.of(new StopEntity<>(ent("a", 1))), r.at(2, deliver("b", "b1")));
    assertEquals(List.of(), r.at(3, deliver("c", "c1")), "a stops already");
    // a's room goes to b, which is then the least recently used of those that may make room for c.
    assertEquals(List.of(start("b", "b1")), r.at(4, new EntityTerminated<>(ent("a", 1), false, null)));
    assertEquals(List.of(new StopEntity<>(ent("b", 1))), r.in(new EntityStarted<>("b", ent("b", 1))));
    assertEquals(List.of(start("c", "c1")), r.in(new EntityTerminated<>(ent("b", 1), false, null)));
    assertEquals(2, ((ReplySnapshot<Ent>) r.in(new GetShardState<>(null)).get(0)).snapshot().limitPassivations());
  }

  @Test
  void aSmallerShareIsPassivatedDownToAndTheRegionHearsTheCountUntilItFits() {
    Run r = limited(Integer.MAX_VALUE);
    for (String id : List.of("a", "b", "c")) {
      r.now++;
      r.deliverAndStart(id, id + "1", 1);
    }
    assertEquals(List.of(new StopEntity<>(ent("a", 1)), new StopEntity<>(ent("b", 1)),
        new TellRegion<>(new EntitiesLive("7", 3, 1))), r.in(new EntityLimit<>(1)));
    assertEquals(List.of(new TellRegion<>(new EntitiesLive("7", 2, 1))),
        r.in(new EntityTerminated<>(ent("a", 1), false, null)));
    assertEquals(List.of(new TellRegion<>(new EntitiesLive("7", 1, 1))),
        r.in(new EntityTerminated<>(ent("b", 1), false, null)));
    // Within its share: the region heard it, and hears again only after the next share.
    r.deliverAndStart("c", "c2", 1);
    assertEquals(List.of(new TellRegion<>(new EntitiesLive("7", 1, 2))), r.in(new EntityLimit<>(3)));
  }

  @Test
  void aLargerShareStartsThoseWaitingForRoom() {
    Run r = limited(1);
    r.deliverAndStart("a", "a1", 1);
    r.in(deliver("b", "b1"));
    assertEquals(List.of(start("b", "b1"), new TellRegion<>(new EntitiesLive("7", 2, 1))),
        r.in(new EntityLimit<>(2)));
  }

  @Test
  void idleEntitiesArePassivatedAtEachCheck() {
    Run r = new Run(config(false, Optional.of(Duration.ofSeconds(1)), true, 0),
        new ShardCarryOver(Integer.MAX_VALUE).take());
    StartTimer<Ent> first = timer(r.in(new Start<>()), ShardTimer.IDLE);
    assertEquals(Duration.ofMillis(250), first.delay());
    r.deliverAndStart("a", "a1", 1);
    r.now = 500 * MS;
    r.deliverAndStart("b", "b1", 1);
    List<ShardEffect<Ent>> check = r.at(1200 * MS, new TimerFired<>(ShardTimer.IDLE, first.generation()));
    StartTimer<Ent> next = timer(check, ShardTimer.IDLE);
    assertEquals(List.of(new StopEntity<>(ent("a", 1)), next), check);
    assertEquals(List.of(), r.in(new TimerFired<>(ShardTimer.IDLE, first.generation())), "a stale check");
    assertEquals(1, ((ReplySnapshot<Ent>) r.in(new GetShardState<>(null)).get(0)).snapshot().idlePassivations());
  }

  // ---- restarts

  @Test
  void anEntityThatKeepsFailingIsBackedOffAndItsMessagesWait() {
    Run r = plain();
    r.deliverAndStart("a", "m1", 1);
    assertEquals(List.of(new Report<>(new EntityFailed("T", "7", "a", 1, BOOM))),
        r.in(new EntityTerminated<>(ent("a", 1), true, BOOM)));
    r.deliverAndStart("a", "m2", 2);
    List<ShardEffect<Ent>> second = r.at(10 * MS, new EntityTerminated<>(ent("a", 2), true, BOOM));
    StartTimer<Ent> backoff = timer(second, ShardTimer.BACKOFF);
    assertEquals(List.of(new Report<>(new EntityFailed("T", "7", "a", 2, BOOM)),
        new Report<>(new BackingOff("T", "7", "a", 2, Duration.ofMillis(100))), backoff), second);
    assertEquals(Duration.ofMillis(100), backoff.delay());
    ShardNotice failed = ((Report<Ent>) second.get(0)).notice();
    assertEquals("Entity type [T]: entity [a] of shard [7] failed (2 in a row): " + BOOM, failed.render());
    ShardNotice backingOff = ((Report<Ent>) second.get(1)).notice();
    assertEquals(Level.WARN, backingOff.level());
    assertEquals("Entity type [T]: entity [a] of shard [7] stopped 2 times in a row shortly after starting; it "
        + "starts again in 100 ms, and its messages wait until then", backingOff.render());
    assertEquals(List.of(), r.in(deliver("a", "m3")));
    assertEquals(List.of(), r.at(60 * MS, new TimerFired<>(ShardTimer.BACKOFF, backoff.generation() - 1)), "stale");
    assertEquals(List.of(start("a", "m3")), r.at(110 * MS, new TimerFired<>(ShardTimer.BACKOFF,
        backoff.generation())));
  }

  @Test
  void aRememberedEntityThatStopsByItselfStartsAgainAfterItsBackOff() {
    Run r = remembering(0);
    r.in(new RememberLoaded<>(r.read, Set.of("a")));
    r.in(new EntityStarted<>("a", ent("a", 1)));
    List<ShardEffect<Ent>> stopped = r.in(new EntityTerminated<>(ent("a", 1), false, null));
    StartTimer<Ent> backoff = timer(stopped, ShardTimer.BACKOFF);
    ShardNotice notice = ((Report<Ent>) stopped.get(0)).notice();
    assertEquals(Level.INFO, notice.level());
    assertEquals("Entity type [T]: remembered entity [a] of shard [7] stopped without passivating; it starts "
        + "again in 100 ms", notice.render());
    assertEquals(List.of(start("a")), r.at(100 * MS, new TimerFired<>(ShardTimer.BACKOFF, backoff.generation())));
  }

  // ---- remember-entities

  @Test
  void newEntitiesWaitForTheStoreToBeReadAndThenForTheirStartToBeWritten() {
    Run r = new Run(config(true, Optional.empty(), false, 0), new ShardCarryOver(Integer.MAX_VALUE).take());
    long read = readId(r.in(new Start<>()));
    assertEquals(List.of(), r.in(deliver("new", "n1")));
    assertEquals(List.of(), r.in(deliver("old", "o1")));
    assertEquals(List.of(), r.in(new RememberLoaded<>(read + 99, Set.of("old"))), "not the read in flight");
    assertEquals(Phase.LOADING, r.m.phase());
    // Set.of iterates in a per-JVM order; the remembered entities start in the order of their ids.
    List<ShardEffect<Ent>> loaded = r.in(new RememberLoaded<>(read, Set.of("r2", "old", "r1")));
    RememberUpdate<Ent> write = update(loaded);
    assertEquals(List.of(new Report<>(new StartingRemembered("T", "7", 3, 0, Duration.ofMillis(100))),
        start("old", "o1"), new RememberUpdate<>(write.batchId(), Set.of("new"), Set.of()), start("r1"),
        start("r2")), loaded);
    assertEquals("Entity type [T]: shard [7] starts 3 remembered entities",
        ((Report<Ent>) loaded.get(0)).notice().render());
    assertEquals(Phase.RUNNING, r.m.phase());
    assertEquals(List.of(), r.in(new RememberWritten<>(write.batchId() + 1)), "not the write in flight");
    assertEquals(List.of(start("new", "n1")), r.in(new RememberWritten<>(write.batchId())));
  }

  @Test
  void rememberedEntitiesStartInBatchesAtTheRecoveryFrequency() {
    Run r = new Run(config(true, Optional.empty(), false, 2), new ShardCarryOver(Integer.MAX_VALUE).take());
    long read = readId(r.in(new Start<>()));
    List<ShardEffect<Ent>> loaded = r.in(new RememberLoaded<>(read, Set.of("e1", "e2", "e3", "e4", "e5")));
    StartTimer<Ent> t1 = timer(loaded, ShardTimer.RECOVERY);
    assertEquals(List.of(new Report<>(new StartingRemembered("T", "7", 5, 2, Duration.ofMillis(100))), start("e1"),
        start("e2"), t1), loaded);
    assertEquals("Entity type [T]: shard [7] starts 5 remembered entities, 2 every 100 ms",
        ((Report<Ent>) loaded.get(0)).notice().render());
    assertEquals(Duration.ofMillis(100), t1.delay());
    // A message for one still waiting for its batch starts it at once.
    assertEquals(List.of(start("e5", "m")), r.in(deliver("e5", "m")));
    List<ShardEffect<Ent>> second = r.in(new TimerFired<>(ShardTimer.RECOVERY, t1.generation()));
    assertEquals(List.of(start("e3"), start("e4")), second, "the last batch: no timer after it");
  }

  @Test
  void aFailedReadIsReadAgainLaterAndMessagesWaitMeanwhile() {
    Run r = new Run(config(true, Optional.empty(), false, 0), new ShardCarryOver(Integer.MAX_VALUE).take());
    long read = readId(r.in(new Start<>()));
    r.in(deliver("a", "m"));
    List<ShardEffect<Ent>> failed = r.in(new RememberLoadFailed<>(read, BOOM));
    StartTimer<Ent> retry = timer(failed, ShardTimer.RETRY_LOAD);
    assertEquals(List.of(new Report<>(new StoreReadFailed("T", "7", "the test store", BOOM, Duration.ofMillis(200))),
        retry), failed);
    assertEquals("Entity type [T]: shard [7] could not read its remembered entities from the test store (" + BOOM
        + "); retrying in 200 ms, its messages wait meanwhile", ((Report<Ent>) failed.get(0)).notice().render());
    long again = readId(r.in(new TimerFired<>(ShardTimer.RETRY_LOAD, retry.generation())));
    assertTrue(again != read);
    assertEquals(List.of(), r.in(new RememberLoadFailed<>(read, BOOM)), "an answer to the failed read");
    assertEquals(Duration.ofMillis(400),
        timer(r.in(new RememberLoadFailed<>(again, BOOM)), ShardTimer.RETRY_LOAD).delay());
    assertEquals(Phase.LOADING, r.m.phase());
  }

  @Test
  void aFailedWriteIsWrittenAgainWithWhatCameMeanwhile() {
    Run r = remembering(0);
    r.in(new RememberLoaded<>(r.read, Set.of()));
    RememberUpdate<Ent> first = update(r.in(deliver("a", "a1")));
    assertEquals(Set.of("a"), first.started());
    assertEquals(List.of(), r.in(deliver("b", "b1")), "one write at a time");
    List<ShardEffect<Ent>> failed = r.in(new RememberWriteFailed<>(first.batchId(), BOOM));
    StartTimer<Ent> retry = timer(failed, ShardTimer.RETRY_WRITE);
    assertEquals(List.of(new Report<>(new StoreWriteFailed("T", "7", 1, "the test store", BOOM,
        Duration.ofMillis(200))), retry), failed);
    assertEquals("Entity type [T]: shard [7] could not write 1 remembered-entity change(s) to the test store ("
        + BOOM + "); retrying in 200 ms, new entities wait meanwhile",
        ((Report<Ent>) failed.get(0)).notice().render());
    RememberUpdate<Ent> second = update(r.in(new TimerFired<>(ShardTimer.RETRY_WRITE, retry.generation())));
    assertEquals(List.of("a", "b"), List.copyOf(second.started()));
    assertEquals(List.of(), r.in(new RememberWritten<>(first.batchId())), "the failed write's late answer");
    assertEquals(List.of(start("a", "a1"), start("b", "b1")), r.in(new RememberWritten<>(second.batchId())));
  }

  /**
   * The cluster simulation's seed 121 (remembering, with an active-entity limit): a shard on a node
   * that was frozen and then downed wrote an entity's start after the thaw, once the limit had room
   * for it; its next home had read the store already, so the entity stayed remembered and never ran.
   */
  @Test
  void aWriteRefusedWhileTheGateIsClosedGoesOutOnceItOpensWithWhatCameMeanwhile() {
    Run r = remembering(0);
    r.in(new RememberLoaded<>(r.read, Set.of()));
    RememberUpdate<Ent> first = update(r.in(deliver("a", "a1")));
    assertEquals(List.of(new ParkOnGate<>()), r.in(new RememberRefused<>(first.batchId())),
        "no back-off and no report: it waits for the gate");
    assertEquals(List.of(), r.in(deliver("b", "b1")), "nothing goes out while it waits");
    assertEquals(List.of(), r.in(new RememberRefused<>(first.batchId())), "not the write in flight");
    List<ShardEffect<Ent>> opened = r.in(new GateOpened<>());
    RememberUpdate<Ent> second = update(opened);
    assertEquals(List.of(second), opened);
    assertEquals(List.of("a", "b"), List.copyOf(second.started()));
    assertEquals(List.of(start("a", "a1"), start("b", "b1")), r.in(new RememberWritten<>(second.batchId())));
  }

  @Test
  void aReadRefusedWhileTheGateIsClosedIsMadeOnceItOpens() {
    Run r = remembering(0);
    r.in(deliver("a", "a1"));
    assertEquals(List.of(new ParkOnGate<>()), r.in(new RememberRefused<>(r.read)));
    assertEquals(List.of(), r.in(new RememberLoaded<>(r.read, Set.of("x"))), "the refused read is not in flight");
    assertEquals(Phase.LOADING, r.m.phase());
    long again = readId(r.in(new GateOpened<>()));
    assertTrue(again != r.read);
    List<ShardEffect<Ent>> loaded = r.in(new RememberLoaded<>(again, Set.of("x")));
    assertEquals(Set.of("a"), update(loaded).started());
    assertEquals(Phase.RUNNING, r.m.phase());
  }

  @Test
  void aPassivatedRememberedEntityIsForgotten() {
    Run r = remembering(0);
    r.in(new RememberLoaded<>(r.read, Set.of("a")));
    r.in(new EntityStarted<>("a", ent("a", 1)));
    r.in(new Passivate<>(ent("a", 1)));
    RememberUpdate<Ent> forget = update(r.in(new EntityTerminated<>(ent("a", 1), false, null)));
    assertEquals(Set.of(), forget.started());
    assertEquals(Set.of("a"), forget.stopped());
  }

  // ---- hand-off

  @Test
  void aHandOffStopsEveryEntityGivesHeldMessagesOneMoreIncarnationAndThenStopsTheShard() {
    Run r = plain();
    r.deliverAndStart("a", "a1", 1);
    r.deliverAndStart("b", "b1", 1);
    r.in(new Passivate<>(ent("a", 1)));
    r.in(deliver("a", "a2"));
    assertEquals(List.of(new StopEntity<>(ent("b", 1))), r.in(new HandOff<>()));
    assertEquals(Phase.HANDING_OFF, r.m.phase());
    assertEquals(List.of(), r.in(new HandOff<>()));
    assertEquals(List.of(), r.in(deliver("b", "b2")));
    // a2 was sent before the move: one more incarnation takes it and stops right after.
    assertEquals(List.of(start("a", "a2")), r.in(new EntityTerminated<>(ent("a", 1), false, null)));
    assertEquals(List.of(new StopEntity<>(ent("a", 2))), r.in(new EntityStarted<>("a", ent("a", 2))));
    assertEquals(List.of(start("b", "b2")), r.in(new EntityTerminated<>(ent("b", 1), false, null)));
    assertEquals(List.of(new StopEntity<>(ent("b", 2))), r.in(new EntityStarted<>("b", ent("b", 2))));
    assertEquals(List.of(), r.in(new EntityTerminated<>(ent("a", 2), false, null)));
    assertEquals(List.of(new Stopped<>()), r.in(new EntityTerminated<>(ent("b", 2), false, null)));
    assertEquals(Phase.STOPPED, r.m.phase());
  }

  @Test
  void aHandOffCancelsRecoveryAndBackOffsAndWaitsForTheLastWrite() {
    Run r = new Run(config(true, Optional.empty(), false, 1), new ShardCarryOver(Integer.MAX_VALUE).take());
    long read = readId(r.in(new Start<>()));
    List<ShardEffect<Ent>> loaded = r.in(new RememberLoaded<>(read, Set.of("a", "r")));
    assertEquals(start("a"), loaded.get(1));
    r.in(new EntityStarted<>("a", ent("a", 1)));
    RememberUpdate<Ent> write = update(r.in(deliver("n", "n1")));
    assertEquals(List.of(new CancelTimer<>(ShardTimer.RECOVERY), new StopEntity<>(ent("a", 1))),
        r.in(new HandOff<>()));
    // a is remembered: the next home starts it. n waits for its write.
    assertEquals(List.of(), r.in(new EntityTerminated<>(ent("a", 1), false, null)));
    assertEquals(List.of(start("n", "n1")), r.in(new RememberWritten<>(write.batchId())));
    assertEquals(List.of(new StopEntity<>(ent("n", 1))), r.in(new EntityStarted<>("n", ent("n", 1))));
    assertEquals(List.of(new Stopped<>()), r.in(new EntityTerminated<>(ent("n", 1), false, null)));
  }

  @Test
  void aShardWithNoEntityLeftStopsOnlyOnceItsLastChangeIsWritten() {
    Run r = remembering(0);
    r.in(new RememberLoaded<>(r.read, Set.of("a")));
    r.in(new EntityStarted<>("a", ent("a", 1)));
    r.in(new Passivate<>(ent("a", 1)));
    RememberUpdate<Ent> forget = update(r.in(new EntityTerminated<>(ent("a", 1), false, null)));
    assertEquals(List.of(), r.in(new HandOff<>()), "a's removal is not written yet");
    List<ShardEffect<Ent>> failed = r.in(new RememberWriteFailed<>(forget.batchId(), BOOM));
    assertTrue(failed.stream().noneMatch(e -> e instanceof Stopped));
    assertEquals(Phase.HANDING_OFF, r.m.phase());
    RememberUpdate<Ent> again = update(r.in(new TimerFired<>(ShardTimer.RETRY_WRITE,
        timer(failed, ShardTimer.RETRY_WRITE).generation())));
    assertEquals(Set.of("a"), again.stopped());
    assertEquals(List.of(new Stopped<>()), r.in(new RememberWritten<>(again.batchId())));
  }

  @Test
  void aCancelledHandOffStartsTheRememberedEntitiesAgain() {
    Run r = remembering(0);
    r.in(new RememberLoaded<>(r.read, Set.of("a", "b")));
    r.in(new EntityStarted<>("a", ent("a", 1)));
    r.in(new EntityStarted<>("b", ent("b", 1)));
    r.in(new HandOff<>());
    assertEquals(List.of(), r.in(new EntityTerminated<>(ent("a", 1), false, null)));
    assertEquals(List.of(start("a")), r.in(new CancelHandOff<>()));
    assertEquals(Phase.RUNNING, r.m.phase());
    assertEquals(List.of(), r.in(new CancelHandOff<>()), "not handing off");
    assertEquals(List.of(start("b")), r.in(new EntityTerminated<>(ent("b", 1), false, null)));
  }

  @Test
  void aHandOffWhileTheStoreIsReadStopsOnlyOnceItHasBeenRead() {
    Run r = new Run(config(true, Optional.empty(), false, 0), new ShardCarryOver(Integer.MAX_VALUE).take());
    long read = readId(r.in(new Start<>()));
    assertEquals(List.of(), r.in(new HandOff<>()));
    assertEquals(Phase.HANDING_OFF, r.m.phase());
    // Remembered entities are left to the next home.
    assertEquals(List.of(new Report<>(new StartingRemembered("T", "7", 1, 0, Duration.ofMillis(100))),
        new Stopped<>()), r.in(new RememberLoaded<>(read, Set.of("a"))));
  }

  // ---- a failed shard's next incarnation

  @Test
  void aFailedShardsNextIncarnationTakesWhatItHeldAndWhatNoEntityGot() {
    ShardConfig cfg = config(false, Optional.empty(), false, 0);
    ShardCarryOver carried = new ShardCarryOver(Integer.MAX_VALUE);
    Run r = new Run(cfg, carried.take());
    r.in(new Start<>());
    r.deliverAndStart("a", "a1", 1);
    r.in(new Passivate<>(ent("a", 1)));
    r.in(deliver("a", "a2"));
    r.in(deliver("a", "a3"));
    // The shard failed while it carried out a start (z) and before it handed back a refused one (y).
    carried.keep(r.m.carryOver(List.of(start("z", "z1"), new EntityStartRefused<Ent>("y", List.<Object>of("y1")),
        new Stopped<Ent>())));
    assertEquals(0, r.m.heldMessages());

    ShardCarryOver.Taken taken = carried.take();
    assertEquals(2, taken.incarnation());
    Run next = new Run(cfg, taken);
    assertEquals(List.of(start("a", "a2", "a3"), start("z", "z1"), start("y", "y1")), next.in(new Start<>()));
  }

  @Test
  void aTimerTheFailedIncarnationStartedIsNotTakenForOneOfTheNext() {
    ShardConfig cfg = config(false, Optional.of(Duration.ofSeconds(1)), true, 0);
    ShardCarryOver carried = new ShardCarryOver(Integer.MAX_VALUE);
    Run failed = new Run(cfg, carried.take());
    StartTimer<Ent> stale = timer(failed.in(new Start<>()), ShardTimer.IDLE);
    carried.keep(failed.m.carryOver(List.of()));
    // The actor (and its mailbox, where the failed incarnation's check may still wait) stays.
    Run next = new Run(cfg, carried.take());
    StartTimer<Ent> current = timer(next.in(new Start<>()), ShardTimer.IDLE);
    next.deliverAndStart("a", "a1", 1);
    assertEquals(List.of(), next.at(1200 * MS, new TimerFired<>(ShardTimer.IDLE, stale.generation())),
        "the failed incarnation's check, on its way as it failed");
    List<ShardEffect<Ent>> check = next.at(1200 * MS, new TimerFired<>(ShardTimer.IDLE, current.generation()));
    assertEquals(List.of(new StopEntity<>(ent("a", 1)), timer(check, ShardTimer.IDLE)), check,
        "its own check passivates the idle entity");
  }

  @Test
  void aShardThatFailedWhileHandingOffGoesOnHandingOff() {
    Map<String, List<Object>> held = new LinkedHashMap<>();
    held.put("a", List.of("a1"));
    Run r = new Run(config(false, Optional.empty(), false, 0), new ShardCarryOver.Taken(held, true, 3, 2, 2));
    assertEquals(List.of(start("a", "a1")), r.in(new Start<>()));
    assertEquals(Phase.HANDING_OFF, r.m.phase());
    assertEquals(List.of(new StopEntity<>(ent("a", 1))), r.in(new EntityStarted<>("a", ent("a", 1))));
    ShardCarryOver.Taken again = r.m.carryOver(List.of());
    assertEquals(new ShardCarryOver.Taken(Map.of(), true, 3, 2, 2), again);
    assertEquals(List.of(new Stopped<>()), r.in(new EntityTerminated<>(ent("a", 1), false, null)));
  }

  @Test
  void theCarriedOverMessagesOfAnEntityStartItTogether() {
    Map<String, List<Object>> held = new LinkedHashMap<>();
    held.put("a", new ArrayList<>(List.of("a1", "a2", "a3")));
    held.put("", List.of("x"));
    Run r = new Run(config(false, Optional.empty(), true, 0), new ShardCarryOver.Taken(held, false, 1, 0, 2));
    List<ShardEffect<Ent>> started = r.in(new Start<>());
    assertEquals(List.of(start("a", "a1", "a2", "a3"),
        new Drop<>("x", "dropping a message for shard [7]: the entity id is empty")), started);
  }
}
