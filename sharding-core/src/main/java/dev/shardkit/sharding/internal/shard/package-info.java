/**
 * The shard: one shard's entities. {@link ShardMachine} decides when an entity starts, passivates
 * (by message, idle time or the active-entity limit) and starts again after failing, what is held
 * for an entity that is not running ({@link EntityTable}, {@link EntityRecency},
 * {@link RestartBackoff}), and the reads and writes of its remember-entities store
 * ({@link RememberedStore}). {@link Shard} is the actor that carries out its effects;
 * {@link ShardProtocol} is what a shard and its region say to each other on one node.
 */
package dev.shardkit.sharding.internal.shard;
