package dev.shardkit.examples.docs.gettingstarted;

import dev.shardkit.examples.Account;
import dev.shardkit.sharding.ClusterSharding;
import dev.shardkit.sharding.ClusterShardingStats;
import dev.shardkit.sharding.Entity;
import dev.shardkit.sharding.EntityRef;
import dev.shardkit.sharding.EntityTypeKey;
import dev.shardkit.sharding.HashCodeMessageExtractor;
import dev.shardkit.sharding.LeastShardAllocationStrategy;
import dev.shardkit.sharding.ShardRegionState;
import dev.shardkit.sharding.ShardingEnvelope;
import dev.shardkit.sharding.ShardingSettings;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * The Java code of {@code docs/getting-started.md}, section by section, where the compiler checks
 * it; {@code DocsSnippetsTest} checks that the page shows each region as it is. The fields are
 * what the page's prose has introduced before a section.
 */
@SuppressWarnings("unused")
abstract class GettingStarted {
  ActorSystem<Void> system;
  ClusterSharding sharding;
  ActorRef<ShardingEnvelope<Counter.Command>> region;

  // docs:start key
  static final EntityTypeKey<Counter.Command> COUNTER =
      EntityTypeKey.create(Counter.Command.class, "Counter");
  // docs:end key

  void start() {
    // docs:start start
    ClusterSharding sharding = ClusterSharding.get(system);
    ActorRef<ShardingEnvelope<Counter.Command>> region =
        sharding.start(Entity.of(COUNTER, ctx -> Counter.create(ctx.entityId())));
    // docs:end start
  }

  void options() {
    // docs:start options
    Entity.of(Account.TYPE, Account::create)
        .withRole("backend")                                    // host only on nodes with this role
        .withMessageExtractor(new HashCodeMessageExtractor<>(1000)) // another id → shard mapping
        .withAllocationStrategy(new LeastShardAllocationStrategy()) // where shards go, which ones move
        .withStopMessage(Account.Stop.INSTANCE)                 // stops the entity on passivation and hand-off
        .withSettings(ShardingSettings.create(system).withNumberOfShards(300));
    // docs:end options
  }

  void entityRef() {
    // docs:start entity-ref
    EntityRef<Counter.Command> counter = sharding.entityRefFor(COUNTER, "counter-42");

    counter.tell(new Counter.Increment(1));

    CompletionStage<Integer> value = counter.ask(Counter.Get::new, Duration.ofSeconds(3));
    // docs:end entity-ref
  }

  void throughTheRegion() {
    // docs:start region
    region.tell(new ShardingEnvelope<>("counter-42", new Counter.Increment(1)));
    // docs:end region
  }

  void withPekkosTypedApis() {
    // docs:start typed-apis
    EntityRef<Counter.Command> ref = sharding.entityRefFor(COUNTER, "counter-42");

    CompletionStage<Integer> asked =
        AskPattern.ask(ref, Counter.Get::new, Duration.ofSeconds(3), system.scheduler());

    // Completes with the value of StatusReply.success; fails with StatusReply.ErrorMessage("only 3 left")
    // for StatusReply.error("only 3 left"), or with the exception of an error made from one.
    CompletionStage<Integer> left =
        ref.askWithStatus(replyTo -> new Counter.Take(5, replyTo), Duration.ofSeconds(3));

    Behavior<String> reporter = Behaviors.setup(ctx -> {
      ctx.ask(Integer.class, ref, Duration.ofSeconds(3), Counter.Get::new,
          (count, failure) -> failure == null ? "counter-42 holds " + count : "no answer: " + failure);
      return Behaviors.receiveMessage(line -> {
        ctx.getLog().info(line);
        return Behaviors.same();
      });
    });
    // docs:end typed-apis
  }

  void entityProps() {
    // docs:start entity-props
    sharding.start(Entity.of(COUNTER, ctx -> Counter.create(ctx.entityId()))
        .withEntityProps(DispatcherSelector.fromConfig("counter-dispatcher")));
    // docs:end entity-props
  }

  void proxy() {
    // docs:start proxy
    ActorRef<ShardingEnvelope<Counter.Command>> proxy =
        sharding.startProxy(COUNTER, Optional.of("backend"));
    EntityRef<Counter.Command> counter = sharding.entityRefFor(COUNTER, "counter-42");
    // docs:end proxy
  }

  void idleTimeout() {
    // docs:start idle-timeout
    sharding.start(Entity.of(COUNTER, ctx -> Counter.create(ctx.entityId()))
        .withSettings(ShardingSettings.create(system).withPassivationIdleTimeout(Duration.ofMinutes(2))));
    // docs:end idle-timeout
  }

  void whereThingsLive() throws Exception {
    // docs:start where
    // This node: its shards and their live entity ids.
    ShardRegionState local = sharding.shardRegionState(COUNTER)
        .toCompletableFuture().get(10, TimeUnit.SECONDS);
    System.out.println(local.shards().size() + " shards, " + local.entityCount() + " entities, "
        + local.bufferedMessages() + " messages waiting for a shard home, "
        + local.droppedMessages() + " dropped since start");

    // The whole cluster: per region (node address), shard id → live entity count.
    ClusterShardingStats stats = sharding.clusterShardingStats(COUNTER, Duration.ofSeconds(3))
        .toCompletableFuture().get(10, TimeUnit.SECONDS);
    stats.regions().forEach((address, shards) -> System.out.println(address + ": " + shards.size() + " shards"));
    System.out.println("did not answer: " + stats.failedRegions());
    // docs:end where
  }
}
