/**
 * shardkit's own test support (module {@code test-support}, not published), in the package of
 * the published testkit whose {@code TestCluster} it builds on: entities and checkers that count
 * what a cluster lost, duplicated or reordered ({@link dev.shardkit.sharding.testkit.Ledger} with
 * {@link dev.shardkit.sharding.testkit.Traffic}, {@link dev.shardkit.sharding.testkit.Recorder},
 * {@link dev.shardkit.sharding.testkit.EntityProbe}), traffic that comes in full-speed waves
 * ({@link dev.shardkit.sharding.testkit.Bursts}), {@link dev.shardkit.sharding.testkit.Network} to cut
 * the link between two nodes of one JVM, {@link dev.shardkit.sharding.testkit.LogCapture} to wait for
 * log events, {@link dev.shardkit.sharding.testkit.TestCertificateAuthority} to make key and trust
 * stores for TLS between nodes at test time, and the scenarios that every state store runs
 * ({@link dev.shardkit.sharding.testkit.CoordinatorFailoverScenario},
 * {@link dev.shardkit.sharding.testkit.RememberEntitiesScenario}).
 */
package dev.shardkit.sharding.testkit;
