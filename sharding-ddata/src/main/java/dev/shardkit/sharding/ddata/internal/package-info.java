/**
 * Internals of the ddata store (not API): the replicated value
 * ({@link dev.shardkit.sharding.ddata.internal.CoordinatorStateRecord}, whose Javadoc explains why
 * a successor never sees the state go backwards) and its key, the store that reads and writes it by
 * majority ({@link dev.shardkit.sharding.ddata.internal.DDataCoordinatorStateStore}), the
 * extension that runs shardkit's replicator per cluster role
 * ({@link dev.shardkit.sharding.ddata.internal.Replicators}), and the binary serializer of the
 * replicated value ({@link dev.shardkit.sharding.ddata.internal.DDataSerializer}).
 */
package dev.shardkit.sharding.ddata.internal;
