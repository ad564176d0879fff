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
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/** Tells and asks reach the probe; the test's answer completes the ask; bad arguments are refused. */
class TestEntityRefTest {
  static final ActorTestKit TEST_KIT = ActorTestKit.create();

  sealed interface Command {}

  record Note(String text) implements Command {}

  record Query(String question, ActorRef<String> replyTo) implements Command {}

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
  void anUnansweredAskTimesOutAsARealOneDoes() {
    TestProbe<Command> probe = TEST_KIT.createTestProbe();
    TestEntityRef<Command> ref = TestEntityRef.of(KEY, "book-3", probe.ref(), TEST_KIT.system());
    CompletableFuture<String> answer = ref.<String>ask(replyTo -> new Query("?", replyTo), Duration.ofMillis(100))
        .toCompletableFuture();
    probe.expectMessageClass(Query.class);
    ExecutionException e = assertThrows(ExecutionException.class, () -> answer.get(5, TimeUnit.SECONDS));
    assertInstanceOf(TimeoutException.class, e.getCause());
  }

  @Test
  void badArgumentsAreRefusedClearly() {
    TestProbe<Command> probe = TEST_KIT.createTestProbe();
    assertMessage("needs an entity type key", () -> TestEntityRef.of(null, "x", probe.ref(), TEST_KIT.system()));
    assertMessage("Entity id for entity type [Notebook] must not be null",
        () -> TestEntityRef.of(KEY, null, probe.ref(), TEST_KIT.system()));
    assertMessage("Entity id for entity type [Notebook] must not be empty",
        () -> TestEntityRef.of(KEY, "", probe.ref(), TEST_KIT.system()));
    assertMessage("needs a probe", () -> TestEntityRef.of(KEY, "x", null, TEST_KIT.system()));
    assertMessage("needs the actor system", () -> TestEntityRef.of(KEY, "x", probe.ref(), null));
    TestEntityRef<Command> ref = TestEntityRef.of(KEY, "x", probe.ref(), TEST_KIT.system());
    assertMessage("Cannot send null to entity [x] of type [Notebook]", () -> ref.tell(null));
    assertMessage("needs a message factory", () -> ref.ask(null, Duration.ofSeconds(1)));
    probe.expectNoMessage(Duration.ofMillis(50));
  }

  private static void assertMessage(String part, Runnable call) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call::run);
    assertTrue(e.getMessage().contains(part), e.getMessage());
  }
}
