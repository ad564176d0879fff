package dev.shardkit.sharding.persistence;

import dev.shardkit.sharding.ShardingSettings;
import dev.shardkit.sharding.persistence.internal.PersistenceRememberEntitiesStore;
import dev.shardkit.sharding.persistence.internal.PersistenceStoreSettings;
import dev.shardkit.sharding.persistence.internal.RememberedShards;
import dev.shardkit.sharding.spi.RememberEntitiesStore;
import dev.shardkit.sharding.spi.RememberEntitiesStoreProvider;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
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
   * The store of one shard. Its loads are read together with those of the node's other shards
   * that load at the same time, where the plugins allow it; it starts its journal, on this node,
   * with its first write.
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
   * clear error instead of the first shard (or the coordinator's {@link #rememberedShards}) later.
   *
   * @throws IllegalArgumentException if {@code shardkit.sharding.persistence} is invalid, its
   *     {@code read-journal-plugin-id} reads another journal than {@code journal-plugin-id}, or the
   *     journal's JDBC driver is not on the classpath
   */
  @Override
  public void startOnNode(ActorSystem<?> system, String typeName, ShardingSettings settings) {
    PersistenceStoreSettings.forNode(system).requireReadJournalOfJournal(system.settings().config());
  }

  /**
   * The shards that stored remembered entities: every persistence id
   * {@code shardkit-entities-<type>|<shard>} that the read journal
   * ({@code read-journal-plugin-id}) lists with {@code currentPersistenceIds}, decoded with
   * {@link ShardingPersistenceIds#entitiesShardId}. A superset: a shard whose entities were all
   * passivated keeps its persistence id, starts and runs empty.
   *
   * <p>The cost: {@code currentPersistenceIds} goes through every persistence id of the journal,
   * not only this type's (with pekko-persistence-jdbc, a {@code SELECT DISTINCT persistence_id}
   * over the whole event table). With shardkit's own journal (the default) that is a few ids per
   * shard of every type with remember-entities; on a journal shared with an application's
   * millions of entities it is a long scan, once per entity type each time a coordinator starts.
   * It must finish within 3 x {@code store-timeout}; if it does not, the coordinator tries again
   * with backoff, and meanwhile the shards start with their first message as before.
   *
   * <p>The journal's tables are created first if {@code create-schema} asks for it, so that a new
   * database reads as empty rather than failing.
   */
  @Override
  public CompletionStage<Set<String>> rememberedShards(ActorSystem<?> system, String typeName,
      ShardingSettings settings) {
    try {
      PersistenceStoreSettings store = PersistenceStoreSettings.fromConfig(system.settings().config());
      store.requireReadJournalOfJournal(system.settings().config());
      return RememberedShards.read(system, store, typeName);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }
}
