package dev.shardkit.sharding;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Consumer;
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
  private final Duration rebalanceInterval;
  private final Duration handOffTimeout;
  private final LeastShardAllocationStrategy leastShardAllocationStrategy;

  /** The mutable twin used to build a changed copy; each {@code with…} changes one field. */
  private static final class Builder {
    int numberOfShards;
    int bufferSize;
    Optional<String> role;
    Duration retryInterval;
    String stateStoreMode;
    Duration dropWarningInterval;
    Duration coordinatorSettleTimeout;
    Duration rebalanceInterval;
    Duration handOffTimeout;
    LeastShardAllocationStrategy leastShardAllocationStrategy;
  }

  private ShardingSettings(Builder b) {
    require(b.numberOfShards >= 1, "number-of-shards must be at least 1, got " + b.numberOfShards);
    require(b.bufferSize >= 0, "buffer-size must not be negative, got " + b.bufferSize);
    require(!b.retryInterval.isNegative() && !b.retryInterval.isZero(),
        "retry-interval must be positive, got " + b.retryInterval);
    require(b.stateStoreMode != null && !b.stateStoreMode.isBlank(), "state-store-mode must be set");
    require(!b.dropWarningInterval.isNegative(), "dropped-message-warning-interval must not be negative");
    require(!b.coordinatorSettleTimeout.isNegative(), "coordinator-settle-timeout must not be negative");
    require(!b.rebalanceInterval.isNegative() && !b.rebalanceInterval.isZero(),
        "rebalance-interval must be positive, got " + b.rebalanceInterval);
    require(!b.handOffTimeout.isNegative() && !b.handOffTimeout.isZero(),
        "hand-off-timeout must be positive, got " + b.handOffTimeout);
    this.numberOfShards = b.numberOfShards;
    this.bufferSize = b.bufferSize;
    this.role = b.role.filter(r -> !r.isEmpty());
    this.retryInterval = b.retryInterval;
    this.stateStoreMode = b.stateStoreMode;
    this.dropWarningInterval = b.dropWarningInterval;
    this.coordinatorSettleTimeout = b.coordinatorSettleTimeout;
    this.rebalanceInterval = b.rebalanceInterval;
    this.handOffTimeout = b.handOffTimeout;
    this.leastShardAllocationStrategy = b.leastShardAllocationStrategy;
  }

  private ShardingSettings with(Consumer<Builder> change) {
    Builder b = new Builder();
    b.numberOfShards = numberOfShards;
    b.bufferSize = bufferSize;
    b.role = role;
    b.retryInterval = retryInterval;
    b.stateStoreMode = stateStoreMode;
    b.dropWarningInterval = dropWarningInterval;
    b.coordinatorSettleTimeout = coordinatorSettleTimeout;
    b.rebalanceInterval = rebalanceInterval;
    b.handOffTimeout = handOffTimeout;
    b.leastShardAllocationStrategy = leastShardAllocationStrategy;
    change.accept(b);
    return new ShardingSettings(b);
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
      Builder b = new Builder();
      b.numberOfShards = c.getInt("number-of-shards");
      b.bufferSize = c.getInt("buffer-size");
      b.role = Optional.of(c.getString("role"));
      b.retryInterval = c.getDuration("retry-interval");
      b.stateStoreMode = c.getString("state-store-mode");
      b.dropWarningInterval = c.getDuration("dropped-message-warning-interval");
      b.coordinatorSettleTimeout = c.getDuration("coordinator-settle-timeout");
      b.rebalanceInterval = c.getDuration("rebalance-interval");
      b.handOffTimeout = c.getDuration("hand-off-timeout");
      try {
        b.leastShardAllocationStrategy = new LeastShardAllocationStrategy(least.getInt("rebalance-threshold"),
            least.getInt("rebalance-absolute-limit"), least.getDouble("rebalance-relative-limit"));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("shardkit.sharding.least-shard-allocation-strategy." + e.getMessage(), e);
      }
      return new ShardingSettings(b);
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

  /** Which {@code CoordinatorStateStore} keeps the coordinator's state (default {@code ddata}). */
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

  /**
   * How often the coordinator asks the allocation strategy which shards to move (default 2s). A
   * round that moved shards is followed at once by the next; idle rounds back off to eight times
   * this; a region joining resets it.
   */
  public Duration rebalanceInterval() {
    return rebalanceInterval;
  }

  /**
   * How long a hand-off may take before the coordinator gives it up and leaves the shard where it
   * is (default 60s); entities that take long to stop count against it.
   */
  public Duration handOffTimeout() {
    return handOffTimeout;
  }

  /**
   * The default allocation strategy, configured by {@code least-shard-allocation-strategy}
   * (an invalid value there fails {@link #fromConfig} naming the key).
   */
  public LeastShardAllocationStrategy leastShardAllocationStrategy() {
    return leastShardAllocationStrategy;
  }

  public ShardingSettings withNumberOfShards(int n) {
    return with(b -> b.numberOfShards = n);
  }

  public ShardingSettings withBufferSize(int size) {
    return with(b -> b.bufferSize = size);
  }

  /** Host entities only on nodes with this role; null or empty means every node. */
  public ShardingSettings withRole(String newRole) {
    return with(b -> b.role = Optional.ofNullable(newRole));
  }

  public ShardingSettings withRetryInterval(Duration interval) {
    return with(b -> b.retryInterval = interval);
  }

  public ShardingSettings withStateStoreMode(String mode) {
    return with(b -> b.stateStoreMode = mode);
  }

  public ShardingSettings withCoordinatorSettleTimeout(Duration timeout) {
    return with(b -> b.coordinatorSettleTimeout = timeout);
  }

  public ShardingSettings withRebalanceInterval(Duration interval) {
    return with(b -> b.rebalanceInterval = interval);
  }

  public ShardingSettings withHandOffTimeout(Duration timeout) {
    return with(b -> b.handOffTimeout = timeout);
  }

  @Override
  public String toString() {
    return "ShardingSettings(numberOfShards=" + numberOfShards + ", bufferSize=" + bufferSize + ", role=" + role
        + ", retryInterval=" + retryInterval + ", stateStoreMode=" + stateStoreMode + ")";
  }
}
