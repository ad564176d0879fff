package dev.shardkit.sharding.persistence.internal;

import java.time.Duration;

/**
 * When a loaded coordinator's store writes a keep-alive ({@link CoordinatorKeepAlive}): once
 * {@code keep-alive-interval} has passed since its last write, and only while none of its writes
 * is in flight (a write in flight shows it alive once it lands, and a keep-alive beside it would
 * only add to a busy or unreachable database). Checked every half interval, so a running
 * coordinator writes at least every 1.5 intervals plus the time a write takes; a quiet period of
 * more than two intervals ({@code RemoveShardingData}) leaves room for that. Immutable.
 *
 * @param interval {@code shardkit.sharding.persistence.keep-alive-interval}
 */
record KeepAlivePace(Duration interval) {

  /** @throws IllegalArgumentException if {@code interval} is not positive */
  KeepAlivePace {
    if (interval == null || interval.isNegative() || interval.isZero()) {
      throw new IllegalArgumentException(PersistenceStoreSettings.PATH + ".keep-alive-interval must be positive, got "
          + interval);
    }
  }

  /** How often the store asks {@link #due}. */
  Duration checkEvery() {
    return interval.dividedBy(2);
  }

  /**
   * Whether to write a keep-alive now.
   *
   * @param sinceLastWrite the time since the store's last write was confirmed (or its load was)
   * @param writeInFlight whether a write of the store (the coordinator's, or a keep-alive) awaits
   *     its answer
   */
  boolean due(Duration sinceLastWrite, boolean writeInFlight) {
    return !writeInFlight && sinceLastWrite.compareTo(interval) >= 0;
  }
}
