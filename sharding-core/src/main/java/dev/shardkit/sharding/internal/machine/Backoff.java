package dev.shardkit.sharding.internal.machine;

import dev.shardkit.sharding.internal.InternalApi;
import java.time.Duration;

/**
 * How long to wait before trying again after failures in a row: {@code first} after the first
 * failure, multiplied by {@code factor} for each further one, never more than {@code max}. The one
 * back-off of shardkit's retries (a shard's remember-entities store, an entity's restarts, the
 * coordinator's state store), so they all grow and cap the same way. Immutable and thread-safe;
 * what it counts is kept by its users, in a {@link Retries} or, for a run that ends by itself
 * after a quiet period, by the caller (see {@link #continues}).
 */
@InternalApi
public final class Backoff {
  private final long firstNanos;
  private final long maxNanos;
  private final double factor;

  /**
   * @param first the wait after the first failure; zero retries at once, every time
   * @param max the longest wait; not below {@code first}
   * @param factor how much each further failure in a row multiplies the wait; at least 1
   * @throws IllegalArgumentException if a bound is negative, {@code max < first} or {@code factor < 1}
   */
  public Backoff(Duration first, Duration max, double factor) {
    if (first.isNegative() || max.compareTo(first) < 0 || !(factor >= 1)) {
      throw new IllegalArgumentException("a back-off needs 0 <= first <= max and factor >= 1, got first " + first
          + ", max " + max + ", factor " + factor);
    }
    this.firstNanos = first.toNanos();
    this.maxNanos = max.toNanos();
    this.factor = factor;
  }

  /**
   * The wait after the {@code n}-th failure in a row: {@code first * factor^(n-1)}, at most
   * {@code max}; zero for {@code n < 1} (nothing failed).
   */
  public Duration delay(int n) {
    return Duration.ofNanos(delayNanos(n));
  }

  /** {@link #delay} in nanoseconds. */
  public long delayNanos(int n) {
    if (n < 1) {
      return 0;
    }
    // In double, so that a large n saturates at max instead of overflowing.
    double d = firstNanos * Math.pow(factor, n - 1);
    return d >= maxNanos ? maxNanos : (long) d;
  }

  /**
   * Whether a failure at {@code now} continues the run of failures whose last retry was due at
   * {@code retryAt} (both {@link System#nanoTime()} values): it does unless the operation has run
   * longer than the longest wait since. So an operation that fails in a loop keeps backing off,
   * and one that has been healthy for a while starts over from {@code first}.
   */
  public boolean continues(long retryAt, long now) {
    return now - retryAt <= maxNanos;
  }

  /** A fresh count of failures in a row, for one operation that is retried until it succeeds. */
  public Retries retries() {
    return new Retries();
  }

  /**
   * The failures in a row of one operation (a load, a write): each failure gives the wait before
   * the next try, a success starts the count over. Owned by one actor; not thread-safe.
   */
  public final class Retries {
    private int failures;

    private Retries() {}

    /** The operation failed once more: how long to wait before trying it again. */
    public Duration failed() {
      return delay(++failures);
    }

    /** The operation succeeded: the next failure waits {@code first} again. */
    public void succeeded() {
      failures = 0;
    }

    /** How many times in a row it has failed. */
    public int failures() {
      return failures;
    }
  }
}
