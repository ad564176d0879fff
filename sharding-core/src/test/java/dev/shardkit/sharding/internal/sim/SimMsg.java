package dev.shardkit.sharding.internal.sim;

/**
 * A message of the simulation's traffic: the {@code seq}-th that node {@code sender} sent to
 * entity {@code entityId}; {@code id} numbers every message of a run. It is its own envelope.
 */
record SimMsg(int id, int sender, String entityId, int seq) {}
