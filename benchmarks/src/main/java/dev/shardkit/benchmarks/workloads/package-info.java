/**
 * The workloads, each run against shardkit and against Pekko's cluster sharding, and the pieces
 * they share: the trivial {@link dev.shardkit.benchmarks.workloads.Counter} entity, and
 * {@link dev.shardkit.benchmarks.workloads.Subject}, which puts both libraries behind one
 * interface so that a workload is written once.
 */
package dev.shardkit.benchmarks.workloads;
