package dev.shardkit.sharding.internal.coordinator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.CoordinatorBacklog;
import dev.shardkit.sharding.LeastShardAllocationStrategy;
import dev.shardkit.sharding.ShardingSettings;
import dev.shardkit.sharding.internal.TestRefs;
import dev.shardkit.sharding.internal.coordinator.ManualStateStore.Write;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.BeginHandOff;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.GetShardHome;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.GracefulShutdownReq;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.Register;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.RegisterAck;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.RegisterProxy;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.ShardHome;
import dev.shardkit.sharding.spi.CoordinatorEvent.ShardHomeAllocated;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;
import org.apache.pekko.actor.testkit.typed.javadsl.LoggingTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The coordinator while a write does not complete (the store is slow or away) and regions keep
 * asking: a home the store holds is answered at once; a home decided but not stored is answered
 * once per (shard, region) when it is stored, and what waits in memory does not grow with the
 * number of times regions ask; beyond the limit requests are refused, counted and warned about once.
 */
class CoordinatorPendingAnswersTest {
  @RegisterExtension static final TestRefs refs = new TestRefs();

  private static ActorRef<Object> coordinator(String typeName, ManualStateStore store,
      UnaryOperator<ShardingSettings> tune) {
    return refs.coordinator(typeName, store, new LeastShardAllocationStrategy(1, 20, 0.1), 0, tune);
  }

  private static CoordinatorBacklog backlog(ActorRef<Object> coordinator) {
    TestProbe<CoordinatorBacklog> probe = refs.testKit().createTestProbe(CoordinatorBacklog.class);
    coordinator.tell(new ShardCoordinator.GetBacklog(probe.ref()));
    return probe.receiveMessage();
  }

  /**
   * The coordinator's backlog, asked for {@code region}: the coordinator's messages reach a region
   * in the order it sent them, so anything it sent the region before (an answer that should not
   * have been sent) arrives first and fails this, with no wait for something not to happen.
   */
  private static CoordinatorBacklog backlogVia(ActorRef<Object> coordinator, TestProbe<Object> region) {
    coordinator.tell(new ShardCoordinator.GetBacklog(region.ref().narrow()));
    Object next = region.receiveMessage();
    assertInstanceOf(CoordinatorBacklog.class, next, "nothing before the backlog");
    return (CoordinatorBacklog) next;
  }

  @Test
  void aStoredHomeIsAnsweredAtOnceWhileAnotherWriteIsInFlight() throws Exception {
    ManualStateStore store = new ManualStateStore();
    ActorRef<Object> coordinator = coordinator("stored-at-once", store, s -> s);
    TestProbe<Object> region = refs.registeredRegion(coordinator, store);
    coordinator.tell(new GetShardHome("a", region.ref()));
    store.next().done().complete(null);
    assertEquals(new ShardHome("a", region.ref(), 1), region.receiveMessage());

    coordinator.tell(new GetShardHome("b", region.ref()));
    Write b = store.next();
    coordinator.tell(new GetShardHome("a", region.ref()));
    // Received while b's write has not completed: a's answer does not wait behind it.
    assertEquals(new ShardHome("a", region.ref(), 1), region.receiveMessage());
    b.done().complete(null);
    assertEquals(new ShardHome("b", region.ref(), 1), region.receiveMessage());
  }

  @Test
  void aRegionRegisteringAgainWhileItsRegistrationIsNotStoredIsAcknowledgedOnce() throws Exception {
    ManualStateStore store = new ManualStateStore();
    ActorRef<Object> coordinator = coordinator("registering-again", store, s -> s);
    TestProbe<Object> region = refs.testKit().createTestProbe(Object.class);
    coordinator.tell(new Register(region.ref(), Set.of()));
    Write registration = store.next();
    // The region's retry ticks while the store does not answer.
    for (int tick = 0; tick < 200; tick++) {
      coordinator.tell(new Register(region.ref(), Set.of()));
    }
    CoordinatorBacklog during = backlog(coordinator);
    assertTrue(during.waitingEffects() <= 1, "one acknowledgement waits, not one per registration: " + during);

    registration.done().complete(null);
    assertEquals(new RegisterAck(coordinator, 1), region.receiveMessage());
    assertEquals(new CoordinatorBacklog(0, 0, 0, 0), backlogVia(coordinator, region), "acknowledged once");
    // Registered and stored: registering again is acknowledged again, at once.
    coordinator.tell(new Register(region.ref(), Set.of()));
    assertEquals(new RegisterAck(coordinator, 1), region.receiveMessage());
    assertEquals(new CoordinatorBacklog(0, 0, 0, 0), backlog(coordinator));
  }

