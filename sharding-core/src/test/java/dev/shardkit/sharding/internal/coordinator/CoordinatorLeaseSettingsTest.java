package dev.shardkit.sharding.internal.coordinator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.shardkit.sharding.ShardingSettings;
import java.time.Duration;
import org.apache.pekko.cluster.singleton.ClusterSingletonManagerSettings;
import org.junit.jupiter.api.Test;

/** The coordinator's singleton manager gets the configured lease, and none by default. */
class CoordinatorLeaseSettingsTest {
  private static final Config SYSTEM = ConfigFactory.parseString(
      "my-lease.lease-class = \"org.example.MyLease\"").withFallback(ConfigFactory.load());
  private static final ClusterSingletonManagerSettings DEFAULTS =
      ClusterSingletonManagerSettings.create(SYSTEM.getConfig("pekko.cluster.singleton"));

  private static ShardingSettings settings() {
    return ShardingSettings.fromConfig(SYSTEM.getConfig("shardkit.sharding")).withRole("backend");
  }

  @Test
  void withoutALeaseTheManagerHasNoneAndTheTypesRole() {
    ClusterSingletonManagerSettings s = CoordinatorLease.singletonSettings(DEFAULTS, SYSTEM, settings());
    assertTrue(s.leaseSettings().isEmpty());
    assertEquals("backend", s.role().get());
  }

  @Test
  void theConfiguredLeaseAndRetryIntervalGoToTheManager() {
    ClusterSingletonManagerSettings s = CoordinatorLease.singletonSettings(DEFAULTS, SYSTEM,
        settings().withCoordinatorLease("my-lease", Duration.ofMillis(750)));
    assertEquals("my-lease", s.leaseSettings().get().leaseImplementation());
    assertEquals(Duration.ofMillis(750), s.leaseSettings().get().getLeaseRetryInterval());
    assertEquals("backend", s.role().get());
  }

  @Test
  void aLeasePathWithoutALeaseIsRefusedNamingIt() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> CoordinatorLease
        .singletonSettings(DEFAULTS, SYSTEM, settings().withCoordinatorLease("no-such-lease", Duration.ofSeconds(1))));
    assertTrue(e.getMessage().contains("coordinator-lease names [no-such-lease]"), e.getMessage());
  }

  @Test
  void theRetryIntervalMustBePositive() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> settings().withCoordinatorLease("my-lease", Duration.ZERO));
    assertTrue(e.getMessage().contains("coordinator-lease-retry-interval must be positive"), e.getMessage());
  }
}
