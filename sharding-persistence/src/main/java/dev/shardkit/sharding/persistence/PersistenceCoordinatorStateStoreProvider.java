package dev.shardkit.sharding.persistence;

import dev.shardkit.sharding.ShardingSettings;
import dev.shardkit.sharding.persistence.internal.PersistenceCoordinatorStateStore;
import dev.shardkit.sharding.persistence.internal.PersistenceStoreSettings;
import dev.shardkit.sharding.spi.CoordinatorStateStore;
import dev.shardkit.sharding.spi.CoordinatorStateStoreProvider;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * The provider of {@code shardkit.sharding.state-store-mode = persistence}, registered in this
 * module's {@code reference.conf}. Its stores keep each entity type's coordinator state as events
 * (with snapshots) in a Pekko Persistence journal under
 * {@link ShardingPersistenceIds#coordinator}, configured under {@code shardkit.sharding.persistence}:
 * by default pekko-persistence-jdbc on an H2 file, or PostgreSQL (see {@code docs/state-stores.md}).
 * Applications do not call it; they select the mode.
 */
public final class PersistenceCoordinatorStateStoreProvider implements CoordinatorStateStoreProvider {

  /**
   * @throws IllegalArgumentException if {@code shardkit.sharding.persistence} is invalid
   */
  @Override
  public CoordinatorStateStore create(ActorSystem<?> system, String typeName, ShardingSettings settings) {
    return new PersistenceCoordinatorStateStore(system, typeName,
        PersistenceStoreSettings.fromConfig(system.settings().config()));
  }

  /**
   * Checks the settings on every hosting node, so that {@code ClusterSharding.start} fails with a
   * clear error instead of the coordinator later.
   *
   * @throws IllegalArgumentException if {@code shardkit.sharding.persistence} is invalid, or the
   *     journal's JDBC driver is not on the classpath
   */
  @Override
  public void startOnNode(ActorSystem<?> system, String typeName, ShardingSettings settings) {
    PersistenceStoreSettings.forNode(system);
  }
}
