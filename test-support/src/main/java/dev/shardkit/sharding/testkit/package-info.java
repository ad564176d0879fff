/**
 * shardkit's own test support (module {@code test-support}, not published), in the package of
 * the published testkit whose {@code TestCluster} it builds on: entities and checkers that count
 * what a cluster lost, duplicated or reordered ({@link dev.shardkit.sharding.testkit.Ledger} with
 * {@link dev.shardkit.sharding.testkit.Traffic}, {@link dev.shardkit.sharding.testkit.Recorder},
 * {@link dev.shardkit.sharding.testkit.EntityProbe}), {@link dev.shardkit.sharding.testkit.LogCapture}
 * to wait for log events, and the scenarios that every state store runs
 * ({@link dev.shardkit.sharding.testkit.CoordinatorFailoverScenario},
 * {@link dev.shardkit.sharding.testkit.RememberEntitiesScenario}).
 */
package dev.shardkit.sharding.testkit;
