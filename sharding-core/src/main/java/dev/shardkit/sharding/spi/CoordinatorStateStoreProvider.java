package dev.shardkit.sharding.spi;

import dev.shardkit.sharding.ShardingSettings;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * Creates {@link CoordinatorStateStore}s for one {@code state-store-mode}. A store module names its
 * provider class under {@code shardkit.sharding.state-store-providers.<mode>} in its
 * {@code reference.conf}; the class needs a public no-argument constructor.
 */
public interface CoordinatorStateStoreProvider {

  /**
   * Creates the store for one entity type. Called on the node where the coordinator starts.
   *
   * @param system the coordinator's actor system
   * @param typeName the entity type's name
   * @param settings the entity type's settings
   */
  CoordinatorStateStore create(ActorSystem<?> system, String typeName, ShardingSettings settings);

  /**
   * Called on every node where a region or a proxy of the type starts, before it registers;
   * {@link #create} is called only on the coordinator's node. A store that needs a presence on
   * every member of the type's role — a replica of the state — starts it here. The default does
   * nothing.
   *
   * @throws RuntimeException to make {@code ClusterSharding.start} fail with that error
   */
  default void startOnNode(ActorSystem<?> system, String typeName, ShardingSettings settings) {}
}
