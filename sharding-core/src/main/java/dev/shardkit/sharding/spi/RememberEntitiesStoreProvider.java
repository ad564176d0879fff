package dev.shardkit.sharding.spi;

import dev.shardkit.sharding.ShardingSettings;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * Creates {@link RememberEntitiesStore}s for one {@code remember-entities-store} mode. A store
 * module names its provider class under
 * {@code shardkit.sharding.remember-entities-store-providers.<mode>} in its {@code reference.conf};
 * the class needs a public no-argument constructor.
 */
public interface RememberEntitiesStoreProvider {

  /**
   * Creates the store of one shard. Called on the node where the shard starts, each time it
   * starts there.
   *
   * @param system the shard's actor system
   * @param typeName the entity type's name
   * @param shardId the shard's id
   * @param settings the entity type's settings
   */
  RememberEntitiesStore create(ActorSystem<?> system, String typeName, String shardId, ShardingSettings settings);

  /**
   * Called on every node where a region of the type starts with remember-entities on, before the
   * region registers. A store that needs a presence on every hosting node starts it here. The
   * default does nothing.
   *
   * @throws RuntimeException to make {@code ClusterSharding.start} fail with that error
   */
  default void startOnNode(ActorSystem<?> system, String typeName, ShardingSettings settings) {}

  /**
   * The shards of the type that may have remembered entities. A starting coordinator reads them
   * and gives each a home at once, so that after the whole cluster restarted those shards and
   * their entities start without waiting for a message. A superset is fine: a shard with nothing
   * remembered starts empty. Shards that lose their home while the cluster runs (a crash, a
   * rebalance) are placed again by the coordinator without asking.
   *
   * <p>The default knows none: after a whole-cluster restart, such shards start with their first
   * message (and then start all their remembered entities).
   */
  default CompletionStage<Set<String>> rememberedShards(ActorSystem<?> system, String typeName,
      ShardingSettings settings) {
    return CompletableFuture.completedFuture(Set.of());
  }
}
