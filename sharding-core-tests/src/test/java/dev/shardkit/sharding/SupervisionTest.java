package dev.shardkit.sharding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.internal.store.InMemoryCoordinatorStateStore;
import dev.shardkit.sharding.spi.CoordinatorEvent;
import dev.shardkit.sharding.spi.CoordinatorState;
import dev.shardkit.sharding.spi.LoadedCoordinatorState;
import dev.shardkit.sharding.spi.CoordinatorStateStore;
import dev.shardkit.sharding.spi.CoordinatorStateStoreProvider;
import dev.shardkit.sharding.spi.ShardingEvent;
import dev.shardkit.sharding.testkit.CborSerializable;
import dev.shardkit.sharding.testsupport.Ledger;
import dev.shardkit.sharding.testsupport.LogCapture;
import dev.shardkit.sharding.testkit.TelemetryRecorder;
import dev.shardkit.sharding.testkit.TestCluster;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.BehaviorInterceptor;
import org.apache.pekko.actor.typed.TypedActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * An exception in the coordinator, a region or a shard never leaves sharding dead. Each test
 * injects one failure into a two-node cluster under traffic from both nodes, and a ledger checks
 * that every message sent arrived once (or, for the one message whose handler failed, was counted
 * as dropped). The failures that reach the actors are exceptions that their units' own guards
 * (which catch runtime exceptions) do not expect: checked exceptions thrown where none is
 * declared, as code written in another JVM language may throw them.
 */
class SupervisionTest {
  private static final Duration ARRIVAL = Duration.ofSeconds(20);
  static TestCluster cluster;

  /** Makes an entity throw. */
  public record Boom() implements Ledger.Command, CborSerializable {}

  @BeforeAll
  static void start() {
    cluster = new TestCluster("Supervision");
    String stores = "shardkit.sharding.state-store-providers.throws-once = \""
        + ThrowsOnceStore.Provider.class.getName() + "\"\n";
    cluster.add(stores);
    cluster.awaitUp(1);
    cluster.add(stores);
    cluster.awaitUp(2);
  }

  @AfterAll
  static void stop() {
    cluster.close();
  }

  @Test
  void anAllocationStrategyThatThrowsOnceCostsNoMessage() {
    AtomicBoolean thrown = new AtomicBoolean();
    LeastShardAllocationStrategy least = new LeastShardAllocationStrategy();
    ShardAllocationStrategy failingOnce = new ShardAllocationStrategy() {
      @Override
      public RegionInfo allocateShard(RegionInfo requester, String shardId, ShardAllocation allocation) {
        if (thrown.compareAndSet(false, true)) {
          throw new IllegalStateException("allocation fails once, on purpose");
        }
        return least.allocateShard(requester, shardId, allocation);
      }

      @Override
      public Set<String> rebalance(ShardAllocation allocation, Set<String> rebalanceInProgress) {
        return least.rebalance(allocation, rebalanceInProgress);
      }
    };
    Ledger ledger = new Ledger();
    EntityTypeKey<Ledger.Command> key = EntityTypeKey.create(Ledger.Command.class, "FailingStrategy");
    for (ActorSystem<Void> node : cluster.systems()) {
      ClusterSharding.get(node).start(Entity.of(key, ledger::entity).withAllocationStrategy(failingOnce)
          .withSettings(ShardingSettings.create(node).withPlaceAllShardsAtStart(false)));
    }
    Map<String, Integer> sent = trafficFromBothNodes(key, ids("s", 10), 20);
    assertClean(ledger.awaitAndCheck(ids("s", 10), sent, ARRIVAL));
    assertTrue(thrown.get(), "the strategy was asked and failed once");
  }

  @Test
  void aStoreThatThrowsUnexpectedlyRestartsTheCoordinatorWhichKeepsServing() throws Exception {
    Ledger ledger = new Ledger();
    EntityTypeKey<Ledger.Command> key = EntityTypeKey.create(Ledger.Command.class, "ThrowingStore");
    try (LogCapture log = new LogCapture()) {
      for (ActorSystem<Void> node : cluster.systems()) {
        ClusterSharding.get(node).start(Entity.of(key, ledger::entity).withSettings(ShardingSettings.create(node)
            .withStateStoreMode("throws-once").withPlaceAllShardsAtStart(false)
            .withCoordinatorFailureBackoff(Duration.ofMillis(200), Duration.ofSeconds(2))));
      }
      Map<String, Integer> sent = trafficFromBothNodes(key, ids("c", 10), 20);
      assertClean(ledger.awaitAndCheck(ids("c", 10), sent, ARRIVAL));
      assertEquals(1, ThrowsOnceStore.thrown.get(), "the store threw once");
      ShardingEvent.CoordinatorFailed failed = TelemetryRecorder.of(cluster.system(0))
          .await(Duration.ofSeconds(5), ShardingEvent.CoordinatorFailed.class, "ThrowingStore");
      assertTrue(failed.failure().contains("IOException"), failed.toString());
      // What an operator reads: the error says what happens next.
      assertEquals(1, log.matching("Coordinator of [ThrowingStore] failed handling", "IOException",
          "reloads its state").size());
      // Restarted in place: it still runs on the oldest node and answers.
      assertTrue(cluster.coordinatorRunsOn(0, "ThrowingStore"));
      assertEquals(2, ClusterSharding.get(cluster.system(1)).clusterShardingStats(key, Duration.ofSeconds(3))
          .toCompletableFuture().get().regions().size());
    }
  }

