/**
 * The machinery of the benchmark suite, independent of any workload: one run per child JVM
 * ({@link dev.shardkit.benchmarks.harness.ChildJvm}, {@link dev.shardkit.benchmarks.harness.RunMain}),
 * the actor-system configuration both libraries share ({@link dev.shardkit.benchmarks.harness.Nodes}),
 * statistics, and the report: the table, {@code docs/performance.md} and its chart.
 */
package dev.shardkit.benchmarks.harness;
