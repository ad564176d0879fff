package dev.shardkit.sharding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.internal.gate.GatedMailbox;
import dev.shardkit.sharding.testkit.CborSerializable;
import dev.shardkit.sharding.testkit.TestCluster;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.apache.pekko.actor.ActorCell;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.pattern.AskTimeoutException;
import org.apache.pekko.pattern.StatusReply;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code EntityRef}s with Pekko's typed APIs, on two nodes with every message serialized: Pekko's
 * {@code AskPattern.ask} and {@code askWithStatus} and {@code ActorContext.ask} accept them, for an
 * entity on the asking node and on the other one, and for ids an actor name cannot hold as they
 * are; {@code askWithStatus} flattens the reply as Pekko's does; an ask that times out names the
 * entity and the message; and the entities run on the dispatcher {@code withEntityProps} chose,
 * still behind the gated mailbox.
 */
class PekkoInteropTest {
  static final EntityTypeKey<Command> KEY = EntityTypeKey.create(Command.class, "Interop");
  static final String DISPATCHER = "interop-dispatcher";
  static final String CONFIG = DISPATCHER + """
       {
        type = Dispatcher
        executor = "thread-pool-executor"
        thread-pool-executor.fixed-pool-size = 2
      }
      """;

  interface Command extends CborSerializable {}

  record Echo(String text, ActorRef<String> replyTo) implements Command {}

  /** Answered with a success for a text starting with "ok", not at all for "silent", else with an error. */
  record Check(String text, ActorRef<StatusReply<String>> replyTo) implements Command {}

  record Ignore(ActorRef<String> replyTo) implements Command {}

  record WhereAmI(ActorRef<Place> replyTo) implements Command {}

  record Place(String address, String thread, String mailbox) implements CborSerializable {}

  static TestCluster cluster;
  static ActorSystem<Void> asker;
  /** An entity id on the asking node and one on the other, both with characters an actor name cannot hold. */
  static String localId;
  static String remoteId;

  @BeforeAll
  static void start() {
    cluster = new TestCluster("Interop");
    cluster.add(CONFIG);
    cluster.awaitUp(1);
    cluster.add(CONFIG);
    cluster.awaitUp(2);
    asker = cluster.system(0);
    // The younger node's region first, so the coordinator on the oldest places shards on both.
    ClusterSharding.get(cluster.system(1)).start(entity(cluster.system(1)));
    ClusterSharding.get(asker).start(entity(asker));
    String here = asker.address().toString();
    String[] found = new String[2];
    TestCluster.await(Duration.ofSeconds(30), () -> {
      for (int i = 0; i < 40 && (found[0] == null || found[1] == null); i++) {
        String id = "odd/id #" + i + " $%";
        String address = place(id).address();
        found[address.equals(here) ? 0 : 1] = id;
      }
      return found[0] != null && found[1] != null;
    }, "an entity on each node");
    localId = found[0];
    remoteId = found[1];
  }

  @AfterAll
  static void stop() {
    cluster.close();
  }

  static Entity<Command, ShardingEnvelope<Command>> entity(ActorSystem<?> system) {
    return Entity.of(KEY, PekkoInteropTest::create)
        .withEntityProps(DispatcherSelector.fromConfig(DISPATCHER))
        .withSettings(ShardingSettings.create(system).withNumberOfShards(10));
  }

  static Behavior<Command> create(EntityContext<Command> entity) {
    return Behaviors.setup(ctx -> Behaviors.receive(Command.class)
        .onMessage(Echo.class, echo -> {
          echo.replyTo().tell(entity.entityId() + ": " + echo.text());
          return Behaviors.same();
        })
        .onMessage(Check.class, check -> {
          if (check.text().startsWith("ok")) {
            check.replyTo().tell(StatusReply.success(check.text()));
          } else if (!check.text().equals("silent")) {
            check.replyTo().tell(StatusReply.error("refused " + check.text()));
          }
          return Behaviors.same();
        })
        .onMessage(Ignore.class, ignore -> Behaviors.same())
        .onMessage(WhereAmI.class, where -> {
          where.replyTo().tell(new Place(ctx.getSystem().address().toString(), Thread.currentThread().getName(),
              mailboxOf(ctx)));
          return Behaviors.same();
        })
        .build());
  }

