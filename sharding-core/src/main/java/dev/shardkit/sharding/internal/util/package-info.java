/**
 * Values and rules that several packages use: the one rule for shard and entity ids
 * ({@link ShardIds}) and a type's bounds on them ({@link ShardIdBounds}), the null rule of the
 * public API ({@link Arguments}), {@link Murmur3}, and two collections: {@link ChunkedHashMap}, the
 * routing table's map, and {@link MessageBuffers}, held messages under one limit.
 */
package dev.shardkit.sharding.internal.util;
