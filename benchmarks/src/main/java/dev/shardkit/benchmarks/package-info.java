/**
 * The side-by-side benchmark harness — <strong>not written yet</strong>; this package only holds
 * its description.
 *
 * <p>What will live here: programs that run the same workload, in the same JVM run, against
 * (a) a plain {@code ActorRef.tell} to the entities as a baseline, (b) Pekko's own cluster sharding
 * ({@code pekko-cluster-sharding-typed}) and (c) shardkit, and print messages per second for each
 * together with the ratios shardkit/Pekko and shardkit/plain tell. Workloads: tell throughput to
 * many entities with known shard homes, first-message latency (unknown home), and ask round trips,
 * on one node and across nodes on loopback. Results are reported, never asserted: unit tests carry
 * no timing assertions.
 */
package dev.shardkit.benchmarks;
