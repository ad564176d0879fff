package dev.shardkit.sharding.ddata;

import dev.shardkit.sharding.ShardingSettings;
import dev.shardkit.sharding.ddata.internal.DDataRememberEntitiesStore;
import dev.shardkit.sharding.ddata.internal.Replicators;
import dev.shardkit.sharding.spi.RememberEntitiesStore;
import dev.shardkit.sharding.spi.RememberEntitiesStoreProvider;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * The provider of {@code shardkit.sharding.remember-entities-store = ddata}, named in this
 * module's {@code reference.conf}. Each shard's remembered entity ids are replicated on the nodes
 * that host the entity type, written and read by majority (see {@link DDataSettings}), and kept on
 * each of those nodes' disk in LMDB ({@code shardkit.sharding.ddata.remember-entities.lmdb}), so
 * they survive a restart of the whole cluster as long as the nodes come back with their LMDB
 * directories.
 *
 * <p>LMDB is reached through lmdbjava, which on Java 9 and later needs the JVM options
 * {@code --add-opens java.base/java.nio=ALL-UNNAMED --add-opens java.base/sun.nio.ch=ALL-UNNAMED};
 * without them, starting a region of a type with remember-entities on fails with an
 * {@link IllegalStateException} that names them (rather than lmdbjava's error, which would make
 * Pekko exit the JVM).
 */
public final class DDataRememberEntitiesStoreProvider implements RememberEntitiesStoreProvider {

  /** Called by sharding-core, which finds this class through the configuration. */
  public DDataRememberEntitiesStoreProvider() {}

  /**
   * Starts shardkit's remembered-entities replicator for the type's role on this node, if it is
   * not running yet: it loads what this node kept on disk, and the nodes that run it are the
   * replicas, over which majorities are counted.
   *
   * @throws IllegalArgumentException if {@code shardkit.sharding.ddata} is invalid (the message
   *     names the key), or this node lacks the type's role
   * @throws IllegalStateException if the JVM lacks the options lmdbjava needs (the message names them)
   */
  @Override
  public void startOnNode(ActorSystem<?> system, String typeName, ShardingSettings settings) {
    Replicators.get(system).entitiesReplicatorFor(settings.role());
  }

  /**
   * @throws IllegalArgumentException if {@code shardkit.sharding.ddata} is invalid (the message
   *     names the key), the type name or shard id is empty or too long for an LMDB key, or this
   *     node lacks the type's role
   * @throws IllegalStateException if the JVM lacks the options lmdbjava needs (the message names them)
   */
  @Override
  public RememberEntitiesStore create(ActorSystem<?> system, String typeName, String shardId,
      ShardingSettings settings) {
    Replicators replicators = Replicators.get(system);
    return new DDataRememberEntitiesStore(system, typeName, shardId, settings.role(), replicators.settings(),
        replicators.entitiesReplicatorFor(settings.role()), replicators.lmdbDirectory(settings.role()));
  }
}
