package dev.shardkit.sharding.internal;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * When each of a shard's active entities last got a message, in least-recently-used order: what
 * automatic passivation needs to pick the entities that have been idle too long, and the least
 * recently used ones when there are too many. Owned by the shard actor; not thread-safe. Times are
 * {@link System#nanoTime()} values, passed in so that tests control the clock.
 */
final class EntityRecency {
  // Access order: iteration runs from the least to the most recently used.
  private final LinkedHashMap<String, Long> lastUsed = new LinkedHashMap<>(16, 0.75f, true);

  /** The entity got a message (or started) at {@code nanos}. */
  public void touch(String entityId, long nanos) {
    lastUsed.put(entityId, nanos);
  }

  /** The entity is no longer active (it passivates or stopped). */
  public void remove(String entityId) {
    lastUsed.remove(entityId);
  }

  public int size() {
    return lastUsed.size();
  }

  /** The entities whose last message is at least {@code idleNanos} old at {@code now}, least recent first. */
  public List<String> idle(long now, long idleNanos) {
    List<String> idle = new ArrayList<>();
    for (Map.Entry<String, Long> e : lastUsed.entrySet()) {
      if (now - e.getValue() < idleNanos) {
        break; // Everything after is more recent.
      }
      idle.add(e.getKey());
    }
    return idle;
  }

  /** The least recently used entities beyond the {@code limit} most recent ones, least recent first. */
  public List<String> beyond(int limit) {
    List<String> excess = new ArrayList<>();
    Iterator<String> it = lastUsed.keySet().iterator();
    for (int n = lastUsed.size() - limit; n > 0 && it.hasNext(); n--) {
      excess.add(it.next());
    }
    return excess;
  }
}
