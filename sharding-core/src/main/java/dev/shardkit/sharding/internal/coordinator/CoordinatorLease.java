package dev.shardkit.sharding.internal.coordinator;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.shardkit.sharding.ShardingSettings;
import dev.shardkit.sharding.internal.InternalApi;
import java.util.Map;
import org.apache.pekko.cluster.singleton.ClusterSingletonManagerSettings;

/**
 * The settings of the singleton manager that runs a type's coordinator, with the coordinator's
 * lease ({@link ShardingSettings#coordinatorLease()}) if one is configured. With a lease, the
 * manager on the oldest node acquires it before it starts the coordinator, and tries again every
 * {@link ShardingSettings#coordinatorLeaseRetryInterval()} while it is refused; when the lease is
 * lost it tells the coordinator to stop ({@link ShardCoordinator.Stop}) and starts a new one only
 * once it holds the lease again. A node that is not the oldest releases the lease. So a
 * coordinator acts only while its node holds the lease, whatever the downing provider decided.
 */
@InternalApi
public final class CoordinatorLease {

  private CoordinatorLease() {}

  /**
   * The singleton manager's settings for a coordinator with {@code settings}: {@code defaults}
   * (the system's) with the type's role, and its lease if one is configured.
   *
   * @param systemConfig the system's configuration, where the lease's section is
   * @throws IllegalArgumentException if the lease's configuration path names no lease section
   */
  public static ClusterSingletonManagerSettings singletonSettings(ClusterSingletonManagerSettings defaults,
      Config systemConfig, ShardingSettings settings) {
    ClusterSingletonManagerSettings withRole = defaults.withRole(settings.role().orElse(null));
    if (settings.coordinatorLease().isEmpty()) {
      return withRole;
    }
    String path = settings.coordinatorLease().get();
    if (!systemConfig.hasPath(path + ".lease-class")) {
      throw new IllegalArgumentException("shardkit.sharding.coordinator-lease names [" + path + "], but the "
          + "configuration has no lease there (a section with a lease-class)");
    }
    // The manager's own reading of use-lease and lease-retry-interval makes its lease settings.
    Config leased = ConfigFactory.parseMap(Map.of("use-lease", path, "lease-retry-interval",
        settings.coordinatorLeaseRetryInterval().toMillis() + "ms"))
        .withFallback(systemConfig.getConfig("pekko.cluster.singleton"));
    return withRole.withLeaseSettings(ClusterSingletonManagerSettings.create(leased).leaseSettings().get());
  }
}
