/**
 * Sharding state in Pekko Distributed Data — <strong>not implemented yet</strong>; this module is
 * a placeholder so that its coordinates are fixed.
 *
 * <p>What will live here: a {@code CoordinatorStateStore} that keeps the coordinator's state as a
 * replicated data type (written and read with majority consistency, so that a new coordinator on
 * another node starts from it), and a {@code RememberEntitiesStore} that records which entities are
 * alive, optionally backed by durable storage on each node. Applications will select them with
 * {@code shardkit.sharding.state-store-mode = ddata}; this module will then register its provider
 * under {@code shardkit.sharding.state-store-providers} in its own {@code reference.conf}.
 *
 * <p>Today the module contains no store and registers no provider, so selecting {@code ddata}
 * fails at {@code ClusterSharding.start} with an error that names this artifact. Use the default
 * {@code memory} mode of sharding-core meanwhile.
 */
package dev.shardkit.sharding.ddata;
