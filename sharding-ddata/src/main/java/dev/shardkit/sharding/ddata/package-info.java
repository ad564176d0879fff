/**
 * The coordinator's state in Pekko Distributed Data: {@code shardkit.sharding.state-store-mode =
 * ddata}, the default mode. {@link dev.shardkit.sharding.ddata.DDataCoordinatorStateStoreProvider}
 * is the provider this module registers under {@code shardkit.sharding.state-store-providers} in
 * its {@code reference.conf}; {@link dev.shardkit.sharding.ddata.DDataSettings} reads
 * {@code shardkit.sharding.ddata}.
 *
 * <p>Each entity type's state is one replicated record, kept in memory by shardkit's own
 * replicator on every node that hosts the type (one replicator per cluster role). Writes and reads
 * go to a majority of those nodes, at least {@code majority-min-cap} of them, so a coordinator
 * that moves to another node loads what its predecessor stored. Nothing is kept on disk: after a
 * whole-cluster restart regions register afresh and report the shards they host. The store and
 * its replicated data type live in {@code dev.shardkit.sharding.ddata.internal}.
 */
package dev.shardkit.sharding.ddata;
