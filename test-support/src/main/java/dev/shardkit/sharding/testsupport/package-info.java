/**
 * shardkit's own test support (module {@code test-support}, not published), in a package of its
 * own, apart from the published testkit whose {@code TestCluster} it builds on: entities and checkers that count
 * what a cluster lost, duplicated or reordered ({@link dev.shardkit.sharding.testsupport.Ledger} with
 * {@link dev.shardkit.sharding.testsupport.Traffic}, {@link dev.shardkit.sharding.testsupport.Recorder},
 * {@link dev.shardkit.sharding.testsupport.EntityProbe}), traffic that comes in full-speed waves
 * ({@link dev.shardkit.sharding.testsupport.Bursts}), {@link dev.shardkit.sharding.testsupport.Network} to cut
 * the link between two nodes of one JVM, {@link dev.shardkit.sharding.testsupport.LogCapture} to wait for
 * log events, {@link dev.shardkit.sharding.testsupport.TestCertificateAuthority} to make key and trust
 * stores for TLS between nodes at test time, and the scenarios that every state store runs
 * ({@link dev.shardkit.sharding.testsupport.CoordinatorFailoverScenario},
 * {@link dev.shardkit.sharding.testsupport.RememberEntitiesScenario}).
 */
package dev.shardkit.sharding.testsupport;
