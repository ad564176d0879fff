/**
 * shardkit's test kit, for an application's tests: sharding on one node
 * ({@code ShardingTestKit}), several nodes in one JVM ({@code TestCluster}), an
 * {@code EntityRef} backed by a probe ({@code TestEntityRef}), a lease and a remember-entities
 * store the test controls.
 */
module dev.shardkit.sharding.testkit {
  requires transitive dev.shardkit.sharding;
  requires transitive pekko.actor.testkit.typed;
  requires transitive pekko.coordination;

  exports dev.shardkit.sharding.testkit;
}