  @Test
  void aRegionWhoseHandlerThrowsDropsThatMessageAndKeepsRouting() throws Exception {
    Ledger ledger = new Ledger();
    EntityTypeKey<Ledger.Command> key = EntityTypeKey.create(Ledger.Command.class, "FailingRegion");
    // The extractor is called by the region, on its thread, for every envelope it receives.
    MessageExtractor<ShardingEnvelope<Ledger.Command>, Ledger.Command> extractor = new MessageExtractor<>() {
      @Override
      public String entityId(ShardingEnvelope<Ledger.Command> envelope) {
        return envelope.entityId();
      }

      @Override
      public String shardId(String entityId) {
        if (entityId.equals("poison")) {
          throw sneaky(new IOException("the extractor fails for entity [poison], on purpose"));
        }
        return String.valueOf(Math.floorMod(entityId.hashCode(), 4));
      }

      @Override
      public Ledger.Command unwrapMessage(ShardingEnvelope<Ledger.Command> envelope) {
        return envelope.message();
      }
    };
    List<ActorRef<ShardingEnvelope<Ledger.Command>>> regions = new ArrayList<>();
    for (ActorSystem<Void> node : cluster.systems()) {
      regions.add(ClusterSharding.get(node).start(Entity.of(key, ledger::entity).withMessageExtractor(extractor)));
    }
    List<String> ids = ids("r", 6);
    int perSender = 10;
    try (LogCapture log = new LogCapture()) {
      for (int seq = 1; seq <= perSender; seq++) {
        for (int n = 0; n < regions.size(); n++) {
          for (String id : ids) {
            regions.get(n).tell(new ShardingEnvelope<>(id, new Ledger.Msg("n" + n, seq)));
          }
          if (seq == 1 || seq == perSender / 2) {
            // While the region still holds the first messages (no home is known yet), and later.
            regions.get(n).tell(new ShardingEnvelope<>("poison", new Ledger.Msg("n" + n, seq)));
          }
        }
      }
      assertClean(ledger.awaitAndCheck(ids, Map.of("n0", perSender, "n1", perSender), ARRIVAL));
      log.await(Duration.ofSeconds(5), "region failed handling", "IOException", "keeps routing");
    }
    for (ActorSystem<Void> node : cluster.systems()) {
      ShardRegionState state = ClusterSharding.get(node).shardRegionState(key).toCompletableFuture().get();
      assertTrue(state.droppedMessages() >= 2, "the region counted each poisoned message as dropped: " + state);
    }
  }

