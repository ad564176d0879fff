package dev.shardkit.sharding;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * An immutable view of where shards live: every registered region (oldest first) and the shards
 * allocated to it. It is what a {@link ShardAllocationStrategy} decides over.
 */
public final class ShardAllocation {
  private final Map<RegionInfo, List<String>> shardsByRegion;
  private final Map<String, RegionInfo> homes;

  private ShardAllocation(Map<RegionInfo, List<String>> shardsByRegion) {
    this.shardsByRegion = shardsByRegion;
    Map<String, RegionInfo> h = new HashMap<>();
    shardsByRegion.forEach((region, shards) -> shards.forEach(s -> h.put(s, region)));
    this.homes = Collections.unmodifiableMap(h);
  }

  /**
   * Creates a view from regions and their shards.
   *
   * @throws IllegalArgumentException if a shard is listed under two regions
   */
  public static ShardAllocation of(Map<RegionInfo, ? extends List<String>> shardsByRegion) {
    List<RegionInfo> regions = new ArrayList<>(shardsByRegion.keySet());
    regions.sort(Comparator.comparingInt(RegionInfo::upNumber).thenComparing(r -> r.address().toString()));
    Map<RegionInfo, List<String>> copy = new LinkedHashMap<>();
    Map<String, RegionInfo> seen = new HashMap<>();
    for (RegionInfo region : regions) {
      List<String> shards = List.copyOf(shardsByRegion.get(region));
      for (String shard : shards) {
        RegionInfo previous = seen.put(shard, region);
        if (previous != null) {
          throw new IllegalArgumentException(previous.equals(region)
              ? "Shard [" + shard + "] is listed twice under region " + region.address()
              : "Shard [" + shard + "] is allocated to two regions: " + previous.address() + " and " + region.address());
        }
      }
      copy.put(region, shards);
    }
    return new ShardAllocation(Collections.unmodifiableMap(copy));
  }

  /** The regions, oldest first. */
  public List<RegionInfo> regions() {
    return List.copyOf(shardsByRegion.keySet());
  }

  /** Every region with its shards, oldest region first. */
  public Map<RegionInfo, List<String>> shardsByRegion() {
    return shardsByRegion;
  }

  /** The shards of a region; empty for an unknown region. */
  public List<String> shardsOf(RegionInfo region) {
    return shardsByRegion.getOrDefault(region, List.of());
  }

  /** The region a shard is allocated to, if any. */
  public Optional<RegionInfo> homeOf(String shardId) {
    return Optional.ofNullable(homes.get(shardId));
  }

  /** How many shards are allocated in total. */
  public int shardCount() {
    return homes.size();
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder("ShardAllocation{");
    shardsByRegion.forEach((r, s) -> sb.append(r.address()).append('=').append(s.size()).append(' '));
    return sb.append('}').toString();
  }
}
