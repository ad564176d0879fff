package dev.shardkit.sharding;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The default strategy: a new shard goes to the region with the fewest shards (the requester wins
 * a tie, which saves a hop; then the oldest region), and a rebalance round moves shards from the
 * regions with the most to those with the fewest until no two regions differ by more than the
 * threshold.
 *
 * <p>One round moves at most {@code min(absoluteLimit, max(1, relativeLimit × total shards))}
 * shards, one at a time from the richest region to the poorest; since a move needs a difference
 * above the threshold (at least 1), a region either gives or receives in a round, never both.
 */
public final class LeastShardAllocationStrategy implements ShardAllocationStrategy {
  private final int rebalanceThreshold;
  private final int absoluteLimit;
  private final double relativeLimit;

  /** The strategy with the defaults of {@code shardkit.sharding.least-shard-allocation-strategy}. */
  public LeastShardAllocationStrategy() {
    this(1, 20, 0.1);
  }

  /**
   * @param rebalanceThreshold how many more shards than the least loaded region a region may hold
   *     before shards move from it (at least 1)
   * @param absoluteLimit the most shards moved in one round (at least 1)
   * @param relativeLimit the most shards moved in one round as a fraction of all shards (above 0)
   * @throws IllegalArgumentException if a limit is out of range
   */
  public LeastShardAllocationStrategy(int rebalanceThreshold, int absoluteLimit, double relativeLimit) {
    if (rebalanceThreshold < 1) {
      throw new IllegalArgumentException("rebalance-threshold must be at least 1, got " + rebalanceThreshold);
    }
    if (absoluteLimit < 1) {
      throw new IllegalArgumentException("rebalance-absolute-limit must be at least 1, got " + absoluteLimit);
    }
    if (!(relativeLimit > 0.0)) {
      throw new IllegalArgumentException("rebalance-relative-limit must be above 0, got " + relativeLimit);
    }
    this.rebalanceThreshold = rebalanceThreshold;
    this.absoluteLimit = absoluteLimit;
    this.relativeLimit = relativeLimit;
  }

  @Override
  public RegionInfo allocateShard(RegionInfo requester, String shardId, ShardAllocation allocation) {
    RegionInfo best = null;
    int bestCount = Integer.MAX_VALUE;
    // regions() is oldest first, so the strict '<' keeps the oldest among equals.
    for (RegionInfo region : allocation.regions()) {
      int count = allocation.shardsOf(region).size();
      if (count < bestCount) {
        best = region;
        bestCount = count;
      }
    }
    if (best == null) {
      throw new IllegalArgumentException("No region to allocate shard [" + shardId + "] to");
    }
    if (allocation.shardsByRegion().containsKey(requester) && allocation.shardsOf(requester).size() == bestCount) {
      return requester;
    }
    return best;
  }

  /**
   * The choices of {@link #allocateShard} for each shard in turn, made over one count per region
   * instead of a fresh view per shard: O(shards × regions) with no allocation per shard.
   */
  @Override
  public List<RegionInfo> allocateShards(RegionInfo requester, List<String> shardIds, ShardAllocation allocation) {
    List<RegionInfo> regions = allocation.regions();
    if (regions.isEmpty()) {
      throw new IllegalArgumentException("No region to allocate shards " + shardIds + " to");
    }
    int[] counts = new int[regions.size()];
    for (int i = 0; i < counts.length; i++) {
      counts[i] = allocation.shardsOf(regions.get(i)).size();
    }
    // The region the requester is, if any: it wins a tie for the fewest, as in allocateShard.
    int own = regions.indexOf(requester);
    List<RegionInfo> homes = new ArrayList<>(shardIds.size());
    for (int s = 0; s < shardIds.size(); s++) {
      int best = 0;
      for (int i = 1; i < counts.length; i++) {
        if (counts[i] < counts[best]) {
          best = i;
        }
      }
      if (own >= 0 && counts[own] == counts[best]) {
        best = own;
      }
      counts[best]++;
      homes.add(regions.get(best));
    }
    return homes;
  }

  @Override
  public Set<String> rebalance(ShardAllocation allocation, Set<String> rebalanceInProgress) {
    List<RegionInfo> regions = allocation.regions();
    if (regions.size() < 2) {
      return Set.of();
    }
    int limit = Math.min(absoluteLimit, Math.max(1, (int) (relativeLimit * allocation.shardCount())));
    int[] counts = new int[regions.size()];
    for (int i = 0; i < counts.length; i++) {
      counts[i] = allocation.shardsOf(regions.get(i)).size();
    }
    Set<String> chosen = new LinkedHashSet<>();
    while (chosen.size() < limit) {
      // The first (oldest) of the richest and of the poorest, as regions() is oldest first.
      int richest = 0;
      int poorest = 0;
      for (int i = 1; i < counts.length; i++) {
        if (counts[i] > counts[richest]) {
          richest = i;
        }
        if (counts[i] < counts[poorest]) {
          poorest = i;
        }
      }
      if (richest == poorest || counts[richest] - counts[poorest] <= rebalanceThreshold) {
        break;
      }
      String shard = nextMovable(allocation.shardsOf(regions.get(richest)), rebalanceInProgress, chosen);
      if (shard == null) {
        break;
      }
      chosen.add(shard);
      counts[richest]--;
      counts[poorest]++;
    }
    return chosen;
  }

  // The most recently allocated shards move first: they are the least likely to be warm.
  private static @Nullable String nextMovable(List<String> shards, Set<String> inProgress, Set<String> chosen) {
    for (int i = shards.size() - 1; i >= 0; i--) {
      String s = shards.get(i);
      if (!inProgress.contains(s) && !chosen.contains(s)) {
        return s;
      }
    }
    return null;
  }

  @Override
  public String toString() {
    return "LeastShardAllocationStrategy(threshold=" + rebalanceThreshold + ", absoluteLimit=" + absoluteLimit
        + ", relativeLimit=" + relativeLimit + ")";
  }
}
