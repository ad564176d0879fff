package dev.shardkit.sharding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.pekko.actor.Address;
import org.junit.jupiter.api.Test;

class ShardingSettingsTest {

  private static Config reference() {
    return ConfigFactory.load().getConfig("shardkit.sharding");
  }

  private static ShardingSettings defaults() {
    return ShardingSettings.fromConfig(reference());
  }

  private static ShardingSettings withOverride(String hocon) {
    return ShardingSettings.fromConfig(ConfigFactory.parseString(hocon).withFallback(reference()));
  }

  private static void assertRejected(String hocon, String key) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> withOverride(hocon), hocon);
    assertTrue(e.getMessage().contains(key), "message should name " + key + ": " + e.getMessage());
  }

  private static RegionInfo region(int port, int up) {
    return new RegionInfo(new Address("pekko", "sys", "127.0.0.1", port), Set.of(), up);
  }

  private static ShardAllocation counts(int first, int second) {
    List<String> a = new java.util.ArrayList<>();
    List<String> b = new java.util.ArrayList<>();
    for (int i = 0; i < first; i++) {
      a.add("a" + i);
    }
    for (int i = 0; i < second; i++) {
      b.add("b" + i);
    }
    return ShardAllocation.of(Map.of(region(1, 1), a, region(2, 2), b));
  }

  @Test
  void defaultsComeFromReferenceConf() {
    ShardingSettings s = defaults();
    assertEquals(1000, s.numberOfShards());
    assertEquals(100_000, s.bufferSize());
    assertEquals(Optional.empty(), s.role());
    assertEquals(Duration.ofSeconds(1), s.retryInterval());
    assertEquals("ddata", s.stateStoreMode());
    assertEquals(Duration.ofSeconds(10), s.droppedMessageWarningInterval());
    assertEquals(Duration.ofSeconds(3), s.coordinatorSettleTimeout());
  }

  @Test
  void remoteDeliveryDefaultsOverridesAndLimits() {
    assertEquals(new RemoteDeliverySettings(1000, 64 * 1024, 8, Duration.ofSeconds(1), false),
        defaults().remoteDelivery());
    assertEquals(new RemoteDeliverySettings(10, 2048, 2, Duration.ofMillis(300), true),
        withOverride("remote-delivery { batch-max-messages = 10, batch-max-bytes = 2KiB, "
            + "max-unacknowledged-batches = 2, resend-after = 300ms, redeliver-unacknowledged-after-crash = on }")
            .remoteDelivery());
    assertRejected("remote-delivery.batch-max-messages = 0", "remote-delivery.batch-max-messages");
    assertRejected("remote-delivery.batch-max-bytes = 100", "remote-delivery.batch-max-bytes");
    assertRejected("remote-delivery.max-unacknowledged-batches = 0", "remote-delivery.max-unacknowledged-batches");
    assertRejected("remote-delivery.resend-after = 0s", "remote-delivery.resend-after");
    assertRejected("remote-delivery.redeliver-unacknowledged-after-crash = maybe",
        "redeliver-unacknowledged-after-crash");
    ShardingSettings redelivering = defaults().withRemoteDelivery(
        defaults().remoteDelivery().withRedeliverUnacknowledgedAfterCrash(true));
    assertTrue(redelivering.remoteDelivery().redeliverUnacknowledgedAfterCrash());
    assertEquals(defaults().bufferSize(), redelivering.bufferSize());
  }

  @Test
  void defaultStrategyUsesTheConfiguredLimits() {
    LeastShardAllocationStrategy strategy = defaults().leastShardAllocationStrategy();
    // threshold 1, absolute limit 20, relative limit 0.1
    assertEquals(Set.of(), strategy.rebalance(counts(2, 1), Set.of()));
    assertEquals(1, strategy.rebalance(counts(3, 1), Set.of()).size());
    assertEquals(20, strategy.rebalance(counts(500, 0), Set.of()).size());
    assertEquals(5, strategy.rebalance(counts(50, 0), Set.of()).size());
  }

  @Test
  void strategySettingsAreRead() {
    ShardingSettings s = withOverride("least-shard-allocation-strategy { rebalance-threshold = 4, "
        + "rebalance-absolute-limit = 3, rebalance-relative-limit = 0.02 }");
    LeastShardAllocationStrategy strategy = s.leastShardAllocationStrategy();
    // Threshold 4: a difference of 4 stays, of 5 moves.
    assertEquals(Set.of(), strategy.rebalance(counts(6, 2), Set.of()));
    assertEquals(1, strategy.rebalance(counts(7, 2), Set.of()).size());
    // 2 % of 100 binds before the absolute 3; of 400 it does not.
    assertEquals(2, strategy.rebalance(counts(100, 0), Set.of()).size());
    assertEquals(3, strategy.rebalance(counts(400, 0), Set.of()).size());
  }

  @Test
  void overriddenValuesAreRead() {
    ShardingSettings s = withOverride("number-of-shards = 64, buffer-size = 0, role = backend, "
        + "retry-interval = 250ms, state-store-mode = ddata, dropped-message-warning-interval = 0s, "
        + "coordinator-settle-timeout = 0s, rebalance-interval = 750ms, hand-off-timeout = 5s");
    assertEquals(64, s.numberOfShards());
    assertEquals(0, s.bufferSize());
    assertEquals(Optional.of("backend"), s.role());
    assertEquals(Duration.ofMillis(250), s.retryInterval());
    assertEquals("ddata", s.stateStoreMode());
    assertEquals(Duration.ZERO, s.droppedMessageWarningInterval());
    assertEquals(Duration.ZERO, s.coordinatorSettleTimeout());
    assertEquals(Duration.ofMillis(750), s.rebalanceInterval());
    assertEquals(Duration.ofSeconds(5), s.handOffTimeout());
  }

  @Test
  void invalidValuesAreRejectedNamingTheKey() {
    assertRejected("number-of-shards = 0", "number-of-shards");
    assertRejected("number-of-shards = -5", "number-of-shards");
    assertRejected("buffer-size = -1", "buffer-size");
    assertRejected("retry-interval = 0s", "retry-interval");
    assertRejected("retry-interval = -1s", "retry-interval");
    assertRejected("state-store-mode = \"\"", "state-store-mode");
    assertRejected("state-store-mode = \"   \"", "state-store-mode");
    assertRejected("dropped-message-warning-interval = -1s", "dropped-message-warning-interval");
    assertRejected("coordinator-settle-timeout = -1ms", "coordinator-settle-timeout");
    assertRejected("rebalance-interval = 0s", "rebalance-interval");
    assertRejected("hand-off-timeout = 0s", "hand-off-timeout");
  }

  @Test
  void valuesOfTheWrongTypeAreRejectedNamingTheKey() {
    assertRejected("number-of-shards = many", "number-of-shards");
    assertRejected("buffer-size = 1.5x", "buffer-size");
    assertRejected("retry-interval = soon", "retry-interval");
    assertRejected("least-shard-allocation-strategy.rebalance-threshold = high", "rebalance-threshold");
  }

  @Test
  void missingKeysAreRejectedNamingTheKey() {
    for (String key : List.of("number-of-shards", "buffer-size", "role", "retry-interval", "state-store-mode",
        "dropped-message-warning-interval", "coordinator-settle-timeout", "rebalance-interval", "hand-off-timeout",
        "least-shard-allocation-strategy")) {
      Config without = reference().withoutPath(key);
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
          () -> ShardingSettings.fromConfig(without), key);
      assertTrue(e.getMessage().contains(key), "message should name " + key + ": " + e.getMessage());
    }
  }

  @Test
  void coordinatorFailureBackoffDefaultsAndLimits() {
    ShardingSettings s = defaults();
    assertEquals(Duration.ofSeconds(1), s.coordinatorFailureBackoffMin());
    assertEquals(Duration.ofSeconds(30), s.coordinatorFailureBackoffMax());
    assertEquals(0.2, s.coordinatorFailureBackoffRandomFactor());
    assertRejected("coordinator-failure-backoff.min = 0s", "coordinator-failure-backoff.min");
    assertRejected("coordinator-failure-backoff.max = 500ms", "coordinator-failure-backoff.max");
    assertRejected("coordinator-failure-backoff.random-factor = 1.5", "coordinator-failure-backoff.random-factor");
    ShardingSettings changed = s.withCoordinatorFailureBackoff(Duration.ofMillis(100), Duration.ofSeconds(2));
    assertEquals(Duration.ofMillis(100), changed.coordinatorFailureBackoffMin());
    assertEquals(Duration.ofSeconds(2), changed.coordinatorFailureBackoffMax());
  }

  @Test
  void invalidStrategySettingsAreRejectedWhenRead() {
    // Not later, when ClusterSharding.start builds the strategy on some node, far from the config.
    assertRejected("least-shard-allocation-strategy.rebalance-threshold = 0", "rebalance-threshold");
    assertRejected("least-shard-allocation-strategy.rebalance-absolute-limit = 0", "rebalance-absolute-limit");
    assertRejected("least-shard-allocation-strategy.rebalance-relative-limit = 0", "rebalance-relative-limit");
  }

  @Test
  void withMethodsReturnChangedCopies() {
    ShardingSettings base = defaults();
    ShardingSettings changed = base
        .withNumberOfShards(10)
        .withBufferSize(7)
        .withRole("backend")
        .withRetryInterval(Duration.ofMillis(300))
        .withStateStoreMode("persistence")
        .withCoordinatorSettleTimeout(Duration.ofMillis(1500));
    assertEquals(10, changed.numberOfShards());
    assertEquals(7, changed.bufferSize());
    assertEquals(Optional.of("backend"), changed.role());
    assertEquals(Duration.ofMillis(300), changed.retryInterval());
    assertEquals("persistence", changed.stateStoreMode());
    assertEquals(Duration.ofMillis(1500), changed.coordinatorSettleTimeout());
    // Untouched settings carry over.
    assertEquals(Duration.ofSeconds(10), changed.droppedMessageWarningInterval());
    assertEquals(20, changed.leastShardAllocationStrategy().rebalance(counts(500, 0), Set.of()).size());

    // Immutable: the original is unchanged.
    assertNotSame(base, changed);
    assertEquals(1000, base.numberOfShards());
    assertEquals(100_000, base.bufferSize());
    assertEquals(Optional.empty(), base.role());
    assertEquals(Duration.ofSeconds(1), base.retryInterval());
    assertEquals("ddata", base.stateStoreMode());
    assertEquals(Duration.ofSeconds(3), base.coordinatorSettleTimeout());
  }

  @Test
  void eachWithMethodChangesOnlyItsOwnSetting() {
    ShardingSettings base = withOverride("role = r1");
    ShardingSettings n = base.withNumberOfShards(3);
    assertEquals(Optional.of("r1"), n.role());
    assertEquals(100_000, n.bufferSize());
    ShardingSettings b = base.withBufferSize(3);
    assertEquals(1000, b.numberOfShards());
    ShardingSettings r = base.withRole("r2");
    assertEquals(Duration.ofSeconds(1), r.retryInterval());
    assertEquals("ddata", r.stateStoreMode());
    ShardingSettings i = base.withRetryInterval(Duration.ofSeconds(5));
    assertEquals(Optional.of("r1"), i.role());
    ShardingSettings m = base.withStateStoreMode("ddata");
    assertEquals(1000, m.numberOfShards());
    assertEquals(Duration.ofSeconds(1), m.retryInterval());
    ShardingSettings t = base.withCoordinatorSettleTimeout(Duration.ofSeconds(9));
    assertEquals("ddata", t.stateStoreMode());
    assertEquals(Optional.of("r1"), t.role());
    assertEquals(Duration.ofSeconds(3), m.coordinatorSettleTimeout());
  }

  @Test
  void withDroppedMessageWarningIntervalChangesOnlyThatSettingAndValidatesIt() {
    ShardingSettings base = withOverride("role = r1");
    ShardingSettings changed = base.withDroppedMessageWarningInterval(Duration.ofSeconds(30));
    assertEquals(Duration.ofSeconds(30), changed.droppedMessageWarningInterval());
    assertEquals(Duration.ofSeconds(10), base.droppedMessageWarningInterval());
    assertEquals(Optional.of("r1"), changed.role());
    assertEquals(100_000, changed.bufferSize());
    assertEquals(Duration.ofSeconds(60), changed.handOffTimeout());
    assertEquals(Duration.ZERO, base.withDroppedMessageWarningInterval(Duration.ZERO).droppedMessageWarningInterval());
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> base.withDroppedMessageWarningInterval(Duration.ofMillis(-1)));
    assertTrue(e.getMessage().contains("dropped-message-warning-interval"), e.getMessage());
    IllegalArgumentException n = assertThrows(IllegalArgumentException.class,
        () -> base.withDroppedMessageWarningInterval(null));
    assertEquals("ShardingSettings.withDroppedMessageWarningInterval: interval must not be null", n.getMessage());
  }

  @Test
  void emptyOrNullRoleMeansEveryNode() {
    assertEquals(Optional.empty(), defaults().withRole("backend").withRole("").role());
    assertEquals(Optional.empty(), defaults().withRole("backend").withRole(null).role());
  }

  @Test
  void withMethodsValidateToo() {
    ShardingSettings base = defaults();
    IllegalArgumentException n = assertThrows(IllegalArgumentException.class, () -> base.withNumberOfShards(0));
    assertTrue(n.getMessage().contains("number-of-shards"), n.getMessage());
    IllegalArgumentException b = assertThrows(IllegalArgumentException.class, () -> base.withBufferSize(-1));
    assertTrue(b.getMessage().contains("buffer-size"), b.getMessage());
    IllegalArgumentException r = assertThrows(IllegalArgumentException.class,
        () -> base.withRetryInterval(Duration.ZERO));
    assertTrue(r.getMessage().contains("retry-interval"), r.getMessage());
    IllegalArgumentException m = assertThrows(IllegalArgumentException.class, () -> base.withStateStoreMode(" "));
    assertTrue(m.getMessage().contains("state-store-mode"), m.getMessage());
    assertThrows(IllegalArgumentException.class, () -> base.withStateStoreMode(null));
    IllegalArgumentException t = assertThrows(IllegalArgumentException.class,
        () -> base.withCoordinatorSettleTimeout(Duration.ofMillis(-1)));
    assertTrue(t.getMessage().contains("coordinator-settle-timeout"), t.getMessage());
    IllegalArgumentException ri = assertThrows(IllegalArgumentException.class,
        () -> base.withRebalanceInterval(Duration.ZERO));
    assertTrue(ri.getMessage().contains("rebalance-interval"), ri.getMessage());
    IllegalArgumentException h = assertThrows(IllegalArgumentException.class,
        () -> base.withHandOffTimeout(Duration.ofSeconds(-1)));
    assertTrue(h.getMessage().contains("hand-off-timeout"), h.getMessage());
    assertEquals(Duration.ofSeconds(7), base.withHandOffTimeout(Duration.ofSeconds(7)).handOffTimeout());
    assertEquals(Duration.ofSeconds(2), base.withHandOffTimeout(Duration.ofSeconds(7)).rebalanceInterval());
    assertEquals(Duration.ofSeconds(60), base.withRebalanceInterval(Duration.ofSeconds(4)).handOffTimeout());
  }

  @Test
  void lifecycleDefaultsAreOff() {
    ShardingSettings s = defaults();
    assertEquals(Optional.empty(), s.passivationIdleTimeout());
    assertEquals(java.util.OptionalInt.empty(), s.passivationActiveEntityLimit());
    assertEquals(false, s.rememberEntities());
    assertEquals("ddata", s.rememberEntitiesStore());
    assertEquals(0, s.rememberEntitiesRecoveryBatch());
    assertEquals(Duration.ofSeconds(10), s.entityRestartBackoff());
    assertEquals(Duration.ofMinutes(2), s.entityRestartBackoffMax());
  }

  @Test
  void lifecycleValuesAreRead() {
    ShardingSettings s = withOverride("passivation { idle-timeout = 30s, active-entity-limit = 500 }, "
        + "remember-entities = on, remember-entities-store = persistence, "
        + "remember-entities-recovery { strategy = constant, constant-rate { frequency = 50ms, number-of-entities = 7 } }, "
        + "entity-restart-backoff = 1s, entity-restart-backoff-max = 4s");
    assertEquals(Optional.of(Duration.ofSeconds(30)), s.passivationIdleTimeout());
    assertEquals(java.util.OptionalInt.of(500), s.passivationActiveEntityLimit());
    assertTrue(s.rememberEntities());
    assertEquals("persistence", s.rememberEntitiesStore());
    assertEquals(7, s.rememberEntitiesRecoveryBatch());
    assertEquals(Duration.ofMillis(50), s.rememberEntitiesRecoveryFrequency());
    assertEquals(Duration.ofSeconds(1), s.entityRestartBackoff());
    assertEquals(Duration.ofSeconds(4), s.entityRestartBackoffMax());
    ShardingSettings changed = s.withPassivationIdleTimeout(null).withPassivationActiveEntityLimit(0).withRememberEntities(false);
    assertEquals(Optional.empty(), changed.passivationIdleTimeout());
    assertEquals(java.util.OptionalInt.empty(), changed.passivationActiveEntityLimit());
    assertEquals(false, changed.rememberEntities());
  }

  @Test
  void badLifecycleValuesAreRejectedByName() {
    assertRejected("passivation.idle-timeout = 0s", "passivation.idle-timeout");
    assertRejected("passivation.active-entity-limit = 0", "passivation.active-entity-limit");
    assertRejected("remember-entities-recovery.strategy = some", "remember-entities-recovery.strategy");
    assertRejected("remember-entities-recovery { strategy = constant, constant-rate.number-of-entities = 0 }",
        "number-of-entities");
    assertRejected("entity-restart-backoff = 5s, entity-restart-backoff-max = 1s", "entity-restart-backoff-max");
  }

  @Test
  void coordinatorPendingAnswersLimitHasADefaultIsReadAndIsValidated() {
    assertEquals(10000, defaults().coordinatorPendingAnswersLimit());
    assertEquals(5, defaults().withCoordinatorPendingAnswersLimit(5).coordinatorPendingAnswersLimit());
    assertRejected("coordinator-pending-answers-limit = 0", "coordinator-pending-answers-limit");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> defaults().withCoordinatorPendingAnswersLimit(0));
    assertTrue(e.getMessage().contains("coordinator-pending-answers-limit must be at least 1, got 0"), e.getMessage());
    Config without = reference().withoutPath("coordinator-pending-answers-limit");
    IllegalArgumentException missing = assertThrows(IllegalArgumentException.class,
        () -> ShardingSettings.fromConfig(without));
    assertTrue(missing.getMessage().contains("coordinator-pending-answers-limit"), missing.getMessage());
  }

  /** Sections of {@code shardkit.sharding} that are not settings of an entity type. */
  private static final Set<String> NOT_TYPE_SETTINGS = Set.of("state-store-providers", "state-store-artifacts",
      "remember-entities-store-providers", "delivery-gate", "entity-mailbox", "health-check",
      "telemetry");

  /** The keys read back otherwise than by a getter named after them, as the class's Javadoc says. */
  private static final Set<String> NAMED_OTHERWISE = Set.of("remember-entities-recovery",
      "least-shard-allocation-strategy");

  private static String camel(String key) {
    StringBuilder b = new StringBuilder();
    boolean upper = false;
    for (char c : key.toCharArray()) {
      if (c == '-' || c == '.') {
        upper = true;
      } else {
        b.append(upper ? Character.toUpperCase(c) : c);
        upper = false;
      }
    }
    return b.toString();
  }

  private static java.lang.reflect.Method getter(Class<?> type, String name) {
    try {
      return type.getMethod(name);
    } catch (NoSuchMethodException e) {
      return null;
    }
  }

  @Test
  void everySettingIsReadBackByAGetterNamedAfterItsKey() {
    Set<String> keys = new java.util.TreeSet<>();
    reference().entrySet().forEach(e -> keys.add(e.getKey()));
    List<String> unnamed = new java.util.ArrayList<>();
    int checked = 0;
    for (String key : keys) {
      String top = key.split("\\.")[0];
      if (NOT_TYPE_SETTINGS.contains(top) || NAMED_OTHERWISE.contains(top)) {
        continue;
      }
      checked++;
      if (getter(ShardingSettings.class, camel(key)) != null) {
        continue;
      }
      // A section read back as a settings object of its own: remote-delivery.resend-after is
      // remoteDelivery().resendAfter().
      java.lang.reflect.Method section = getter(ShardingSettings.class, camel(top));
      if (section != null && key.contains(".")
          && getter(section.getReturnType(), camel(key.substring(top.length() + 1))) != null) {
        continue;
      }
      unnamed.add(key + " (no " + camel(key) + "())");
    }
    assertTrue(checked >= 25, "keys checked: " + checked);
    assertEquals(List.of(), unnamed, "settings without a getter named after their key");
  }

  @Test
  void theCoordinatorsRandomFactorHasASetter() {
    ShardingSettings s = defaults().withCoordinatorFailureBackoff(Duration.ofSeconds(2), Duration.ofSeconds(20), 0.5);
    assertEquals(0.5, s.coordinatorFailureBackoffRandomFactor());
    assertEquals(Duration.ofSeconds(2), s.coordinatorFailureBackoffMin());
    assertEquals(Duration.ofSeconds(20), s.coordinatorFailureBackoffMax());
    assertEquals(0.2, defaults().withCoordinatorFailureBackoff(Duration.ofSeconds(2), Duration.ofSeconds(20))
        .coordinatorFailureBackoffRandomFactor(), "the two-argument setter keeps the configured factor");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> defaults().withCoordinatorFailureBackoff(Duration.ofSeconds(1), Duration.ofSeconds(2), 1.5));
    assertTrue(e.getMessage().contains("coordinator-failure-backoff.random-factor"), e.getMessage());
  }
}
