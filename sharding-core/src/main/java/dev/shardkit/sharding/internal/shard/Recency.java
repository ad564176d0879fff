package dev.shardkit.sharding.internal.shard;

import java.time.Duration;
import java.util.List;

/**
 * What automatic passivation knows of a shard's active entities: when each last got a message.
 * {@link EntityRecency} keeps it; {@link #OFF}, for a type without automatic passivation (no idle
 * timeout, no active-entity limit), keeps nothing, so that delivering to an entity costs no clock
 * read and no bookkeeping there. Times are a monotonic clock's nanoseconds, given by the caller.
 * Owned by one shard; not thread-safe.
 */
interface Recency {

  /** The entity got a message (or started) at {@code now}. */
  void touch(String entityId, long now);

  /** The entity is no longer active (it passivates or stopped). */
  void remove(String entityId);

  /** The entities that, at {@code now}, got no message for at least {@code idleNanos}, least recent first. */
  List<String> idle(long idleNanos, long now);

  /** The least recently used entities beyond the {@code keep} most recent ones, least recent first. */
  List<String> beyond(int keep);

  /**
   * How often a shard with idle timeout {@code idleTimeout} looks for idle entities: often enough
   * that an idle entity goes within a quarter of the timeout after it expired, never more often
   * than every 10 ms nor less often than every second.
   */
  static Duration checkInterval(Duration idleTimeout) {
    Duration quarter = idleTimeout.dividedBy(4);
    return quarter.compareTo(Duration.ofMillis(10)) < 0 ? Duration.ofMillis(10)
        : quarter.compareTo(Duration.ofSeconds(1)) > 0 ? Duration.ofSeconds(1) : quarter;
  }

  /** Automatic passivation is off: nothing is kept, and no entity is ever idle or beyond a limit. */
  Recency OFF = new Recency() {
    @Override
    public void touch(String entityId, long now) {}

    @Override
    public void remove(String entityId) {}

    @Override
    public List<String> idle(long idleNanos, long now) {
      return List.of();
    }

    @Override
    public List<String> beyond(int keep) {
      return List.of();
    }
  };
}
