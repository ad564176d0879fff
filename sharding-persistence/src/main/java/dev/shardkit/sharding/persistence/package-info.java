/**
 * Durable sharding state on Pekko Persistence — <strong>not implemented yet</strong>; this module
 * is a placeholder so that its coordinates are fixed.
 *
 * <p>What will live here: an event-sourced {@code CoordinatorStateStore} (the coordinator's
 * events — region registered, shard home allocated, and so on — written to a Pekko Persistence
 * journal, with snapshots) and a {@code RememberEntitiesStore} that records which entities are
 * alive so that they are restarted after a rebalance or a crash. Applications will select them
 * with {@code shardkit.sharding.state-store-mode = persistence}; this module will then register
 * its provider under {@code shardkit.sharding.state-store-providers} in its own
 * {@code reference.conf}.
 *
 * <p>Today the module contains no store and registers no provider, so selecting
 * {@code persistence} fails at {@code ClusterSharding.start} with an error that names this
 * artifact. Use the default {@code memory} mode of sharding-core meanwhile.
 */
package dev.shardkit.sharding.persistence;
