package dev.shardkit.examples.docs.testing;

import dev.shardkit.sharding.testkit.TestCluster;
import dev.shardkit.sharding.testkit.TestLease;
import dev.shardkit.sharding.testkit.TestLeaseControl;

/** The lease example of {@code docs/testing.md}, where the compiler checks it. */
@SuppressWarnings("unused")
final class LeaseInTests {
  private LeaseInTests() {}

  static void leaseTest(TestCluster cluster) {
    // docs:start lease
    String config = TestLease.CONFIG + "shardkit.sharding.coordinator-lease = " + TestLease.CONFIG_PATH + "\n"
        + "shardkit.sharding.coordinator-lease-retry-interval = 200ms\n";
    // ... start the cluster with it, start sharding, send something ...
    TestLeaseControl lease = cluster.lease("shardkit-coordinator-Orders");
    lease.refuseAll();
    lease.revoke();   // the coordinator stops; no new shard gets a home
    lease.grantAll(); // its node takes the lease again and the coordinator serves
    // docs:end lease
  }
}
