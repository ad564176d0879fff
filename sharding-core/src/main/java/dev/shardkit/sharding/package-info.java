/**
 * shardkit's public API: cluster sharding of actors on Apache Pekko.
 *
 * <p>Start an entity type on every node with {@link dev.shardkit.sharding.ClusterSharding#start},
 * then reach any entity by id through {@link dev.shardkit.sharding.ClusterSharding#entityRefFor}
 * or the region {@code ActorRef} that {@code start} returns. Each entity lives in at most one place
 * in the cluster, is created on its first message, and is found without the sender knowing where.
 *
 * <p>What lives here: the extension ({@link dev.shardkit.sharding.ClusterSharding}), the entity
 * definition ({@link dev.shardkit.sharding.Entity}, {@link dev.shardkit.sharding.EntityTypeKey},
 * {@link dev.shardkit.sharding.EntityContext}), addressing ({@link dev.shardkit.sharding.EntityRef},
 * {@link dev.shardkit.sharding.ShardingEnvelope}, the message extractors), the allocation SPI
 * ({@link dev.shardkit.sharding.ShardAllocationStrategy}), settings and inspection results, and the
 * checks Pekko Management's health routes can run ({@link dev.shardkit.sharding.ShardingReadinessCheck},
 * {@link dev.shardkit.sharding.ShardingLivenessCheck}).
 * Everything under {@code internal} is not API and may change without notice.
 */
@NullMarked
package dev.shardkit.sharding;

import org.jspecify.annotations.NullMarked;
