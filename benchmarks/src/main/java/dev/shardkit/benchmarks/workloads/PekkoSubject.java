package dev.shardkit.benchmarks.workloads;

import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.stream.Collectors;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.cluster.sharding.ShardRegion;
import org.apache.pekko.cluster.sharding.typed.ClusterShardingSettings;
import org.apache.pekko.cluster.sharding.typed.GetShardRegionState;
import org.apache.pekko.cluster.sharding.typed.ShardingEnvelope;
import org.apache.pekko.cluster.sharding.typed.HashCodeMessageExtractor;
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.cluster.sharding.typed.javadsl.Entity;
import org.apache.pekko.cluster.sharding.typed.javadsl.EntityRef;
import org.apache.pekko.cluster.sharding.typed.javadsl.EntityTypeKey;

/** Pekko's cluster sharding ({@code pekko-cluster-sharding-typed}) behind {@link Subject}. */
public final class PekkoSubject implements Subject {
  static final EntityTypeKey<Counter.Command> KEY = EntityTypeKey.create(Counter.Command.class, TYPE_NAME);

  @Override
  public String name() {
    return "pekko";
  }

  @Override
  public Node start(ActorSystem<?> system, Counter.Hook hook, Optional<String> role) {
    Entity<Counter.Command, ShardingEnvelope<Counter.Command>> entity =
        Entity.of(KEY, ctx -> Counter.create(ctx.getEntityId(), hook));
    return start(system, role.isPresent() ? entity.withRole(role.get()) : entity);
  }

  @Override
  public Node startRemembering(ActorSystem<?> system, Counter.Hook hook) {
    // The same as pekko.cluster.sharding.remember-entities = on, said where the entity is started,
    // as on shardkit's side.
    return start(system, Entity.of(KEY, ctx -> Counter.create(ctx.getEntityId(), hook))
        .withSettings(ClusterShardingSettings.create(system).withRememberEntities(true)));
  }

  private static Node start(ActorSystem<?> system, Entity<Counter.Command, ShardingEnvelope<Counter.Command>> entity) {
    // Pekko's sharding counts no drops; its dead letters are counted from before it starts.
    DeadLetterTally drops = DeadLetterTally.get(system);
    ClusterSharding sharding = ClusterSharding.get(system);
    ActorRef<ShardingEnvelope<Counter.Command>> region = sharding.init(entity);
    // The extractor Pekko uses by default (hash code modulo number-of-shards).
    int shards = system.settings().config().getInt("pekko.cluster.sharding.number-of-shards");
    HashCodeMessageExtractor<Counter.Command> extractor = new HashCodeMessageExtractor<>(shards);
    return new Node() {
      @Override
      public void tellViaRegion(String entityId, Counter.Command message) {
        region.tell(new ShardingEnvelope<>(entityId, message));
      }

      @Override
      public Ref ref(String entityId) {
        EntityRef<Counter.Command> ref = sharding.entityRefFor(KEY, entityId);
        return new Ref() {
          @Override
          public void tell(Counter.Command message) {
            ref.tell(message);
          }

          @Override
          public CompletionStage<Counter.Count> get(Duration timeout) {
            return ref.ask(Counter.Get::new, timeout);
          }
        };
      }

      @Override
      public String shardId(String entityId) {
        return extractor.shardId(entityId);
      }

      @Override
      public CompletionStage<Set<String>> localShards(Duration timeout) {
        return AskPattern.<org.apache.pekko.cluster.sharding.typed.ClusterShardingQuery, ShardRegion.CurrentShardRegionState>ask(sharding.shardState(),
                replyTo -> new GetShardRegionState(KEY, replyTo), timeout, system.scheduler())
            .thenApply(s -> s.getShards().stream().map(ShardRegion.ShardState::shardId)
                .collect(Collectors.toSet()));
      }

      @Override
      public CompletionStage<Long> droppedMessages(Duration timeout) {
        return CompletableFuture.completedFuture(drops.libraryDroppedAdds());
      }
    };
  }
}
