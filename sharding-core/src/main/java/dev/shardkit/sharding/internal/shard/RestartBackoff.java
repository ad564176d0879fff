package dev.shardkit.sharding.internal.shard;

import dev.shardkit.sharding.internal.machine.Backoff;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * How long an entity that stopped without passivating waits before it starts again. The first
 * time it is {@code entity-restart-backoff}; each failure that follows soon after a restart
 * doubles it, up to {@code entity-restart-backoff-max} (a {@link Backoff}). A failure counts as
 * "in a row" when it comes within the maximum back-off of the previous restart
 * ({@link Backoff#continues}); an entity that then runs longer starts over from the first
 * back-off. Only entities that failed recently are kept, so a shard pays nothing for entities that
 * never fail. Times are {@link System#nanoTime()} values passed in, so tests control the clock.
 * Owned by the shard actor; not thread-safe.
 */
final class RestartBackoff {
  private record Failures(int inARow, long restartAt) {}

  /** Beyond this many remembered failures the ones long over are swept, so the map stays small. */
  private static final int SWEEP_ABOVE = 1024;

  private final Backoff backoff;
  private final Map<String, Failures> recent = new HashMap<>();

  public RestartBackoff(Duration first, Duration max) {
    this.backoff = new Backoff(first, max, 2);
  }

  /**
   * The entity stopped without passivating at {@code now}.
   *
   * @return how many times in a row it has done so, counting this one (at least 1)
   */
  public int failed(String entityId, long now) {
    if (recent.size() > SWEEP_ABOVE) {
      recent.values().removeIf(f -> !backoff.continues(f.restartAt(), now));
    }
    Failures before = recent.get(entityId);
    int inARow = before != null && backoff.continues(before.restartAt(), now) ? before.inARow() + 1 : 1;
    recent.put(entityId, new Failures(inARow, now + backoff.delayNanos(inARow)));
    return inARow;
  }

  /**
   * The back-off after the {@code n}-th failure in a row: the first back-off doubled {@code n-1}
   * times, at most the maximum; none for {@code n < 1}.
   */
  public Duration delay(int n) {
    return backoff.delay(n);
  }

  /** How many entities have failed recently enough to be remembered. */
  public int tracked() {
    return recent.size();
  }
}
