package dev.shardkit.sharding.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.EntityTypeKey;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.pattern.AskTimeoutException;
import org.apache.pekko.pattern.StatusReply;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * Tells and asks reach the probe, its own asks and Pekko's; the test's answer completes the ask;
 * unanswered asks time out naming the entity; bad arguments are refused.
 */
class TestEntityRefTest {
  static final ActorTestKit TEST_KIT = ActorTestKit.create();

  sealed interface Command {}

  record Note(String text) implements Command {}

  record Query(String question, ActorRef<String> replyTo) implements Command {}

  record Verify(String claim, ActorRef<StatusReply<Integer>> replyTo) implements Command {}

  static final EntityTypeKey<Command> KEY = EntityTypeKey.create(Command.class, "Notebook");

  @AfterAll
  static void stop() {
    TEST_KIT.shutdownTestKit();
  }

  @Test
  void tellsReachTheProbeInOrder() {
    TestProbe<Command> probe = TEST_KIT.createTestProbe();
    TestEntityRef<Command> ref = TestEntityRef.of(KEY, "book-1", probe.ref(), TEST_KIT.system());
    ref.tell(new Note("a"));
    ref.tell(new Note("b"));
    assertEquals(new Note("a"), probe.receiveMessage());
    assertEquals(new Note("b"), probe.receiveMessage());
    assertSame(KEY, ref.typeKey());
    assertEquals("book-1", ref.entityId());
    assertEquals(probe.ref(), ref.probe());
  }

  @Test
  void anAskCompletesWithWhatTheTestAnswers() throws Exception {
    TestProbe<Command> probe = TEST_KIT.createTestProbe();
    TestEntityRef<Command> ref = TestEntityRef.of(KEY, "book-2", probe.ref(), TEST_KIT.system());
    CompletableFuture<String> answer = ref.<String>ask(replyTo -> new Query("pages?", replyTo), Duration.ofSeconds(5))
        .toCompletableFuture();
    Query query = probe.expectMessageClass(Query.class);
    assertEquals("pages?", query.question());
    query.replyTo().tell("42");
    assertEquals("42", answer.get(5, TimeUnit.SECONDS));
  }

  @Test
  void anUnansweredAskTimesOutAsARealOneDoesNamingTheEntity() {
    TestProbe<Command> probe = TEST_KIT.createTestProbe();
    TestEntityRef<Command> ref = TestEntityRef.of(KEY, "book-3", probe.ref(), TEST_KIT.system());
    CompletableFuture<String> answer = ref.<String>ask(replyTo -> new Query("?", replyTo), Duration.ofMillis(100))
        .toCompletableFuture();
    probe.expectMessageClass(Query.class);
    ExecutionException e = assertThrows(ExecutionException.class, () -> answer.get(5, TimeUnit.SECONDS));
    assertInstanceOf(TimeoutException.class, e.getCause());
    assertInstanceOf(AskTimeoutException.class, e.getCause());
    String message = e.getCause().getMessage();
    assertTrue(message.contains("TestEntityRef(Notebook, book-3") && message.contains(Query.class.getName())
        && message.contains("100 ms"), message);

    CompletableFuture<Integer> verified = ref.<Integer>askWithStatus(r -> new Verify("?", r), Duration.ofMillis(100))
        .toCompletableFuture();
    probe.expectMessageClass(Verify.class);
    ExecutionException f = assertThrows(ExecutionException.class, () -> verified.get(5, TimeUnit.SECONDS));
    assertInstanceOf(AskTimeoutException.class, f.getCause());
    assertTrue(f.getCause().getMessage().contains(Verify.class.getName()), f.getCause().getMessage());
  }

  @Test
  void askWithStatusCompletesWithTheValueOrFailsWithTheError() throws Exception {
    TestProbe<Command> probe = TEST_KIT.createTestProbe();
    TestEntityRef<Command> ref = TestEntityRef.of(KEY, "book-4", probe.ref(), TEST_KIT.system());
    CompletableFuture<Integer> ok = ref.<Integer>askWithStatus(r -> new Verify("pages", r), Duration.ofSeconds(5))
        .toCompletableFuture();
    probe.expectMessageClass(Verify.class).replyTo().tell(StatusReply.success(42));
    assertEquals(42, ok.get(5, TimeUnit.SECONDS));

    CompletableFuture<Integer> refused = ref.<Integer>askWithStatus(r -> new Verify("ink", r), Duration.ofSeconds(5))
        .toCompletableFuture();
    probe.expectMessageClass(Verify.class).replyTo().tell(StatusReply.error("no ink"));
    ExecutionException e = assertThrows(ExecutionException.class, () -> refused.get(5, TimeUnit.SECONDS));
    assertInstanceOf(StatusReply.ErrorMessage.class, e.getCause());
    assertEquals("no ink", e.getCause().getMessage());

    IllegalStateException torn = new IllegalStateException("torn page");
    CompletableFuture<Integer> failed = ref.<Integer>askWithStatus(r -> new Verify("page", r), Duration.ofSeconds(5))
        .toCompletableFuture();
    probe.expectMessageClass(Verify.class).replyTo().tell(StatusReply.error(torn));
    ExecutionException f = assertThrows(ExecutionException.class, () -> failed.get(5, TimeUnit.SECONDS));
    assertSame(torn, f.getCause());
  }

