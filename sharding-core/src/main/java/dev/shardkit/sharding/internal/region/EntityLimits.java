package dev.shardkit.sharding.internal.region;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * Splits a region's active-entity limit over the shards it hosts, so that the region never has
 * more live entities than the limit, even while shards come and go: a shard whose share shrinks
 * is assumed to keep its old share until it reports that it has passivated down to the new one,
 * and only then is the freed room granted to other shards. Shares are as even as the limit
 * allows; when a region hosts more shards than the limit, each shard still gets one, and then
 * the limit is exceeded by those extra shards. Owned by the region actor; not thread-safe.
 */
final class EntityLimits {
  private final int regionLimit;
  // Sorted so that the shards that get the remainder are the same ones every time.
  private final TreeMap<String, Integer> granted = new TreeMap<>();
  // Shards known or assumed to have more live entities than they are granted now.
  private final Map<String, Integer> over = new HashMap<>();

  /** @throws IllegalArgumentException if the limit is below 1 */
  public EntityLimits(int regionLimit) {
    if (regionLimit < 1) {
      throw new IllegalArgumentException("active-entity limit must be at least 1, got " + regionLimit);
    }
    this.regionLimit = regionLimit;
  }

  /**
   * A shard started in the region.
   *
   * @return the shards whose limit changed, with their new limits (the new shard among them)
   */
  public Map<String, Integer> added(String shardId) {
    granted.putIfAbsent(shardId, 0);
    return regrant(shardId);
  }

  /**
   * A shard stopped; its entities are gone.
   *
   * @return the shards whose limit changed, with their new limits
   */
  public Map<String, Integer> removed(String shardId) {
    granted.remove(shardId);
    over.remove(shardId);
    return regrant(null);
  }

  /**
   * A shard reports how many live entities (active or passivating) it has now.
   *
   * @return the shards whose limit changed, with their new limits
   */
  public Map<String, Integer> reported(String shardId, int live) {
    Integer limit = granted.get(shardId);
    if (limit == null) {
      return Map.of();
    }
    if (live > limit) {
      over.put(shardId, live);
    } else {
      over.remove(shardId);
    }
    return regrant(null);
  }

  /** The limit a shard has now; 0 if it is not known. */
  public int granted(String shardId) {
    return granted.getOrDefault(shardId, 0);
  }

  /** The most live entities the region's shards may have now, over all of them. */
  public int inUse() {
    return granted.keySet().stream().mapToInt(this::usage).sum();
  }

  private int usage(String shardId) {
    return Math.max(granted.get(shardId), over.getOrDefault(shardId, 0));
  }

  private Map<String, Integer> regrant(String mustReport) {
    Map<String, Integer> changes = new LinkedHashMap<>();
    Map<String, Integer> targets = targets();
    // Shrink first: those shards keep their old share (as "over") until they report otherwise.
    targets.forEach((shard, target) -> {
      int now = granted.get(shard);
      if (target < now) {
        over.merge(shard, now, Math::max);
        granted.put(shard, target);
        changes.put(shard, target);
      }
    });
    int free = regionLimit - inUse();
    for (Map.Entry<String, Integer> e : targets.entrySet()) {
      String shard = e.getKey();
      int now = granted.get(shard);
      int grow = Math.min(e.getValue() - now, Math.max(free, 0));
      // With more shards than the limit, a shard given nothing could never start an entity: it
      // gets one even over the limit. Otherwise it waits for room, which shrinking shards free.
      if (now == 0 && grow == 0 && granted.size() > regionLimit) {
        grow = 1;
      }
      if (grow > 0) {
        granted.put(shard, now + grow);
        free -= grow;
        if (over.getOrDefault(shard, 0) <= now + grow) {
          over.remove(shard);
        }
        changes.put(shard, now + grow);
      }
    }
    if (mustReport != null) {
      changes.putIfAbsent(mustReport, granted.get(mustReport));
    }
    return changes;
  }

  private Map<String, Integer> targets() {
    int n = granted.size();
    Map<String, Integer> targets = new LinkedHashMap<>();
    int i = 0;
    for (String shard : granted.keySet()) {
      int share = regionLimit / n + (i++ < regionLimit % n ? 1 : 0);
      targets.put(shard, Math.max(1, share));
    }
    return targets;
  }
}
