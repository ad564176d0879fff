package dev.shardkit.sharding.internal.region;

import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * The other regions a region watches, and the last ones it saw terminate. A coordinator that has
 * not yet heard of a region's death may still name it as a shard's home; remembering the dead
 * keeps such an answer from being believed. The memory is bounded: the oldest deaths are
 * forgotten first. Owned by the region actor; not thread-safe.
 *
 * @param <R> what identifies a region (its actor ref: a region that starts again is another one)
 */
final class RegionWatch<R> {
  /** How many terminated regions are remembered. */
  static final int DEAD_REMEMBERED = 1024;

  private final Set<R> watched = new HashSet<>();
  /** Most recent death last. */
  private final LinkedHashSet<R> dead = new LinkedHashSet<>();

  /** @return true if {@code region} was not watched yet: the caller watches it now, once */
  boolean watch(R region) {
    return watched.add(region);
  }

  /** {@code region} terminated: no longer watched, and remembered as dead. */
  void terminated(R region) {
    watched.remove(region);
    dead.add(region);
    if (dead.size() > DEAD_REMEMBERED) {
      dead.remove(dead.iterator().next());
    }
  }

  /** True if {@code region} is among the last {@link #DEAD_REMEMBERED} seen terminated. */
  boolean isDead(R region) {
    return dead.contains(region);
  }
}
