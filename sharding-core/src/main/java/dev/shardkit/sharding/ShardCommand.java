package dev.shardkit.sharding;

/**
 * What an entity may send to its shard, through {@link EntityContext#shard()}.
 */
public sealed interface ShardCommand permits Passivate {}
