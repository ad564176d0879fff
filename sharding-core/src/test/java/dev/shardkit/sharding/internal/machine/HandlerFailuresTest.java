package dev.shardkit.sharding.internal.machine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.SupervisorStrategy;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A handler that throws is reported with the message that caused it; then the actor resumes with
 * the state it had, or its supervisor restarts it from scratch.
 */
class HandlerFailuresTest {
  static ActorTestKit testKit;

  @BeforeAll
  static void start() {
    testKit = ActorTestKit.create();
  }

  @AfterAll
  static void stop() {
    testKit.shutdownTestKit();
  }

  /** Counts the messages it handled and tells the count to the probe; throws on "boom". */
  private static Behavior<Object> counter(int count, TestProbe<Object> probe) {
    return Behaviors.receive(Object.class)
        .onMessageEquals("boom", () -> {
          throw new IllegalArgumentException("boom on purpose");
        })
        .onAnyMessage(m -> {
          probe.ref().tell(count + 1);
          return counter(count + 1, probe);
        })
        .build();
  }

  private record Failure(Object message, Exception cause) {}

  @Test
  void resumingKeepsTheStateAndReportsTheMessage() {
    TestProbe<Object> probe = testKit.createTestProbe();
    List<Failure> failures = new CopyOnWriteArrayList<>();
    ActorRef<Object> actor = testKit.spawn(HandlerFailures.around(counter(0, probe), HandlerFailures.Then.RESUME,
        (ctx, failed, cause) -> failures.add(new Failure(failed, cause))));
    actor.tell("a");
    probe.expectMessage(1);
    actor.tell("boom");
    actor.tell("b");
    probe.expectMessage(2);
    assertEquals(1, failures.size());
    assertEquals("boom", failures.get(0).message());
    assertInstanceOf(IllegalArgumentException.class, failures.get(0).cause());
  }

  @Test
  void restartingPassesTheFailureOnToTheSupervisorAfterReportingIt() {
    TestProbe<Object> probe = testKit.createTestProbe();
    List<Failure> failures = new CopyOnWriteArrayList<>();
    Behavior<Object> reported = HandlerFailures.around(counter(0, probe), HandlerFailures.Then.RESTART,
        (ctx, failed, cause) -> failures.add(new Failure(failed, cause)));
    ActorRef<Object> actor = testKit.spawn(Behaviors.supervise(reported).onFailure(Exception.class,
        SupervisorStrategy.restart().withLoggingEnabled(false)));
    actor.tell("a");
    actor.tell("b");
    probe.expectMessage(1);
    probe.expectMessage(2);
    actor.tell("boom");
    actor.tell("c");
    // Restarted from scratch: the count starts over.
    probe.expectMessage(1);
    assertEquals(List.of("boom"), failures.stream().map(Failure::message).toList());
  }

  @Test
  void aReportThatThrowsDoesNotStopAResumingActor() {
    TestProbe<Object> probe = testKit.createTestProbe();
    ActorRef<Object> actor = testKit.spawn(HandlerFailures.around(counter(0, probe), HandlerFailures.Then.RESUME,
        (ctx, failed, cause) -> {
          throw new IllegalStateException("the report fails too");
        }));
    actor.tell("boom");
    actor.tell("a");
    probe.expectMessage(1);
  }
}
