package dev.shardkit.sharding;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.Consumer;
import org.apache.pekko.actor.typed.ActorSystem;
import org.jspecify.annotations.Nullable;

import static dev.shardkit.sharding.internal.util.Arguments.requireNonNull;

/**
 * Settings of one entity type, read from {@code shardkit.sharding} (see {@code reference.conf} and
 * {@code docs/configuration.md}) and adjustable per type with the {@code with…} methods. Instances
 * are immutable.
 *
 * <p>Each getter is named after its key ({@code hand-off-timeout}: {@link #handOffTimeout()},
 * {@code passivation.active-entity-limit}: {@link #passivationActiveEntityLimit()}), and so is
 * each setter, with {@code with} in front. The exceptions: {@code remember-entities-recovery} is read
 * back as {@link #rememberEntitiesRecoveryBatch()} and {@link #rememberEntitiesRecoveryFrequency()},
 * and the {@code least-shard-allocation-strategy} section as one strategy,
 * {@link #leastShardAllocationStrategy()}, which has no setter (pass a strategy with
 * {@link Entity#withAllocationStrategy} instead).
 *
 * <p>Every {@code with…} method checks its value as {@link #fromConfig} checks the key's: an
 * out-of-range value, or null where the method does not say that null is allowed, fails with an
 * {@link IllegalArgumentException} naming the key or the argument.
 */
public final class ShardingSettings {
  /** Every value, in one place; never changed once this instance holds it. */
  private final Builder values;

  /**
   * The values of a settings instance, mutable only while one is being built: {@link #fromConfig}
   * fills a new one, each {@code with…} changes one value of a copy.
   */
  // Filled field by field: fromConfig sets every one before a ShardingSettings is made of it.
  @SuppressWarnings("NullAway.Init")
  private static final class Builder implements Cloneable {
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
    Optional<Duration> passivationIdleTimeout;
    OptionalInt activeEntityLimit;
    boolean rememberEntities;
    String rememberEntitiesStore;
    int recoveryBatch;
    Duration recoveryFrequency;
    Duration entityRestartBackoff;
    Duration entityRestartBackoffMax;
    Duration coordinatorFailureBackoffMin;
    Duration coordinatorFailureBackoffMax;
    double coordinatorFailureRandomFactor;
    boolean placeAllShardsAtStart;
    boolean tellUpFrontHomes;
    int coordinatorPendingAnswersLimit;
    int maxShards;
    RemoteDeliverySettings remoteDelivery;
    Optional<String> coordinatorLease;
    Duration coordinatorLeaseRetryInterval;

    Builder copy() {
      try {
        return (Builder) clone();
      } catch (CloneNotSupportedException e) {
        throw new AssertionError(e);
      }
    }
  }

  private ShardingSettings(Builder b) {
    require(b.numberOfShards >= 1, "number-of-shards must be at least 1, got " + b.numberOfShards);
    require(b.bufferSize >= 0, "buffer-size must not be negative, got " + b.bufferSize);
    require(b.maxShards >= 1, "max-shards must be at least 1, got " + b.maxShards);
    require(!b.retryInterval.isNegative() && !b.retryInterval.isZero(),
        "retry-interval must be positive, got " + b.retryInterval);
    require(b.stateStoreMode != null && !b.stateStoreMode.isBlank(), "state-store-mode must be set");
    require(!b.dropWarningInterval.isNegative(), "dropped-message-warning-interval must not be negative");
    require(!b.coordinatorSettleTimeout.isNegative(), "coordinator-settle-timeout must not be negative");
    require(!b.rebalanceInterval.isNegative() && !b.rebalanceInterval.isZero(),
        "rebalance-interval must be positive, got " + b.rebalanceInterval);
    require(!b.handOffTimeout.isNegative() && !b.handOffTimeout.isZero(),
        "hand-off-timeout must be positive, got " + b.handOffTimeout);
    require(b.coordinatorPendingAnswersLimit >= 1,
        "coordinator-pending-answers-limit must be at least 1, got " + b.coordinatorPendingAnswersLimit);
    require(b.passivationIdleTimeout.map(d -> !d.isNegative() && !d.isZero()).orElse(true),
        "passivation.idle-timeout must be positive or off, got " + b.passivationIdleTimeout.orElse(null));
    require(b.activeEntityLimit.orElse(1) >= 1,
        "passivation.active-entity-limit must be at least 1 or off, got " + b.activeEntityLimit);
    require(b.rememberEntitiesStore != null && !b.rememberEntitiesStore.isBlank(),
        "remember-entities-store must be set");
    require(b.recoveryBatch >= 0, "remember-entities-recovery.constant-rate.number-of-entities must be at least 1");
    require(!b.recoveryFrequency.isNegative() && !b.recoveryFrequency.isZero(),
        "remember-entities-recovery.constant-rate.frequency must be positive, got " + b.recoveryFrequency);
    require(!b.entityRestartBackoff.isNegative(), "entity-restart-backoff must not be negative");
    require(b.entityRestartBackoffMax.compareTo(b.entityRestartBackoff) >= 0,
        "entity-restart-backoff-max must not be below entity-restart-backoff, got " + b.entityRestartBackoffMax);
    require(!b.coordinatorFailureBackoffMin.isNegative() && !b.coordinatorFailureBackoffMin.isZero(),
        "coordinator-failure-backoff.min must be positive, got " + b.coordinatorFailureBackoffMin);
    require(b.coordinatorFailureBackoffMax.compareTo(b.coordinatorFailureBackoffMin) >= 0,
        "coordinator-failure-backoff.max must not be below its min, got " + b.coordinatorFailureBackoffMax);
    require(b.coordinatorFailureRandomFactor >= 0 && b.coordinatorFailureRandomFactor <= 1,
        "coordinator-failure-backoff.random-factor must be between 0 and 1, got " + b.coordinatorFailureRandomFactor);
    b.role = b.role.filter(r -> !r.isEmpty());
    java.util.Objects.requireNonNull(b.remoteDelivery, "remote-delivery");
    b.coordinatorLease = b.coordinatorLease.filter(path -> !path.isBlank());
    require(!b.coordinatorLeaseRetryInterval.isNegative() && !b.coordinatorLeaseRetryInterval.isZero(),
        "coordinator-lease-retry-interval must be positive, got " + b.coordinatorLeaseRetryInterval);
    this.values = b;
  }

