package dev.shardkit.sharding;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import java.time.Duration;
import java.util.Optional;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * Settings of one entity type, read from {@code shardkit.sharding} (see {@code reference.conf} and
 * {@code docs/configuration.md}) and adjustable per type with the {@code with…} methods. Instances
 * are immutable.
 */
public final class ShardingSettings {
  private final int numberOfShards;
  private final int bufferSize;
  private final Optional<String> role;
  private final Duration retryInterval;
  private final String stateStoreMode;
  private final Duration dropWarningInterval;
  private final Duration coordinatorSettleTimeout;
  private final int rebalanceThreshold;
  private final int rebalanceAbsoluteLimit;
  private final double rebalanceRelativeLimit;

  private ShardingSettings(int numberOfShards, int bufferSize, Optional<String> role, Duration retryInterval,
      String stateStoreMode, Duration dropWarningInterval, Duration coordinatorSettleTimeout, int rebalanceThreshold,
      int rebalanceAbsoluteLimit, double rebalanceRelativeLimit) {
    require(numberOfShards >= 1, "number-of-shards must be at least 1, got " + numberOfShards);
    require(bufferSize >= 0, "buffer-size must not be negative, got " + bufferSize);
    require(!retryInterval.isNegative() && !retryInterval.isZero(), "retry-interval must be positive, got " + retryInterval);
    require(stateStoreMode != null && !stateStoreMode.isBlank(), "state-store-mode must be set");
    require(!dropWarningInterval.isNegative(), "dropped-message-warning-interval must not be negative");
    require(!coordinatorSettleTimeout.isNegative(), "coordinator-settle-timeout must not be negative");
    this.numberOfShards = numberOfShards;
    this.bufferSize = bufferSize;
    this.role = role.filter(r -> !r.isEmpty());
    this.retryInterval = retryInterval;
    this.stateStoreMode = stateStoreMode;
    this.dropWarningInterval = dropWarningInterval;
    this.coordinatorSettleTimeout = coordinatorSettleTimeout;
    this.rebalanceThreshold = rebalanceThreshold;
    this.rebalanceAbsoluteLimit = rebalanceAbsoluteLimit;
    this.rebalanceRelativeLimit = rebalanceRelativeLimit;
  }

  private static void require(boolean ok, String message) {
    if (!ok) {
      throw new IllegalArgumentException("shardkit.sharding." + message);
    }
  }

  /**
   * The settings under {@code shardkit.sharding} of the system's configuration.
   *
   * @throws IllegalArgumentException naming the key if a value is missing or out of range
   */
  public static ShardingSettings create(ActorSystem<?> system) {
    return fromConfig(system.settings().config().getConfig("shardkit.sharding"));
  }

  /**
   * Settings from a config object shaped like {@code shardkit.sharding}.
   *
   * @throws IllegalArgumentException naming the key if a value is missing or out of range
   */
  public static ShardingSettings fromConfig(Config c) {
    try {
      Config least = c.getConfig("least-shard-allocation-strategy");
      return new ShardingSettings(
          c.getInt("number-of-shards"),
          c.getInt("buffer-size"),
          Optional.of(c.getString("role")),
          c.getDuration("retry-interval"),
          c.getString("state-store-mode"),
          c.getDuration("dropped-message-warning-interval"),
          c.getDuration("coordinator-settle-timeout"),
          least.getInt("rebalance-threshold"),
          least.getInt("rebalance-absolute-limit"),
          least.getDouble("rebalance-relative-limit"));
    } catch (ConfigException e) {
      throw new IllegalArgumentException("Invalid shardkit.sharding configuration: " + e.getMessage(), e);
    }
  }

  /** How many shards the default extractor spreads entity ids over (default 1000). */
  public int numberOfShards() {
    return numberOfShards;
  }

  /**
   * How many messages a region holds for shards whose home is not known yet (default 100000);
   * beyond it messages go to dead letters with a rate-limited warning.
   */
  public int bufferSize() {
    return bufferSize;
  }

  /** The cluster role whose nodes host this type's entities; empty means every node. */
  public Optional<String> role() {
    return role;
  }

  /** How often a region repeats an unanswered registration or shard-home request (default 1s). */
  public Duration retryInterval() {
    return retryInterval;
  }

  /** Which {@code CoordinatorStateStore} keeps the coordinator's state (default {@code memory}). */
  public String stateStoreMode() {
    return stateStoreMode;
  }

  /** At most one warning about dropped messages per interval per region (default 10s). */
  public Duration dropWarningInterval() {
    return dropWarningInterval;
  }

  /**
   * How long a newly started coordinator waits for the regions of all Up nodes to register (and
   * report the shards they host) before it allocates shards that have no home (default 3s).
   */
  public Duration coordinatorSettleTimeout() {
    return coordinatorSettleTimeout;
  }

  /** The default allocation strategy configured by {@code least-shard-allocation-strategy}. */
  public LeastShardAllocationStrategy leastShardAllocationStrategy() {
    return new LeastShardAllocationStrategy(rebalanceThreshold, rebalanceAbsoluteLimit, rebalanceRelativeLimit);
  }

  public ShardingSettings withNumberOfShards(int n) {
    return new ShardingSettings(n, bufferSize, role, retryInterval, stateStoreMode, dropWarningInterval, coordinatorSettleTimeout,
        rebalanceThreshold, rebalanceAbsoluteLimit, rebalanceRelativeLimit);
  }

  public ShardingSettings withBufferSize(int size) {
    return new ShardingSettings(numberOfShards, size, role, retryInterval, stateStoreMode, dropWarningInterval, coordinatorSettleTimeout,
        rebalanceThreshold, rebalanceAbsoluteLimit, rebalanceRelativeLimit);
  }

  public ShardingSettings withRole(String newRole) {
    return new ShardingSettings(numberOfShards, bufferSize, Optional.ofNullable(newRole), retryInterval, stateStoreMode,
        dropWarningInterval, coordinatorSettleTimeout, rebalanceThreshold, rebalanceAbsoluteLimit, rebalanceRelativeLimit);
  }

  public ShardingSettings withRetryInterval(Duration interval) {
    return new ShardingSettings(numberOfShards, bufferSize, role, interval, stateStoreMode, dropWarningInterval, coordinatorSettleTimeout,
        rebalanceThreshold, rebalanceAbsoluteLimit, rebalanceRelativeLimit);
  }

  public ShardingSettings withStateStoreMode(String mode) {
    return new ShardingSettings(numberOfShards, bufferSize, role, retryInterval, mode, dropWarningInterval, coordinatorSettleTimeout,
        rebalanceThreshold, rebalanceAbsoluteLimit, rebalanceRelativeLimit);
  }

  @Override
  public String toString() {
    return "ShardingSettings(numberOfShards=" + numberOfShards + ", bufferSize=" + bufferSize + ", role=" + role
        + ", retryInterval=" + retryInterval + ", stateStoreMode=" + stateStoreMode + ")";
  }
}
