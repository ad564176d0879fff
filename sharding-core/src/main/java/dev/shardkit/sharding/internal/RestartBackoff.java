package dev.shardkit.sharding.internal;

import java.time.Duration;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;

/**
 * How long an entity that stopped without passivating waits before it starts again. The first
 * time it is {@code entity-restart-backoff}; each failure that follows soon after a restart
 * doubles it, up to {@code entity-restart-backoff-max}. A failure counts as "in a row" when it
 * comes within the maximum back-off of the previous restart; an entity that then runs longer
 * starts over from the first back-off. Only entities that failed recently are kept, so a shard
 * pays nothing for entities that never fail. Times are {@link System#nanoTime()} values passed in,
 * so tests control the clock. Owned by the shard actor; not thread-safe.
 */
final class RestartBackoff {
  private record Failures(int inARow, long restartAt) {}

  /** Beyond this many remembered failures the ones long over are swept, so the map stays small. */
  private static final int SWEEP_ABOVE = 1024;

  private final long firstNanos;
  private final long maxNanos;
  private final Map<String, Failures> recent = new HashMap<>();

  public RestartBackoff(Duration first, Duration max) {
    this.firstNanos = first.toNanos();
    this.maxNanos = max.toNanos();
  }

  /**
   * The entity stopped without passivating at {@code now}.
   *
   * @return how many times in a row it has done so, counting this one (at least 1)
   */
  public int failed(String entityId, long now) {
    if (recent.size() > SWEEP_ABOVE) {
      sweep(now);
    }
    Failures before = recent.get(entityId);
    int inARow = before != null && now - before.restartAt() <= maxNanos ? before.inARow() + 1 : 1;
    recent.put(entityId, new Failures(inARow, now + delayNanos(inARow)));
    return inARow;
  }

  /**
   * The back-off after the {@code n}-th failure in a row: the first back-off doubled {@code n-1}
   * times, at most the maximum; none for {@code n < 1}.
   */
  public Duration delay(int n) {
    return Duration.ofNanos(delayNanos(n));
  }

  private long delayNanos(int n) {
    if (n < 1) {
      return 0;
    }
    long d = firstNanos;
    for (int i = 1; i < n && d < maxNanos; i++) {
      d = d > maxNanos / 2 ? maxNanos : d * 2;
    }
    return Math.min(d, maxNanos);
  }

  /** How many entities have failed recently enough to be remembered. */
  public int tracked() {
    return recent.size();
  }

  private void sweep(long now) {
    for (Iterator<Failures> it = recent.values().iterator(); it.hasNext(); ) {
      if (now - it.next().restartAt() > maxNanos) {
        it.remove();
      }
    }
  }
}
