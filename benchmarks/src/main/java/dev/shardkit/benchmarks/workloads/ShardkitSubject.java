package dev.shardkit.benchmarks.workloads;

import dev.shardkit.sharding.ClusterSharding;
import dev.shardkit.sharding.Entity;
import dev.shardkit.sharding.EntityRef;
import dev.shardkit.sharding.EntityTypeKey;
import dev.shardkit.sharding.MessageExtractor;
import dev.shardkit.sharding.ShardRegionState;
import dev.shardkit.sharding.ShardingEnvelope;
import dev.shardkit.sharding.ShardingSettings;
import dev.shardkit.sharding.StableHashMessageExtractor;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.stream.Collectors;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;

/** shardkit behind {@link Subject}. */
public final class ShardkitSubject implements Subject {
  static final EntityTypeKey<Counter.Command> KEY = EntityTypeKey.create(Counter.Command.class, TYPE_NAME);

  @Override
  public String name() {
    return "shardkit";
  }

  @Override
  public Node start(ActorSystem<?> system, Counter.Hook hook, Optional<String> role) {
    Entity<Counter.Command, ShardingEnvelope<Counter.Command>> entity =
        Entity.of(KEY, ctx -> Counter.create(ctx.entityId(), hook));
    return start(system, role.isPresent() ? entity.withRole(role.get()) : entity);
  }

  @Override
  public Node startRemembering(ActorSystem<?> system, Counter.Hook hook) {
    return start(system, Entity.of(KEY, ctx -> Counter.create(ctx.entityId(), hook))
        .withSettings(ShardingSettings.create(system).withRememberEntities(true)));
  }

  private static Node start(ActorSystem<?> system, Entity<Counter.Command, ShardingEnvelope<Counter.Command>> entity) {
    ClusterSharding sharding = ClusterSharding.get(system);
    ActorRef<ShardingEnvelope<Counter.Command>> region = sharding.start(entity);
    // The same extractor the region uses by default.
    MessageExtractor<ShardingEnvelope<Counter.Command>, Counter.Command> extractor =
        new StableHashMessageExtractor<>(ShardingSettings.create(system).numberOfShards());
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
        return sharding.shardRegionState(KEY, timeout).thenApply(s -> s.shards().stream()
            .map(ShardRegionState.ShardState::shardId).collect(Collectors.toSet()));
      }

      @Override
      public CompletionStage<Long> droppedMessages(Duration timeout) {
        return sharding.shardRegionState(KEY, timeout).thenApply(ShardRegionState::droppedMessages);
      }
    };
  }
}
