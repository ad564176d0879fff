package dev.shardkit.sharding.internal.coordinator;

import java.time.Duration;

/**
 * When a coordinator whose handler threw starts again ({@code coordinator-failure-backoff}): after
 * the first back-off, doubling for each failure in a row up to the maximum, each stretched by a
 * random part of up to the random factor; failures count as in a row until the coordinator has
 * run for half-way between the minimum and the maximum without failing (as Pekko's back-off
 * supervisor counts them). The new incarnation reloads its state from the same store, so what the
 * failed one knew only in memory is gone; regions ask again. Deterministic: the time and the
 * random draw are given. Owned by the coordinator's actor; not thread-safe.
 */
final class CoordinatorSupervision {
  private final Duration min;
  private final Duration max;
  private final double randomFactor;
  private final long resetAfterNanos;
  private int failuresInARow;
  private long restartedAt;

  CoordinatorSupervision(Duration min, Duration max, double randomFactor) {
    this.min = min;
    this.max = max;
    this.randomFactor = randomFactor;
    this.resetAfterNanos = min.plus(max).toNanos() / 2;
  }

  /**
   * A handler threw at {@code now}.
   *
   * @param random a draw in [0, 1)
   * @return how long to wait before the next incarnation starts
   */
  Duration failed(long now, double random) {
    if (failuresInARow > 0 && now - restartedAt >= resetAfterNanos) {
      failuresInARow = 0;
    }
    double scaled = min.toNanos() * Math.pow(2, failuresInARow);
    long base = scaled >= max.toNanos() ? max.toNanos() : (long) scaled;
    failuresInARow++;
    return Duration.ofNanos((long) (base * (1 + random * randomFactor)));
  }

  /** The next incarnation started at {@code now}. */
  void restarted(long now) {
    restartedAt = now;
  }

  /** The failures counted as in a row. */
  int failuresInARow() {
    return failuresInARow;
  }
}
