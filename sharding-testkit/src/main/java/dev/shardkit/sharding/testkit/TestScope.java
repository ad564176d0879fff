package dev.shardkit.sharding.testkit;

import com.typesafe.config.Config;
import java.lang.ref.WeakReference;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What the actor systems of one {@link TestCluster} share besides the network: the contents of
 * its {@link TestRememberStore} and its {@link TestLease}s, as real nodes share a database and a
 * lease resource. Pekko creates store providers and leases by reflection from configuration, so
 * they find their cluster's scope through an id in their system's configuration
 * ({@value #CONFIG_KEY}); this index is the only thing in the JVM they share, and it holds no state
 * of its own. Clusters with different scopes run side by side without seeing each other's stores
 * or leases.
 */
final class TestScope {
  /** The configuration key under which {@link TestCluster} gives each system its scope's id. */
  static final String CONFIG_KEY = "shardkit.testkit.scope";

  /** Weakly: a scope lives as long as a cluster (or a test) holds it. */
  private static final Map<String, WeakReference<TestScope>> SCOPES = new ConcurrentHashMap<>();

  private final String id = UUID.randomUUID().toString();
  private final TestRememberStore rememberStore = new TestRememberStore();
  private final Map<String, TestLeaseControl> leases = new ConcurrentHashMap<>();

  private TestScope() {}

  static TestScope create() {
    TestScope scope = new TestScope();
    SCOPES.values().removeIf(ref -> ref.get() == null);
    SCOPES.put(scope.id, new WeakReference<>(scope));
    return scope;
  }

  /**
   * The scope of the system with this configuration.
   *
   * @param user what asks, for the error
   * @throws IllegalStateException if the system was not started by a {@link TestCluster} or a
   *     {@link ShardingTestKit}
   */
  static TestScope of(Config config, String user) {
    TestScope scope = null;
    if (config.hasPath(CONFIG_KEY)) {
      WeakReference<TestScope> ref = SCOPES.get(config.getString(CONFIG_KEY));
      scope = ref == null ? null : ref.get();
    }
    if (scope == null) {
      throw new IllegalStateException(user + " works only in actor systems started by TestCluster or "
          + "ShardingTestKit, which share it between their nodes; this system has no (live) " + CONFIG_KEY);
    }
    return scope;
  }

  String id() {
    return id;
  }

  TestRememberStore rememberStore() {
    return rememberStore;
  }

  /** The control of the lease {@code name}, made when a node first asks for it. */
  TestLeaseControl lease(String name) {
    return leases.computeIfAbsent(name, TestLeaseControl::new);
  }

  Map<String, TestLeaseControl> leases() {
    return leases;
  }
}
