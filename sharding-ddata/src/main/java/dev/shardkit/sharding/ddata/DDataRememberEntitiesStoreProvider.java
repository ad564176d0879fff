package dev.shardkit.sharding.ddata;

import dev.shardkit.sharding.ShardingSettings;
import dev.shardkit.sharding.ddata.internal.DDataRememberEntitiesStore;
import dev.shardkit.sharding.ddata.internal.RememberedShardsKey;
import dev.shardkit.sharding.ddata.internal.ReplicaMajority;
import dev.shardkit.sharding.ddata.internal.Replicators;
import dev.shardkit.sharding.spi.RememberEntitiesStore;
import dev.shardkit.sharding.spi.RememberEntitiesStoreProvider;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.cluster.ddata.ORSetKey;

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

  /**
   * The type's list of shards with remembered entities, which each shard's store extends before
   * it first remembers an entity there, read from a majority of the replicas (with
   * {@code read-timeout} and {@code read-retries}, as a shard's load). After a restart of the whole
   * cluster it is what the replicas loaded from their LMDB files: while the coordinator's node is
   * the only one up, its own copy. Shards stay listed when their entities are all passivated, so
   * this is a superset: such a shard starts and runs empty.
   *
   * <p>Fails (and the coordinator retries) if no majority answered, the configuration or the type
   * name is invalid, or this node lacks the type's role.
   */
  @Override
  public CompletionStage<Set<String>> rememberedShards(ActorSystem<?> system, String typeName,
      ShardingSettings settings) {
    try {
      Replicators replicators = Replicators.get(system);
      ORSetKey<String> key = RememberedShardsKey.of(typeName);
      // A read per coordinator start: a majority of its own, which nothing closes.
      ReplicaMajority majority = new ReplicaMajority(system, settings.role(), replicators.settings(),
          replicators.entitiesReplicatorFor(settings.role()), "Entity type [" + typeName + "]",
          "the read of the shards with remembered entities was stopped");
      return majority.read(key, "the shards with remembered entities (key " + key.id() + ")")
          .thenApply(set -> set.map(s -> Set.copyOf(s.getElements())).orElse(Set.of()));
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }
}
