package dev.shardkit.sharding.persistence;

import dev.shardkit.sharding.ShardingSettings;
import dev.shardkit.sharding.persistence.internal.PersistenceRememberEntitiesStore;
import dev.shardkit.sharding.persistence.internal.PersistenceStoreSettings;
import dev.shardkit.sharding.spi.RememberEntitiesStore;
import dev.shardkit.sharding.spi.RememberEntitiesStoreProvider;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * The provider of {@code shardkit.sharding.remember-entities-store = persistence}, registered in
 * this module's {@code reference.conf}. Its stores keep each shard's remembered entities as events
 * (one per update, however many entities it names) with snapshots in a Pekko Persistence journal
 * under {@link ShardingPersistenceIds#entities}, configured under
 * {@code shardkit.sharding.persistence} (the same journal as the coordinator state store, with
 * its own {@code remember-entities} snapshot settings; see {@code docs/entity-lifecycle.md}).
 * Applications do not call it; they select the mode.
 */
public final class PersistenceRememberEntitiesStoreProvider implements RememberEntitiesStoreProvider {

  /**
   * The store of one shard; it starts its journal with the first call, on this node.
   *
   * @throws IllegalArgumentException if {@code shardkit.sharding.persistence} is invalid, or the
   *     shard id is empty
   */
  @Override
  public RememberEntitiesStore create(ActorSystem<?> system, String typeName, String shardId,
      ShardingSettings settings) {
    return new PersistenceRememberEntitiesStore(system, typeName, shardId,
        PersistenceStoreSettings.fromConfig(system.settings().config()));
  }

  /**
   * Checks the settings on every hosting node, so that {@code ClusterSharding.start} fails with a
   * clear error instead of the first shard later.
   *
   * @throws IllegalArgumentException if {@code shardkit.sharding.persistence} is invalid
   */
  @Override
  public void startOnNode(ActorSystem<?> system, String typeName, ShardingSettings settings) {
    PersistenceStoreSettings.fromConfig(system.settings().config());
  }
}
