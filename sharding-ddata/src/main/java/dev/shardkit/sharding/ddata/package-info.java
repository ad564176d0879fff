/**
 * shardkit's stores in Pekko Distributed Data: the coordinator's state
 * ({@code shardkit.sharding.state-store-mode = ddata}, the default) and remembered entities
 * ({@code shardkit.sharding.remember-entities-store = ddata}, the default).
 * {@link dev.shardkit.sharding.ddata.DDataCoordinatorStateStoreProvider} and
 * {@link dev.shardkit.sharding.ddata.DDataRememberEntitiesStoreProvider} are the providers this
 * module registers in its {@code reference.conf}; {@link dev.shardkit.sharding.ddata.DDataSettings}
 * reads {@code shardkit.sharding.ddata}.
 *
 * <p>Each entity type's coordinator state is a small replicated head and parts (the directory of
 * regions and proxies, and the shards by a hash of their id), kept in memory by shardkit's
 * own replicator on every node that hosts the type (one replicator per cluster role). Writes and
 * reads go to a majority of those nodes, at least {@code majority-min-cap} of them, so a
 * coordinator that moves to another node loads what its predecessor stored. That state is not kept
 * on disk: after a whole-cluster restart regions register afresh and report the shards they host.
 *
 * <p>Each shard's remembered entity ids are a few replicated sets, written and read by majority
 * the same way, in a second replicator per role that also keeps them on each node's disk in LMDB;
 * it runs only where remember-entities is used. They survive a restart of the whole cluster when
 * the nodes come back with their LMDB directories. lmdbjava needs the JVM options
 * {@code --add-opens java.base/java.nio=ALL-UNNAMED --add-opens java.base/sun.nio.ch=ALL-UNNAMED}.
 *
 * <p>The stores, their replicated data and the replicators live in
 * {@code dev.shardkit.sharding.ddata.internal}.
 */
@NullMarked
package dev.shardkit.sharding.ddata;

import org.jspecify.annotations.NullMarked;
