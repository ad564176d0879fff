/**
 * Testing applications that use shardkit (artifact {@code dev.shardkit:sharding-testkit}, test
 * scope): {@link dev.shardkit.sharding.testkit.ShardingTestKit} runs sharding on a single node with
 * the in-memory store, to test entities; {@link dev.shardkit.sharding.testkit.TestEntityRef} is an
 * {@code EntityRef} whose messages go to a test probe, to test code that sends to entities;
 * {@link dev.shardkit.sharding.testkit.TestCluster} joins several actor systems in one JVM into a
 * cluster with real remoting, to test what only a cluster shows;
 * {@link dev.shardkit.sharding.testkit.TestRememberStore} is a remember-entities store in the JVM
 * whose writes a test can hold back or fail. {@code docs/testing.md} has an example test of each.
 *
 * <p>shardkit's own tests add more classes to this package from a module that is not published
 * ({@code test-support}); they are not part of this artifact.
 */
package dev.shardkit.sharding.testkit;