  @Test
  void regionsAskingAgainDuringAWriteWaitOnceAndAreAnsweredOnce() throws Exception {
    ManualStateStore store = new ManualStateStore();
    ActorRef<Object> coordinator = coordinator("asking-again", store, s -> s);
    TestProbe<Object> r1 = refs.registeredRegion(coordinator, store);
    TestProbe<Object> r2 = refs.registeredRegion(coordinator, store);

    coordinator.tell(new GetShardHome("new", r1.ref()));
    Write allocation = store.next();
    ActorRef<Object> home = ((ShardHomeAllocated) allocation.events().get(0)).region();
    // The regions' retry ticks during a long write.
    for (int tick = 0; tick < 200; tick++) {
      coordinator.tell(new GetShardHome("new", r1.ref()));
      coordinator.tell(new GetShardHome("new", r2.ref()));
    }
    CoordinatorBacklog during = backlog(coordinator);
    assertEquals(2, during.pendingAnswers(), "one per (shard, region): " + during);
    assertTrue(during.waitingEffects() <= 2, "the allocation's announcement and one answering: " + during);

    allocation.done().complete(null);
    assertEquals(new ShardHome("new", home, 1), r2.receiveMessage());
    assertEquals(new CoordinatorBacklog(0, 0, 0, 0), backlogVia(coordinator, r2), "r2 hears it once");
  }

  @Test
  void beyondTheLimitRequestsAreRefusedWithOneWarningAndAskedAgainLater() throws Exception {
    ManualStateStore store = new ManualStateStore();
    ActorRef<Object> coordinator = coordinator("limited", store, s -> s.withCoordinatorPendingAnswersLimit(3));
    TestProbe<Object> region = refs.registeredRegion(coordinator, store);
    coordinator.tell(new GetShardHome("s0", region.ref()));
    Write first = store.next();
    for (int i = 1; i <= 5; i++) {
      coordinator.tell(new GetShardHome("s" + i, region.ref()));
    }
    LoggingTestKit.warn("coordinator-pending-answers-limit").withMessageContains("[limited]")
        .withMessageContains("3 answers").withOccurrences(1).expect(refs.testKit().system(), () -> {
          // s1..s5 are decided, in the write after s0's: asked again, three may wait.
          for (int tick = 0; tick < 20; tick++) {
            for (int i = 1; i <= 5; i++) {
              coordinator.tell(new GetShardHome("s" + i, region.ref()));
            }
          }
          CoordinatorBacklog during = backlog(coordinator);
          assertEquals(3, during.pendingAnswers(), during.toString());
          assertEquals(2 * 20, during.refusedRequests(), during.toString());
          return null;
        });

    first.done().complete(null);
    store.next().done().complete(null);
    Map<String, Integer> answers = new HashMap<>();
    // s0..s5 from their allocations, and three from the pending answers.
    for (int i = 0; i < 9; i++) {
      ShardHome home = (ShardHome) region.receiveMessage();
      answers.merge(home.shardId(), 1, Integer::sum);
    }
    assertEquals(6, answers.size(), answers.toString());
    assertEquals(0, backlog(coordinator).pendingAnswers());
    // A refused region asks again: answered at once now that the home is stored.
    coordinator.tell(new GetShardHome("s5", region.ref()));
    assertEquals("s5", ((ShardHome) region.receiveMessage()).shardId());
  }

  @Test
  void aPendingAnswerWhoseShardBeganAHandOffMeanwhileIsNotSent() throws Exception {
    ManualStateStore store = new ManualStateStore();
    ActorRef<Object> coordinator = coordinator("handed-off", store, s -> s);
    TestProbe<Object> r1 = refs.registeredRegion(coordinator, store);
    // A proxy, so that it is told of hand-offs.
    TestProbe<Object> r2 = refs.testKit().createTestProbe(Object.class);
    coordinator.tell(new RegisterProxy(r2.ref()));
    store.next().done().complete(null);
    r2.expectMessageClass(RegisterAck.class);
    coordinator.tell(new GetShardHome("x", r1.ref()));
    Write allocation = store.next();
    coordinator.tell(new GetShardHome("x", r2.ref()));
    // Decided after the pending answer: its answering waits for the write after the allocation.
    TestProbe<Object> r3 = refs.testKit().createTestProbe(Object.class);
    coordinator.tell(new Register(r3.ref(), Set.of()));
    allocation.done().complete(null);
    assertEquals(new ShardHome("x", r1.ref(), 1), r1.receiveMessage());
    Write registration = store.next();

    // x's home is stored; r1 shuts down and x begins its hand-off before the answering runs.
    coordinator.tell(new GracefulShutdownReq(r1.ref()));
    assertEquals("x", r2.expectMessageClass(BeginHandOff.class).shardId());
    registration.done().complete(null);
    assertEquals(0, backlogVia(coordinator, r2).pendingAnswers(), "not sent, and forgotten: asked again, it waits "
        + "for the new home");
  }
}