  @Test
  void pekkosAsksAndActorContextAskSendToTheProbe() throws Exception {
    TestProbe<Command> probe = TEST_KIT.createTestProbe();
    TestEntityRef<Command> ref = TestEntityRef.of(KEY, "book-5", probe.ref(), TEST_KIT.system());
    CompletableFuture<String> asked = AskPattern.<Command, String>ask(ref, r -> new Query("title?", r),
        Duration.ofSeconds(5), TEST_KIT.scheduler()).toCompletableFuture();
    probe.expectMessageClass(Query.class).replyTo().tell("Notes");
    assertEquals("Notes", asked.get(5, TimeUnit.SECONDS));

    CompletableFuture<Integer> withStatus = AskPattern.<Command, Integer>askWithStatus(ref, r -> new Verify("n", r),
        Duration.ofSeconds(5), TEST_KIT.scheduler()).toCompletableFuture();
    probe.expectMessageClass(Verify.class).replyTo().tell(StatusReply.success(3));
    assertEquals(3, withStatus.get(5, TimeUnit.SECONDS));

    // Code under test that asks from inside an actor.
    TestProbe<String> results = TEST_KIT.createTestProbe();
    TEST_KIT.spawn(Behaviors.<String>setup(ctx -> {
      ctx.ask(String.class, ref, Duration.ofSeconds(5), r -> new Query("author?", r),
          (reply, failure) -> failure == null ? reply : failure.toString());
      return Behaviors.receiveMessage(result -> {
        results.ref().tell(result);
        return Behaviors.same();
      });
    }));
    probe.expectMessageClass(Query.class).replyTo().tell("Anonymous");
    assertEquals("Anonymous", results.receiveMessage());
  }

  @Test
  void badArgumentsAreRefusedClearly() {
    TestProbe<Command> probe = TEST_KIT.createTestProbe();
    assertMessage("TestEntityRef.of: typeKey must not be null",
        () -> TestEntityRef.of(null, "x", probe.ref(), TEST_KIT.system()));
    assertMessage("TestEntityRef.of(Notebook): entityId must not be null",
        () -> TestEntityRef.of(KEY, null, probe.ref(), TEST_KIT.system()));
    assertMessage("Entity id for entity type [Notebook] must not be empty",
        () -> TestEntityRef.of(KEY, "", probe.ref(), TEST_KIT.system()));
    assertMessage("TestEntityRef.of(Notebook, x): probe must not be null",
        () -> TestEntityRef.of(KEY, "x", null, TEST_KIT.system()));
    assertMessage("TestEntityRef.of(Notebook, x): system must not be null",
        () -> TestEntityRef.of(KEY, "x", probe.ref(), null));
    TestEntityRef<Command> ref = TestEntityRef.of(KEY, "x", probe.ref(), TEST_KIT.system());
    assertMessage("EntityRef.tell to entity [x] of type [Notebook]: message must not be null", () -> ref.tell(null));
    assertMessage("EntityRef.ask to entity [x] of type [Notebook]: messageFactory must not be null",
        () -> ref.ask(null, Duration.ofSeconds(1)));
    assertMessage("EntityRef.ask to entity [x] of type [Notebook]: timeout must not be null",
        () -> ref.<String>ask(r -> new Query("?", r), null));
    assertMessage("EntityRef.askWithStatus to entity [x] of type [Notebook]: messageFactory must not be null",
        () -> ref.askWithStatus(null, Duration.ofSeconds(1)));
    assertMessage("EntityRef.askWithStatus to entity [x] of type [Notebook]: timeout must not be null",
        () -> ref.<Integer>askWithStatus(r -> new Verify("?", r), null));
    probe.expectNoMessage(Duration.ofMillis(50));
  }

  private static void assertMessage(String part, Runnable call) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call::run);
    assertTrue(e.getMessage().contains(part), e.getMessage());
  }
}
