package dev.shardkit.sharding.spi;

import dev.shardkit.sharding.ShardingSettings;
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
}
