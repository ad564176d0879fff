package dev.shardkit.sharding.internal.shard;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * When each of a shard's active entities last got a message, in least-recently-used order: what
 * automatic passivation needs to pick the entities that have been idle too long, and the least
 * recently used ones when there are too many. Owned by one shard; not thread-safe. It
 * reads no clock: each call that needs the time is given it.
 */
final class EntityRecency implements Recency {
  /** When an entity last got a message; updated in place, so that a delivery allocates nothing. */
  private static final class LastUsed {
    long at;

    LastUsed(long at) {
      this.at = at;
    }
  }

  // Access order: iteration runs from the least to the most recently used.
  private final LinkedHashMap<String, LastUsed> lastUsed = new LinkedHashMap<>(16, 0.75f, true);

  @Override
  public void touch(String entityId, long now) {
    LastUsed last = lastUsed.get(entityId); // moves it to the most recently used end
    if (last == null) {
      lastUsed.put(entityId, new LastUsed(now));
    } else {
      last.at = now;
    }
  }

  @Override
  public void remove(String entityId) {
    lastUsed.remove(entityId);
  }

  @Override
  public List<String> idle(long idleNanos, long now) {
    List<String> idle = new ArrayList<>();
    for (Map.Entry<String, LastUsed> e : lastUsed.entrySet()) {
      if (now - e.getValue().at < idleNanos) {
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