  /** The class of the entity's message queue, read from its Pekko actor cell (a test may look inside). */
  static String mailboxOf(ActorContext<?> ctx) {
    return ((ActorCell) Adapter.toClassic(ctx)).mailbox().messageQueue().getClass().getName();
  }

  static EntityRef<Command> ref(String id) {
    return ClusterSharding.get(asker).entityRefFor(KEY, id);
  }

  static Place place(String id) {
    return await(() -> ref(id).ask(WhereAmI::new, Duration.ofSeconds(5)));
  }

  static <T> T await(Supplier<CompletionStage<T>> ask) {
    try {
      return ask.get().toCompletableFuture().get(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  static Throwable failure(CompletionStage<?> stage) {
    CompletableFuture<?> future = stage.toCompletableFuture();
    ExecutionException e = assertThrows(ExecutionException.class, () -> future.get(10, TimeUnit.SECONDS));
    return e.getCause();
  }

  @Test
  void pekkosAsksAcceptAnEntityRefForAnEntityOnEitherNode() {
    for (String id : new String[] {localId, remoteId}) {
      EntityRef<Command> ref = ref(id);
      assertEquals(id + ": hi", await(() -> AskPattern.<Command, String>ask(ref, r -> new Echo("hi", r),
          Duration.ofSeconds(5), asker.scheduler())));
      assertEquals("ok " + id, await(() -> AskPattern.<Command, String>askWithStatus(ref, r -> new Check("ok " + id, r),
          Duration.ofSeconds(5), asker.scheduler())));
    }
  }

  @Test
  void askWithStatusCompletesWithTheValueAndFailsWithTheErrorAsPekkosDoes() {
    for (String id : new String[] {localId, remoteId}) {
      EntityRef<Command> ref = ref(id);
      assertEquals("ok", await(() -> ref.<String>askWithStatus(r -> new Check("ok", r), Duration.ofSeconds(5))));
      Throwable error = failure(ref.<String>askWithStatus(r -> new Check("no", r), Duration.ofSeconds(5)));
      assertInstanceOf(StatusReply.ErrorMessage.class, error, id);
      assertEquals("refused no", error.getMessage());
      Throwable pekkos = failure(AskPattern.<Command, String>askWithStatus(ref, r -> new Check("no", r),
          Duration.ofSeconds(5), asker.scheduler()));
      assertEquals(pekkos.getClass(), error.getClass());
      assertEquals(pekkos.getMessage(), error.getMessage());
    }
  }

  @Test
  void actorContextAskAndAskWithStatusAcceptAnEntityRef() {
    TestProbe<String> results = TestProbe.create(asker);
    EntityRef<Command> ref = ref(remoteId);
    asker.systemActorOf(Behaviors.<String>setup(ctx -> {
      ctx.ask(String.class, ref, Duration.ofSeconds(5), r -> new Echo("from an actor", r),
          (reply, failure) -> "ask: " + (failure == null ? reply : failure));
      ctx.askWithStatus(String.class, ref, Duration.ofSeconds(5), r -> new Check("no", r),
          (reply, failure) -> "askWithStatus: " + (failure == null ? reply : failure.getMessage()));
      return Behaviors.receiveMessage(result -> {
        results.ref().tell(result);
        return Behaviors.same();
      });
    }), "context-asker", Props.empty());
    Set<String> got = Set.of(results.receiveMessage(Duration.ofSeconds(10)),
        results.receiveMessage(Duration.ofSeconds(10)));
    assertEquals(Set.of("ask: " + remoteId + ": from an actor", "askWithStatus: refused no"), got);
  }

  @Test
  void anAskThatTimesOutNamesTheEntityTheMessageAndTheTimeout() {
    EntityRef<Command> ref = ref(remoteId);
    Throwable own = failure(ref.<String>ask(Ignore::new, Duration.ofMillis(300)));
    assertInstanceOf(AskTimeoutException.class, own);
    assertNamesTheEntity(own.getMessage(), Ignore.class);

    Throwable withStatus = failure(ref.<String>askWithStatus(r -> new Check("silent", r), Duration.ofMillis(300)));
    assertInstanceOf(AskTimeoutException.class, withStatus);
    assertNamesTheEntity(withStatus.getMessage(), Check.class);

    Throwable pekkos = failure(AskPattern.<Command, String>ask(ref, Ignore::new, Duration.ofMillis(300),
        asker.scheduler()));
    assertInstanceOf(TimeoutException.class, pekkos);
    assertNamesTheEntity(pekkos.getMessage(), Ignore.class);
  }

  static void assertNamesTheEntity(String message, Class<?> messageClass) {
    assertTrue(message.contains("EntityRef(Interop, " + remoteId + ")"), message);
    assertTrue(message.contains("[" + messageClass.getName() + "]"), message);
    assertTrue(message.contains("[300 ms]"), message);
    assertFalse(message.contains("entrance") || message.contains("Deliver"), message);
  }

  @Test
  void entitiesRunOnTheDispatcherTheirPropsChoseBehindTheGatedMailbox() {
    for (String id : new String[] {localId, remoteId}) {
      Place place = place(id);
      assertTrue(place.thread().contains(DISPATCHER), id + " ran on " + place.thread());
      assertEquals(GatedMailbox.Queue.class.getName(), place.mailbox(), id);
    }
  }

  @Test
  void aDispatcherTheNodeDoesNotHaveIsRefusedAtStart() {
    EntityTypeKey<Command> key = EntityTypeKey.create(Command.class, "NoDispatcher");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ClusterSharding.get(asker)
        .start(Entity.of(key, PekkoInteropTest::create).withEntityProps(DispatcherSelector.fromConfig("nowhere"))));
    assertTrue(e.getMessage().contains("[NoDispatcher]") && e.getMessage().contains("[nowhere]"), e.getMessage());
    assertThrows(IllegalStateException.class, () -> ClusterSharding.get(asker).entityRefFor(key, "x"),
        "the type was not started");
    // Only a node that hosts the type spawns entities: on a node without its role, start makes a
    // proxy, which the dispatcher does not concern.
    EntityTypeKey<Command> elsewhere = EntityTypeKey.create(Command.class, "NoDispatcherElsewhere");
    ClusterSharding.get(asker).start(Entity.of(elsewhere, PekkoInteropTest::create).withRole("elsewhere")
        .withEntityProps(DispatcherSelector.fromConfig("nowhere")));
    ClusterSharding.get(asker).entityRefFor(elsewhere, "x");
  }

  @Test
  void onceTheRegionHasStoppedAnAskFailsAtOnceNamingTheEntity() {
    EntityTypeKey<Command> key = EntityTypeKey.create(Command.class, "Closing");
    ActorRef<?> region = null;
    for (ActorSystem<Void> node : cluster.systems()) {
      region = ClusterSharding.get(node).start(Entity.of(key, PekkoInteropTest::create)
          .withSettings(ShardingSettings.create(node).withNumberOfShards(4)));
    }
    ActorSystem<Void> closing = cluster.system(1);
    await(() -> ClusterSharding.get(closing).gracefulShutdown(key, Duration.ofSeconds(20)));
    // The shutdown is answered just before the region stops.
    TestProbe.create(closing).expectTerminated(region, Duration.ofSeconds(10));
    EntityRef<Command> ref = ClusterSharding.get(closing).entityRefFor(key, "c-1");
    // A minute's timeout: had the ask waited for it, the 10 s wait for its failure would fail.
    Throwable e = failure(ref.<String>ask(r -> new Echo("?", r), Duration.ofMinutes(1)));
    assertInstanceOf(AskTimeoutException.class, e);
    assertTrue(e.getMessage().contains("EntityRef(Closing, c-1)") && e.getMessage().contains("terminated"),
        e.getMessage());
  }
}
