package dev.shardkit.sharding.internal.region;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.EntityTypeKey;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.Arrays;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.apache.pekko.actor.ActorRefProvider;
import org.apache.pekko.actor.ExtendedActorSystem;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.RecipientRef;
import org.apache.pekko.actor.typed.internal.InternalRecipientRef;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.pattern.AskTimeoutException;
import org.apache.pekko.pattern.StatusReply;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * The Pekko internal contract {@link AbstractEntityRef} implements, checked against the Pekko
 * version of shardkit's BOM: the trait's shape by reflection, and what Pekko's asks do with a
 * reference built on it. If a Pekko upgrade changes either, this fails, and AbstractEntityRef's
 * Javadoc says what to look at.
 */
class AbstractEntityRefTest {
  static final ActorTestKit TEST_KIT = ActorTestKit.create();

  sealed interface Command {}

  record Question(String text, ActorRef<String> replyTo) implements Command {}

  record Check(String text, ActorRef<StatusReply<String>> replyTo) implements Command {}

  static final EntityTypeKey<Command> KEY = EntityTypeKey.create(Command.class, "Kind");

  /** The smallest reference on the base: its messages go to a probe. */
  static final class ProbeRef extends AbstractEntityRef<Command> {
    final String entityId;
    final ActorRef<Command> probe;

    ProbeRef(String entityId, ActorRef<Command> probe, ActorSystem<?> system) {
      super(system);
      this.entityId = entityId;
      this.probe = probe;
    }

    @Override
    public EntityTypeKey<Command> typeKey() {
      return KEY;
    }

    @Override
    public String entityId() {
      return entityId;
    }

    @Override
    public void tell(Command message) {
      probe.tell(message);
    }

    @Override
    protected ActorRef<?> terminatesWith() {
      return probe;
    }

    @Override
    public String toString() {
      return "ProbeRef(" + entityId + ")";
    }
  }

  @AfterAll
  static void stop() {
    TEST_KIT.shutdownTestKit();
  }

  @Test
  void theTraitStillHasTheShapeThisClassImplements() throws Exception {
    // Exactly these abstract methods: a new one would be missing at run time (AbstractMethodError),
    // and a Scala val in the trait would show up here as an abstract accessor and setter.
    Set<String> abstractMethods = Arrays.stream(InternalRecipientRef.class.getMethods())
        .filter(m -> Modifier.isAbstract(m.getModifiers()))
        .map(m -> m.getName() + Arrays.toString(m.getParameterTypes()))
        .collect(Collectors.toCollection(TreeSet::new));
    assertEquals(new TreeSet<>(Set.of("isTerminated[]", "provider[]", "tell[class java.lang.Object]")),
        abstractMethods);
    assertEquals(ActorRefProvider.class, InternalRecipientRef.class.getMethod("provider").getReturnType());
    assertEquals(boolean.class, InternalRecipientRef.class.getMethod("isTerminated").getReturnType());
    Method refPrefix = InternalRecipientRef.class.getMethod("refPrefix");
    assertTrue(refPrefix.isDefault(), "refPrefix keeps a default");
    assertEquals(String.class, refPrefix.getReturnType());
    assertTrue(RecipientRef.class.isAssignableFrom(InternalRecipientRef.class));
    assertEquals(0, InternalRecipientRef.class.getDeclaredFields().length, "the trait keeps no state");
    // The internals are isolated here: the subclasses override none of them.
    for (String name : new String[] {"provider", "isTerminated", "refPrefix"}) {
      assertTrue(Modifier.isFinal(AbstractEntityRef.class.getMethod(name).getModifiers()), name + " is final");
    }
  }

  @Test
  void pekkosAskSendsWithTellAndNamesItsReplyToAfterTheEntity() throws Exception {
    TestProbe<Command> probe = TEST_KIT.createTestProbe();
    // An id with characters an actor name cannot hold as they are.
    ProbeRef ref = new ProbeRef("a/b#c d$e", probe.ref(), TEST_KIT.system());
    CompletableFuture<String> answer = AskPattern.<Command, String>ask(ref, replyTo -> new Question("?", replyTo),
        Duration.ofSeconds(5), TEST_KIT.scheduler()).toCompletableFuture();
    Question question = probe.expectMessageClass(Question.class);
    String replyToName = question.replyTo().path().name();
    assertTrue(replyToName.startsWith("Kind-a%2Fb%23c+d%24e$"), replyToName);
    assertEquals(TEST_KIT.system().address(), question.replyTo().path().address(), "made by the system's provider");
    question.replyTo().tell("yes");
    assertEquals("yes", answer.get(5, TimeUnit.SECONDS));
    assertSame(((ExtendedActorSystem) Adapter.toClassic(TEST_KIT.system())).provider(), ref.provider());
  }

