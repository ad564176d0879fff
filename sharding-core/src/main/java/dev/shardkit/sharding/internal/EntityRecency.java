package dev.shardkit.sharding.internal;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * When each of a shard's active entities last got a message, in least-recently-used order: what
 * automatic passivation needs to pick the entities that have been idle too long, and the least
 * recently used ones when there are too many. Owned by the shard actor; not thread-safe. The clock
 * ({@link System#nanoTime()} in the shard) is passed in so that tests control it.
 */
final class EntityRecency implements Recency {
  private final LongSupplier clock;
  // Access order: iteration runs from the least to the most recently used.
  private final LinkedHashMap<String, Long> lastUsed = new LinkedHashMap<>(16, 0.75f, true);

  public EntityRecency(LongSupplier clock) {
    this.clock = clock;
  }

  @Override
  public void touch(String entityId) {
    lastUsed.put(entityId, clock.getAsLong());
  }

  @Override
  public void remove(String entityId) {
    lastUsed.remove(entityId);
  }

  @Override
  public List<String> idle(long idleNanos) {
    long now = clock.getAsLong();
    List<String> idle = new ArrayList<>();
    for (Map.Entry<String, Long> e : lastUsed.entrySet()) {
      if (now - e.getValue() < idleNanos) {
        break; // Everything after is more recent.
      }
      idle.add(e.getKey());
    }
    return idle;
  }

  @Override
  public List<String> beyond(int keep) {
    List<String> excess = new ArrayList<>();
    Iterator<String> it = lastUsed.keySet().iterator();
    for (int n = lastUsed.size() - keep; n > 0 && it.hasNext(); n--) {
      excess.add(it.next());
    }
    return excess;
  }
}
