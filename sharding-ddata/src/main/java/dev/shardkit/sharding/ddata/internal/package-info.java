/**
 * Internals of the ddata stores (not API).
 *
 * <p>Coordinator state: the replicated head and parts
 * ({@link dev.shardkit.sharding.ddata.internal.CoordinatorStateHead}, whose Javadoc explains why a
 * load gets a state stored as a whole, {@link dev.shardkit.sharding.ddata.internal.CoordinatorStatePart},
 * {@link dev.shardkit.sharding.ddata.internal.PartVersions}) and their keys
 * ({@link dev.shardkit.sharding.ddata.internal.CoordinatorStateKeys}), how a state splits into parts
 * ({@link dev.shardkit.sharding.ddata.internal.PartitionedCoordinatorState}), the single record of
 * versions before the split ({@link dev.shardkit.sharding.ddata.internal.CoordinatorStateRecord},
 * whose Javadoc explains why a successor never sees the state go backwards) and its key, the reader
 * and the store ({@link dev.shardkit.sharding.ddata.internal.CoordinatorStateReader},
 * {@link dev.shardkit.sharding.ddata.internal.DDataCoordinatorStateStore}), and the binary
 * serializer of the replicated values ({@link dev.shardkit.sharding.ddata.internal.DDataSerializer}).
 *
 * <p>Remembered entities: a shard's keys and how a batch splits over them
 * ({@link dev.shardkit.sharding.ddata.internal.ShardEntitiesKeys},
 * {@link dev.shardkit.sharding.ddata.internal.BucketChange}), and the store
 * ({@link dev.shardkit.sharding.ddata.internal.DDataRememberEntitiesStore}).
 *
 * <p>Shared: reads and writes by majority with retries
 * ({@link dev.shardkit.sharding.ddata.internal.ReplicaMajority}), the extension that runs
 * shardkit's replicators per cluster role and purpose
 * ({@link dev.shardkit.sharding.ddata.internal.Replicators}), and the check for the JVM options
 * LMDB needs ({@link dev.shardkit.sharding.ddata.internal.LmdbJvmOptions}).
 */
package dev.shardkit.sharding.ddata.internal;
