package dev.shardkit.sharding.ddata;

import dev.shardkit.sharding.ShardingSettings;
import dev.shardkit.sharding.ddata.internal.DDataCoordinatorStateStore;
import dev.shardkit.sharding.ddata.internal.Replicators;
import dev.shardkit.sharding.spi.CoordinatorStateStore;
import dev.shardkit.sharding.spi.CoordinatorStateStoreProvider;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * The provider of {@code shardkit.sharding.state-store-mode = ddata}, named in this module's
 * {@code reference.conf}. The coordinator's state is replicated in memory on the nodes that host
 * the entity type, written and read by majority (see {@link DDataSettings}); it survives any
 * coordinator move that leaves a majority of those nodes running, and is lost only when the whole
 * cluster stops (regions then register afresh with the shards they host).
 */
public final class DDataCoordinatorStateStoreProvider implements CoordinatorStateStoreProvider {

  /** Called by sharding-core, which finds this class through the configuration. */
  public DDataCoordinatorStateStoreProvider() {}

  /**
   * Starts shardkit's replicator for the type's role on this node, if it is not running yet: the
   * nodes that run it are the replicas, over which majorities are counted.
   *
   * @throws IllegalArgumentException if {@code shardkit.sharding.ddata} is invalid (the message
   *     names the key), or this node lacks the type's role
   */
  @Override
  public void startOnNode(ActorSystem<?> system, String typeName, ShardingSettings settings) {
    Replicators.get(system).replicatorFor(settings.role());
  }

  /**
   * @throws IllegalArgumentException if {@code shardkit.sharding.ddata} is invalid (the message
   *     names the key), the type name is empty, or this node lacks the type's role
   */
  @Override
  public CoordinatorStateStore create(ActorSystem<?> system, String typeName, ShardingSettings settings) {
    Replicators replicators = Replicators.get(system);
    return new DDataCoordinatorStateStore(system, typeName, settings.role(), replicators.settings(),
        replicators.replicatorFor(settings.role()));
  }
}