  @Test
  void pekkosAskWithStatusAndActorContextAskAcceptIt() throws Exception {
    TestProbe<Command> probe = TEST_KIT.createTestProbe();
    ProbeRef ref = new ProbeRef("s", probe.ref(), TEST_KIT.system());
    CompletableFuture<String> ok = AskPattern.<Command, String>askWithStatus(ref, r -> new Check("a", r),
        Duration.ofSeconds(5), TEST_KIT.scheduler()).toCompletableFuture();
    probe.expectMessageClass(Check.class).replyTo().tell(StatusReply.success("fine"));
    assertEquals("fine", ok.get(5, TimeUnit.SECONDS));

    TestProbe<String> results = TEST_KIT.createTestProbe();
    TEST_KIT.spawn(Behaviors.<String>setup(ctx -> {
      ctx.ask(String.class, ref, Duration.ofSeconds(5), r -> new Question("from an actor", r),
          (reply, failure) -> failure == null ? "reply: " + reply : "failure: " + failure);
      return forward(results.ref());
    }));
    probe.expectMessageClass(Question.class).replyTo().tell("hello");
    assertEquals("reply: hello", results.receiveMessage());
  }

  private static Behavior<String> forward(ActorRef<String> to) {
    return Behaviors.receiveMessage(m -> {
      to.tell(m);
      return Behaviors.same();
    });
  }

  @Test
  void pekkosAskTimeoutNamesTheReferenceAndTheMessageClass() {
    TestProbe<Command> probe = TEST_KIT.createTestProbe();
    ProbeRef ref = new ProbeRef("quiet", probe.ref(), TEST_KIT.system());
    CompletableFuture<String> answer = AskPattern.<Command, String>ask(ref, r -> new Question("?", r),
        Duration.ofMillis(200), TEST_KIT.scheduler()).toCompletableFuture();
    ExecutionException e = assertThrows(ExecutionException.class, () -> answer.get(5, TimeUnit.SECONDS));
    assertInstanceOf(TimeoutException.class, e.getCause());
    String message = e.getCause().getMessage();
    assertTrue(message.contains("[ProbeRef(quiet)]"), message);
    assertTrue(message.contains(Question.class.getName()), message);
    assertTrue(message.contains("200 ms"), message);
  }

  @Test
  void itsOwnAsksTimeOutWithAskTimeoutExceptionAndPassErrorRepliesThrough() throws Exception {
    TestProbe<Command> probe = TEST_KIT.createTestProbe();
    ProbeRef ref = new ProbeRef("own", probe.ref(), TEST_KIT.system());
    CompletableFuture<String> unanswered = ref.<String>ask(r -> new Question("?", r), Duration.ofMillis(200))
        .toCompletableFuture();
    ExecutionException e = assertThrows(ExecutionException.class, () -> unanswered.get(5, TimeUnit.SECONDS));
    assertInstanceOf(AskTimeoutException.class, e.getCause());
    assertTrue(e.getCause().getMessage().contains("[ProbeRef(own)]"), e.getCause().getMessage());

    // An error reply that happens to be a TimeoutException is the entity's answer, not the ask's timeout.
    CompletableFuture<String> failed = ref.<String>askWithStatus(r -> new Check("?", r), Duration.ofSeconds(5))
        .toCompletableFuture();
    TimeoutException entitys = new TimeoutException("the entity's own");
    probe.expectMessageClass(Question.class);
    probe.expectMessageClass(Check.class).replyTo().tell(StatusReply.error(entitys));
    ExecutionException f = assertThrows(ExecutionException.class, () -> failed.get(5, TimeUnit.SECONDS));
    assertSame(entitys, f.getCause());
  }

  @Test
  void onceItsRecipientHasTerminatedAnAskFailsWithoutWaiting() throws Exception {
    TestProbe<Command> probe = TEST_KIT.createTestProbe();
    ProbeRef ref = new ProbeRef("gone", probe.ref(), TEST_KIT.system());
    assertFalse(ref.isTerminated());
    probe.stop();
    TEST_KIT.createTestProbe().awaitAssert(() -> {
      assertTrue(ref.isTerminated());
      return null;
    });
    // Pekko fails such an ask at once instead of sending it; a minute's timeout shows it did not wait.
    CompletableFuture<String> answer = ref.<String>ask(r -> new Question("?", r), Duration.ofMinutes(1))
        .toCompletableFuture();
    ExecutionException e = assertThrows(ExecutionException.class, () -> answer.get(10, TimeUnit.SECONDS));
    assertInstanceOf(AskTimeoutException.class, e.getCause());
    assertTrue(e.getCause().getMessage().contains("had already been terminated"), e.getCause().getMessage());
    assertTrue(e.getCause().getMessage().contains("ProbeRef(gone)"), e.getCause().getMessage());
  }
}
