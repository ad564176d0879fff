package dev.shardkit.sharding;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * An immutable view of where shards live: every registered region (oldest first) and the shards
 * allocated to it. It is what a {@link ShardAllocationStrategy} decides over.
 */
public final class ShardAllocation {
  private final Map<RegionInfo, List<String>> shardsByRegion;
  /**
   * Built when first asked for: a coordinator builds a view for every shard it places, and most
   * strategies only count each region's shards, so indexing every shard each time would make
   * placing n shards cost O(n²).
   */
  private volatile @Nullable Map<String, RegionInfo> homes;

  private ShardAllocation(Map<RegionInfo, List<String>> shardsByRegion) {
    this.shardsByRegion = shardsByRegion;
  }

  /**
   * A view of lists that the caller guarantees hold no shard twice and never change (shardkit's
   * coordinator, whose state never gives a shard two homes), with the regions in the map's
   * iteration order, which the caller gives oldest first ({@link #oldestFirst}): nothing is copied,
   * sorted or checked, so it costs O(regions) to build rather than O(shards). Input that breaks
   * the guarantee gives a view whose answers are undefined; {@link #of} is the checked form.
   */
  public static ShardAllocation ofDisjoint(Map<RegionInfo, ? extends List<String>> shardsByRegion) {
    Map<RegionInfo, List<String>> ordered = new LinkedHashMap<>();
    shardsByRegion.forEach((region, shards) -> ordered.put(region, Collections.unmodifiableList(shards)));
    return new ShardAllocation(Collections.unmodifiableMap(ordered));
  }

  /**
   * The regions in the order a view lists them: oldest (lowest up-number) first, ties by address.
   * Each address is rendered once, not once per comparison.
   */
  public static List<RegionInfo> oldestFirst(Collection<RegionInfo> regions) {
    record Keyed(RegionInfo region, String address) {}
    List<Keyed> keyed = new ArrayList<>(regions.size());
    regions.forEach(r -> keyed.add(new Keyed(r, r.address().toString())));
    keyed.sort(Comparator.comparingInt((Keyed k) -> k.region().upNumber()).thenComparing(Keyed::address));
    List<RegionInfo> sorted = new ArrayList<>(keyed.size());
    keyed.forEach(k -> sorted.add(k.region()));
    return sorted;
  }

  private Map<String, RegionInfo> homes() {
    Map<String, RegionInfo> h = homes;
    if (h == null) {
      Map<String, RegionInfo> built = new HashMap<>();
      shardsByRegion.forEach((region, shards) -> shards.forEach(s -> built.put(s, region)));
      h = Collections.unmodifiableMap(built);
      homes = h;
    }
    return h;
  }

  /**
   * Creates a view from regions and their shards.
   *
   * @throws IllegalArgumentException if a shard is listed under two regions
   */
  public static ShardAllocation of(Map<RegionInfo, ? extends List<String>> shardsByRegion) {
    List<RegionInfo> regions = oldestFirst(shardsByRegion.keySet());
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
    ShardAllocation checked = new ShardAllocation(Collections.unmodifiableMap(copy));
    checked.homes = Collections.unmodifiableMap(seen);
    return checked;
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
    return Optional.ofNullable(homes().get(shardId));
  }

  /** How many shards are allocated in total. */
  public int shardCount() {
    int count = 0;
    for (List<String> shards : shardsByRegion.values()) {
      count += shards.size();
    }
    return count;
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder("ShardAllocation{");
    shardsByRegion.forEach((r, s) -> sb.append(r.address()).append('=').append(s.size()).append(' '));
    return sb.append('}').toString();
  }
}
