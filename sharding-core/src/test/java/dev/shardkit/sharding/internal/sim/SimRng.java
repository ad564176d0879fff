package dev.shardkit.sharding.internal.sim;

import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The simulation's randomness: one stream per purpose, each derived from the seed and the
 * purpose's name, so that drawing more for one purpose (a new kind of fault, more traffic) does
 * not shift the draws of the others. The map is only looked up, never iterated.
 */
final class SimRng {
  private final long seed;
  private final Map<String, SplittableRandom> streams = new HashMap<>();

  SimRng(long seed) {
    this.seed = seed;
  }

  SplittableRandom stream(String purpose) {
    return streams.computeIfAbsent(purpose, p -> new SplittableRandom(mix(seed ^ mix(p.hashCode()))));
  }

  /** A duration drawn uniformly from [minMillis, maxMillis], in nanoseconds. */
  long millis(String purpose, double minMillis, double maxMillis) {
    return (long) ((minMillis + stream(purpose).nextDouble() * (maxMillis - minMillis)) * 1_000_000);
  }

  boolean chance(String purpose, double p) {
    return stream(purpose).nextDouble() < p;
  }

  int between(String purpose, int min, int maxInclusive) {
    return min + stream(purpose).nextInt(maxInclusive - min + 1);
  }

  private static long mix(long z) {
    z = (z ^ (z >>> 33)) * 0xff51afd7ed558ccdL;
    z = (z ^ (z >>> 33)) * 0xc4ceb9fe1a85ec53L;
    return z ^ (z >>> 33);
  }
}
