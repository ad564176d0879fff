/**
 * shardkit measured against Pekko's own cluster sharding, on the same workloads in the same run:
 * {@link dev.shardkit.benchmarks.BenchmarkSuite} runs every workload for both libraries
 * alternately, each run in a fresh JVM, prints the table of medians and ratios, and writes
 * {@code docs/performance.md} with its chart. Not a library: nothing depends on this module.
 */
package dev.shardkit.benchmarks;
