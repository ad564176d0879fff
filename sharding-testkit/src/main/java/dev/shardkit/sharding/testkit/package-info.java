/**
 * Testing applications that use shardkit (artifact {@code dev.shardkit:sharding-testkit}, test
 * scope): {@link dev.shardkit.sharding.testkit.ShardingTestKit} runs sharding on a single node with
 * the in-memory store, to test entities; {@link dev.shardkit.sharding.testkit.TestEntityRef} is an
 * {@code EntityRef} whose messages go to a test probe, to test code that sends to entities;
 * {@link dev.shardkit.sharding.testkit.TestCluster} joins several actor systems in one JVM into a
 * cluster with real remoting, to test what only a cluster shows;
 * {@link dev.shardkit.sharding.testkit.TestRememberStore} is a remember-entities store whose writes
 * a test can hold back or fail, and {@link dev.shardkit.sharding.testkit.TestLease} a coordination
 * lease a test grants and takes away. {@code docs/testing.md} has an example test of each.
 *
 * <p>Nothing here is shared through the JVM: each {@code TestCluster} (and each
 * {@code ShardingTestKit}) has its own store and leases, so test classes with clusters of their own
 * can run in parallel (for example with JUnit's parallel execution, or Surefire's
 * {@code forkCount}).
 *
 * <p>shardkit's own tests add more classes to this package from a module that is not published
 * ({@code test-support}); they are not part of this artifact.
 */
@NullMarked
package dev.shardkit.sharding.testkit;

import org.jspecify.annotations.NullMarked;
