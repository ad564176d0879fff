/**
 * The event-sourced sharding stores: coordinator state ({@code shardkit.sharding.state-store-mode
 * = persistence}) and remembered entities ({@code shardkit.sharding.remember-entities-store =
 * persistence}).
 *
 * <p>With this module on the classpath and the mode selected, each entity type's coordinator
 * keeps its state — which regions and proxies are registered, and which region is home to each
 * shard — as events in a Pekko Persistence journal, with a snapshot of the whole state every
 * {@code snapshot-after} events and older events and snapshots deleted. A coordinator that starts
 * on another node (after a leave or a crash) recovers that state first, so no shard is given a
 * second home. With remember-entities, each shard keeps the ids of its live entities the same way
 * in the same journal: one event per update (a batch of started and stopped entities), a snapshot
 * of the ids every {@code remember-entities.snapshot-after} updates. Out of the box the journal is
 * pekko-persistence-jdbc on an H2 file in {@code ./shardkit-data} (no server needed); production
 * clusters point it at PostgreSQL. While the database is away, shards whose home is known keep
 * working, and the coordinator (or the shard) retries what it needs to store until the database
 * is back.
 *
 * <p>What lives here: {@link dev.shardkit.sharding.persistence.PersistenceCoordinatorStateStoreProvider}
 * and {@link dev.shardkit.sharding.persistence.PersistenceRememberEntitiesStoreProvider}
 * (registered in this module's {@code reference.conf}; applications only select the modes),
 * {@link dev.shardkit.sharding.persistence.ShardingPersistenceIds} (the persistence ids the data is
 * stored under), and {@link dev.shardkit.sharding.persistence.RemoveShardingData}, a command-line
 * tool that deletes that data for named entity types when a stopped cluster cannot start on it.
 * The stores themselves are in the {@code internal} subpackage. Settings are under
 * {@code shardkit.sharding.persistence}; see {@code docs/state-stores.md} and
 * {@code docs/entity-lifecycle.md}.
 */
@NullMarked
package dev.shardkit.sharding.persistence;

import org.jspecify.annotations.NullMarked;
