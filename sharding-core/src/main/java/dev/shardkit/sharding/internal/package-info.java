/**
 * shardkit's runtime, not API: the actors ({@code ShardRegion}, {@code Shard},
 * {@code ShardCoordinator}, and each region's {@code DeliveryLink}s to other regions), the protocol
 * between them ({@link dev.shardkit.sharding.internal.ShardingProtocol}) and its binary serializer,
 * and the pure pieces the actors are thin shells around: the region's
 * {@link dev.shardkit.sharding.internal.RoutingTable} and buffers, a link's
 * {@code DeliveryWindow} and a receiving region's {@code InboundSequences}, the shard's
 * {@link dev.shardkit.sharding.internal.EntityTable}.
 */
package dev.shardkit.sharding.internal;