  @Test
  void aFailedShardRestartsAfterItsEntitiesStoppedAndDeliversWhatItHeld() throws Exception {
    Ledger ledger = new Ledger();
    EntityTypeKey<Ledger.Command> key = EntityTypeKey.create(Ledger.Command.class, "FailingShard");
    Function<EntityContext<Ledger.Command>, Behavior<Ledger.Command>> behavior = ctx -> {
      if (ctx.entityId().equals("poison")) {
        throw sneaky(new IOException("the behaviour factory fails for entity [poison], on purpose"));
      }
      return Behaviors.intercept(Booms::new, ledger.entity(ctx));
    };
    for (ActorSystem<Void> node : cluster.systems()) {
      // One shard for every entity; a long back-off, so that messages for "x" are held meanwhile.
      ClusterSharding.get(node).start(Entity.of(key, behavior::apply).withSettings(ShardingSettings.create(node)
          .withNumberOfShards(1).withEntityRestartBackoff(Duration.ofSeconds(30), Duration.ofSeconds(30))));
    }
    ClusterSharding sharding = ClusterSharding.get(cluster.system(0));
    try (LogCapture log = new LogCapture()) {
      for (int seq = 1; seq <= 3; seq++) {
        sharding.entityRefFor(key, "y").tell(new Ledger.Msg("t", seq));
      }
      TestCluster.await(ARRIVAL, () -> ledger.received("y", "t") == 3, "y got its first messages");
      // Failing twice in a row right after starting, x is backed off: its messages are held.
      sharding.entityRefFor(key, "x").tell(new Boom());
      // Once its shard has seen it fail (until then, messages would go to the failed incarnation).
      log.await(ARRIVAL, "entity [x]", "failed (1 in a row)");
      sharding.entityRefFor(key, "x").tell(new Boom());
      log.await(ARRIVAL, "entity [x]", "2 times in a row");
      for (int seq = 1; seq <= 5; seq++) {
        sharding.entityRefFor(key, "x").tell(new Ledger.Msg("t", seq));
      }
      sharding.entityRefFor(key, "poison").tell(new Ledger.Msg("t", 1));
      for (int seq = 4; seq <= 6; seq++) {
        sharding.entityRefFor(key, "y").tell(new Ledger.Msg("t", seq));
      }
      log.await(ARRIVAL, "shard [0] failed handling", "IOException");
      assertClean(ledger.awaitAndCheck(List.of("x"), Map.of("t", 5), ARRIVAL));
      assertClean(ledger.awaitAndCheck(List.of("y"), Map.of("t", 6), ARRIVAL));
      // The restart stopped y with the failed incarnation; its next message started it again.
      assertEquals(2, ledger.incarnations("y"));
      assertEquals(Set.of(), ledger.doubleIncarnations(), "no entity was alive twice");
    }
    long dropped = 0;
    for (ActorSystem<Void> node : cluster.systems()) {
      dropped += ClusterSharding.get(node).shardRegionState(key).toCompletableFuture().get().droppedMessages();
    }
    assertEquals(1, dropped, "the message whose handler failed was counted as dropped, and only it");
  }

  /** The ledger's entity, throwing on {@link Boom}. */
  private static final class Booms extends BehaviorInterceptor<Ledger.Command, Ledger.Command> {
    Booms() {
      super(Ledger.Command.class);
    }

    @Override
    public Behavior<Ledger.Command> aroundReceive(TypedActorContext<Ledger.Command> ctx, Ledger.Command msg,
        ReceiveTarget<Ledger.Command> target) {
      if (msg instanceof Boom) {
        throw new IllegalStateException("the entity fails on purpose");
      }
      return target.apply(ctx, msg);
    }
  }

  /**
   * The in-memory store, except that the first write that places a shard throws a checked
   * exception from the call itself (not as a failed stage).
   */
  public static final class ThrowsOnceStore implements CoordinatorStateStore {
    static final AtomicInteger thrown = new AtomicInteger();
    private final CoordinatorStateStore delegate;

    private ThrowsOnceStore(CoordinatorStateStore delegate) {
      this.delegate = delegate;
    }

    public static final class Provider implements CoordinatorStateStoreProvider {
      @Override
      public CoordinatorStateStore create(ActorSystem<?> system, String typeName, ShardingSettings settings) {
        return new ThrowsOnceStore(new InMemoryCoordinatorStateStore.Provider().create(system, typeName, settings));
      }
    }

    @Override
    public CompletionStage<LoadedCoordinatorState> load() {
      return delegate.load();
    }

    @Override
    public CompletionStage<Void> store(List<CoordinatorEvent> events, CoordinatorState stateAfter) {
      if (events.stream().anyMatch(e -> e instanceof CoordinatorEvent.ShardHomeAllocated)
          && thrown.compareAndSet(0, 1)) {
        throw sneaky(new IOException("the store fails once, on purpose"));
      }
      return delegate.store(events, stateAfter);
    }

    @Override
    public String describe() {
      return "in-memory, throwing once";
    }
  }

  /** From each node's thread in turn, {@code perSender} numbered messages to each entity. */
  private static Map<String, Integer> trafficFromBothNodes(EntityTypeKey<Ledger.Command> key, List<String> ids,
      int perSender) {
    for (int seq = 1; seq <= perSender; seq++) {
      for (int n = 0; n < cluster.systems().size(); n++) {
        for (String id : ids) {
          ClusterSharding.get(cluster.system(n)).entityRefFor(key, id).tell(new Ledger.Msg("n" + n, seq));
        }
      }
    }
    return Map.of("n0", perSender, "n1", perSender);
  }

  private static List<String> ids(String prefix, int n) {
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      ids.add(prefix + i);
    }
    return ids;
  }

  private static void assertClean(Ledger.Report report) {
    assertTrue(report.clean(), "every message arrived once, in order, and no entity was alive twice: " + report);
  }

  /** Throws {@code t} where the compiler sees no checked exception. */
  @SuppressWarnings("unchecked")
  static <T extends Throwable> RuntimeException sneaky(Throwable t) throws T {
    throw (T) t;
  }
}