  private ShardingSettings with(Consumer<Builder> change) {
    Builder b = values.copy();
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
    requireNonNull(system, "ShardingSettings.create", "system");
    return fromConfig(system.settings().config().getConfig("shardkit.sharding"));
  }

  /**
   * Settings from a config object shaped like {@code shardkit.sharding}.
   *
   * @throws IllegalArgumentException naming the key if a value is missing or out of range
   */
  public static ShardingSettings fromConfig(Config config) {
    requireNonNull(config, "ShardingSettings.fromConfig", "config");
    Config c = config;
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
      b.passivationIdleTimeout = isOff(c, "passivation.idle-timeout") ? Optional.empty()
          : Optional.of(c.getDuration("passivation.idle-timeout"));
      b.activeEntityLimit = isOff(c, "passivation.active-entity-limit") ? OptionalInt.empty()
          : OptionalInt.of(c.getInt("passivation.active-entity-limit"));
      b.rememberEntities = c.getBoolean("remember-entities");
      b.rememberEntitiesStore = c.getString("remember-entities-store");
      String strategy = c.getString("remember-entities-recovery.strategy");
      if (!strategy.equals("all") && !strategy.equals("constant")) {
        throw new IllegalArgumentException("shardkit.sharding.remember-entities-recovery.strategy must be all or "
            + "constant, got [" + strategy + "]");
      }
      int perTick = c.getInt("remember-entities-recovery.constant-rate.number-of-entities");
      b.recoveryBatch = strategy.equals("all") ? 0 : (perTick >= 1 ? perTick : -1);
      b.recoveryFrequency = c.getDuration("remember-entities-recovery.constant-rate.frequency");
      b.entityRestartBackoff = c.getDuration("entity-restart-backoff");
      b.entityRestartBackoffMax = c.getDuration("entity-restart-backoff-max");
      b.coordinatorFailureBackoffMin = c.getDuration("coordinator-failure-backoff.min");
      b.coordinatorFailureBackoffMax = c.getDuration("coordinator-failure-backoff.max");
      b.coordinatorFailureRandomFactor = c.getDouble("coordinator-failure-backoff.random-factor");
      b.placeAllShardsAtStart = c.getBoolean("place-all-shards-at-start");
      b.tellUpFrontHomes = c.getBoolean("tell-up-front-homes");
      b.coordinatorPendingAnswersLimit = c.getInt("coordinator-pending-answers-limit");
      b.maxShards = c.getInt("max-shards");
      b.remoteDelivery = RemoteDeliverySettings.fromConfig(c.getConfig("remote-delivery"));
      b.coordinatorLease = Optional.of(c.getString("coordinator-lease"));
      b.coordinatorLeaseRetryInterval = c.getDuration("coordinator-lease-retry-interval");
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

  /** A value given as {@code off} (or {@code false}) rather than a number or duration. */
  private static boolean isOff(Config c, String path) {
    com.typesafe.config.ConfigValue v = c.getValue(path);
    Object raw = v.unwrapped();
    return raw instanceof Boolean bool ? !bool : raw instanceof String str && str.equalsIgnoreCase("off");
  }

  /** How many shards the default extractor spreads entity ids over (default 1000). */
  public int numberOfShards() {
    return values.numberOfShards;
  }

  /**
   * How many messages a region holds for shards whose home is not known yet (default 100000);
   * beyond it messages go to dead letters with a rate-limited warning.
   */
  public int bufferSize() {
    return values.bufferSize;
  }

  /** The cluster role whose nodes host this type's entities; empty means every node. */
  public Optional<String> role() {
    return values.role;
  }

  /** How often a region repeats an unanswered registration or shard-home request (default 1s). */
  public Duration retryInterval() {
    return values.retryInterval;
  }

  /** Which {@code CoordinatorStateStore} keeps the coordinator's state (default {@code ddata}). */
  public String stateStoreMode() {
    return values.stateStoreMode;
  }

  /** At most one warning about dropped messages per interval per region (default 10s). */
  public Duration droppedMessageWarningInterval() {
    return values.dropWarningInterval;
  }

  /**
   * How long a newly started coordinator waits for the regions of all Up nodes to register (and
   * report the shards they host) before it allocates shards that have no home (default 3s).
   */
  public Duration coordinatorSettleTimeout() {
    return values.coordinatorSettleTimeout;
  }

  /**
   * How often the coordinator asks the allocation strategy which shards to move (default 2s). A
   * round that moved shards is followed at once by the next; idle rounds back off to eight times
   * this; a region joining resets it.
   */
  public Duration rebalanceInterval() {
    return values.rebalanceInterval;
  }

  /**
   * How long a hand-off may take before the coordinator gives it up and leaves the shard where it
   * is (default 60s); entities that take long to stop count against it.
   */
  public Duration handOffTimeout() {
    return values.handOffTimeout;
  }

  /**
   * The configuration path of the Pekko coordination lease the coordinator must hold to act (its
   * {@code lease-class} and settings, e.g. {@code pekko.coordination.lease.kubernetes}); empty
   * (the default) for none.
   */
  public Optional<String> coordinatorLease() {
    return values.coordinatorLease;
  }

  /** How soon a node asks again for the coordinator's lease it was refused (default 5s). */
  public Duration coordinatorLeaseRetryInterval() {
    return values.coordinatorLeaseRetryInterval;
  }

  /**
   * The coordinator acts only while it holds the lease configured at {@code configPath}, or
   * without one if it is null or empty; asked again every {@code retryInterval} while refused.
   *
   * @throws IllegalArgumentException if {@code retryInterval} is null or not positive
   */
  public ShardingSettings withCoordinatorLease(@Nullable String configPath, Duration retryInterval) {
    requireNonNull(retryInterval, "ShardingSettings.withCoordinatorLease", "retryInterval");
    return with(b -> {
      b.coordinatorLease = Optional.ofNullable(configPath);
      b.coordinatorLeaseRetryInterval = retryInterval;
    });
  }

  /**
   * The default allocation strategy, configured by {@code least-shard-allocation-strategy}
   * (an invalid value there fails {@link #fromConfig} naming the key).
   */
  public LeastShardAllocationStrategy leastShardAllocationStrategy() {
    return values.leastShardAllocationStrategy;
  }

  /** Passivate an entity after this long without a message; empty (the default) means never. */
  public Optional<Duration> passivationIdleTimeout() {
    return values.passivationIdleTimeout;
  }

  /**
   * At most this many live entities per region; a new one beyond it passivates the least recently
   * used. Empty (the default) means no limit.
   */
  public OptionalInt passivationActiveEntityLimit() {
    return values.activeEntityLimit;
  }

  /** Whether live entities are remembered and started again by themselves (default false). */
  public boolean rememberEntities() {
    return values.rememberEntities;
  }

  /** Which {@code RememberEntitiesStore} keeps the remembered entities (default {@code ddata}). */
  public String rememberEntitiesStore() {
    return values.rememberEntitiesStore;
  }

  /**
   * How many remembered entities a starting shard starts per {@link #rememberEntitiesRecoveryFrequency};
   * 0 (the default, strategy {@code all}) means all at once.
   */
  public int rememberEntitiesRecoveryBatch() {
    return values.recoveryBatch;
  }

  /** With a recovery batch: how often the next batch starts (default 100ms). */
  public Duration rememberEntitiesRecoveryFrequency() {
    return values.recoveryFrequency;
  }

  /**
   * How long an entity that stopped without passivating waits before it starts again (remembered
   * entities), and the first back-off of one that keeps failing (default 10s).
   */
  public Duration entityRestartBackoff() {
    return values.entityRestartBackoff;
  }

  /**
   * How long a coordinator that failed (one of its handlers threw) waits before it starts again
   * and reloads its state from the store (default 1s); it doubles for failures in a row.
   */
  public Duration coordinatorFailureBackoffMin() {
    return values.coordinatorFailureBackoffMin;
  }

  /** The longest wait before a coordinator that keeps failing starts again (default 30s). */
  public Duration coordinatorFailureBackoffMax() {
    return values.coordinatorFailureBackoffMax;
  }

  /** How much each coordinator restart back-off is stretched at random, up to this fraction (default 0.2). */
  public double coordinatorFailureBackoffRandomFactor() {
    return values.coordinatorFailureRandomFactor;
  }

  /** The longest back-off of an entity that keeps failing right after it starts (default 2m). */
  public Duration entityRestartBackoffMax() {
    return values.entityRestartBackoffMax;
  }

  /**
   * Whether the coordinator gives every shard a home as soon as it has settled, in one write,
   * when the shard ids are known in advance (the built-in extractors: {@code 0} to
   * {@code number-of-shards - 1}); then the first message to a shard only looks its home up and
   * never waits for a store write (default true). Shards are placed evenly over the regions
   * present; the first message still starts the shard; a region that joins later gets its share
   * of the shards not used yet at once, without hand-offs. Off: each shard is placed when its
   * first message needs it.
   */
  public boolean placeAllShardsAtStart() {
    return values.placeAllShardsAtStart;
  }

  /**
   * The most distinct shard ids the coordinator places for a type whose shard ids are not known in
   * advance (a custom extractor); a shard beyond it is refused with a warning, and regions drop and
   * count its messages (default 100000). Types with the built-in extractors refuse every id outside
   * {@code 0..n-1} instead.
   */
  public int maxShards() {
    return values.maxShards;
  }

  /** How messages travel to entities on other nodes: batching, flow control, resends. */
  public RemoteDeliverySettings remoteDelivery() {
    return values.remoteDelivery;
  }

  /** How messages travel to entities on other nodes ({@code remote-delivery}). */
  public ShardingSettings withRemoteDelivery(RemoteDeliverySettings delivery) {
    requireNonNull(delivery, "ShardingSettings.withRemoteDelivery", "delivery");
    return with(b -> b.remoteDelivery = delivery);
  }

  /**
   * How many answers to shard-home requests the coordinator keeps waiting for its state store to
   * hold the home, one per (shard, region) however often the region asks (default 10000); beyond
   * it requests are refused (the regions ask again) with one warning per episode.
   */
  public int coordinatorPendingAnswersLimit() {
    return values.coordinatorPendingAnswersLimit;
  }

  /** @throws IllegalArgumentException if {@code limit} is below 1 */
  public ShardingSettings withCoordinatorPendingAnswersLimit(int limit) {
    return with(b -> b.coordinatorPendingAnswersLimit = limit);
  }

  public ShardingSettings withPlaceAllShardsAtStart(boolean place) {
    return with(b -> b.placeAllShardsAtStart = place);
  }

  /**
   * Whether every region and proxy is told all the homes placed up front once they are stored (and
   * a region that registers later, the homes stored by then), so that a first message to a shard
   * goes straight to its home instead of asking the coordinator (default true). A region that
   * joins later gets its share of those shards nobody has started at once, by hand-offs that their
   * owners decline for shards they started (those move only by rebalancing). Off: regions ask for
   * each home when they first need it, and a joining region gets its share of the unused shards
   * without hand-offs. Ignored with the in-memory state store.
   */
  public boolean tellUpFrontHomes() {
    return values.tellUpFrontHomes;
  }

  public ShardingSettings withTellUpFrontHomes(boolean tell) {
    return with(b -> b.tellUpFrontHomes = tell);
  }

  /** Passivate entities idle for this long; null turns idle passivation off. */
  public ShardingSettings withPassivationIdleTimeout(@Nullable Duration timeout) {
    return with(b -> b.passivationIdleTimeout = Optional.ofNullable(timeout));
  }

  /** Keep at most this many live entities per region; 0 turns the limit off. */
  public ShardingSettings withPassivationActiveEntityLimit(int limit) {
    return with(b -> b.activeEntityLimit = limit == 0 ? OptionalInt.empty() : OptionalInt.of(limit));
  }

  public ShardingSettings withRememberEntities(boolean remember) {
    return with(b -> b.rememberEntities = remember);
  }

  public ShardingSettings withRememberEntitiesStore(String mode) {
    requireNonNull(mode, "ShardingSettings.withRememberEntitiesStore", "mode");
    return with(b -> b.rememberEntitiesStore = mode);
  }

  /** Start remembered entities {@code batch} at a time every {@code frequency}; batch 0 means all at once. */
  public ShardingSettings withRememberEntitiesRecovery(int batch, Duration frequency) {
    requireNonNull(frequency, "ShardingSettings.withRememberEntitiesRecovery", "frequency");
    return with(b -> {
      b.recoveryBatch = batch;
      b.recoveryFrequency = frequency;
    });
  }

  public ShardingSettings withEntityRestartBackoff(Duration backoff, Duration max) {
    requireNonNull(backoff, "ShardingSettings.withEntityRestartBackoff", "backoff");
    requireNonNull(max, "ShardingSettings.withEntityRestartBackoff", "max");
    return with(b -> {
      b.entityRestartBackoff = backoff;
      b.entityRestartBackoffMax = max;
    });
  }

  /**
   * How long a coordinator that failed waits before it starts again and reloads its state:
   * {@code min} after the first failure, doubling for failures in a row up to {@code max}
   * ({@code coordinator-failure-backoff}).
   */
  public ShardingSettings withCoordinatorFailureBackoff(Duration min, Duration max) {
    return withCoordinatorFailureBackoff(min, max, values.coordinatorFailureRandomFactor);
  }

  /**
   * Like {@link #withCoordinatorFailureBackoff(Duration, Duration)}, each back-off stretched at
   * random by up to {@code randomFactor} ({@code coordinator-failure-backoff.random-factor}, between 0
   * and 1).
   */
  public ShardingSettings withCoordinatorFailureBackoff(Duration min, Duration max, double randomFactor) {
    requireNonNull(min, "ShardingSettings.withCoordinatorFailureBackoff", "min");
    requireNonNull(max, "ShardingSettings.withCoordinatorFailureBackoff", "max");
    return with(b -> {
      b.coordinatorFailureBackoffMin = min;
      b.coordinatorFailureBackoffMax = max;
      b.coordinatorFailureRandomFactor = randomFactor;
    });
  }

  public ShardingSettings withNumberOfShards(int n) {
    return with(b -> b.numberOfShards = n);
  }

  /** @see #maxShards() */
  public ShardingSettings withMaxShards(int max) {
    return with(b -> b.maxShards = max);
  }

  public ShardingSettings withBufferSize(int size) {
    return with(b -> b.bufferSize = size);
  }

  /** Host entities only on nodes with this role; null or empty means every node. */
  public ShardingSettings withRole(@Nullable String newRole) {
    return with(b -> b.role = Optional.ofNullable(newRole));
  }

  public ShardingSettings withRetryInterval(Duration interval) {
    requireNonNull(interval, "ShardingSettings.withRetryInterval", "interval");
    return with(b -> b.retryInterval = interval);
  }

  public ShardingSettings withStateStoreMode(String mode) {
    requireNonNull(mode, "ShardingSettings.withStateStoreMode", "mode");
    return with(b -> b.stateStoreMode = mode);
  }

  public ShardingSettings withCoordinatorSettleTimeout(Duration timeout) {
    requireNonNull(timeout, "ShardingSettings.withCoordinatorSettleTimeout", "timeout");
    return with(b -> b.coordinatorSettleTimeout = timeout);
  }

  public ShardingSettings withRebalanceInterval(Duration interval) {
    requireNonNull(interval, "ShardingSettings.withRebalanceInterval", "interval");
    return with(b -> b.rebalanceInterval = interval);
  }

  public ShardingSettings withHandOffTimeout(Duration timeout) {
    requireNonNull(timeout, "ShardingSettings.withHandOffTimeout", "timeout");
    return with(b -> b.handOffTimeout = timeout);
  }

  /**
   * At most one warning about dropped messages per region (and per shard) in this interval
   * ({@code dropped-message-warning-interval}); {@link Duration#ZERO} warns about every drop.
   *
   * @throws IllegalArgumentException if the interval is null or negative
   */
  public ShardingSettings withDroppedMessageWarningInterval(Duration interval) {
    requireNonNull(interval, "ShardingSettings.withDroppedMessageWarningInterval", "interval");
    return with(b -> b.dropWarningInterval = interval);
  }

  @Override
  public String toString() {
    return "ShardingSettings(numberOfShards=" + values.numberOfShards + ", bufferSize=" + values.bufferSize
        + ", role=" + values.role + ", retryInterval=" + values.retryInterval + ", stateStoreMode=" + values.stateStoreMode + ")";
  }
}
