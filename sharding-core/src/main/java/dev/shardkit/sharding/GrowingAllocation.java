package dev.shardkit.sharding;

import java.util.AbstractList;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.RandomAccess;

/**
 * An allocation that only grows, shard by shard, while a strategy decides a batch of shards
 * ({@link ShardAllocationStrategy#allocateShards}): each {@link #view} is an immutable
 * {@link ShardAllocation} of the shards added so far. Views share the regions' lists, which are
 * only ever appended to, so a view costs O(regions) to take, not O(shards): a batch of n shards
 * over r regions costs O(n × r) rather than O(n²). Not thread-safe.
 */
final class GrowingAllocation {
  private final Map<RegionInfo, List<String>> shards = new LinkedHashMap<>();

  /** Starts from {@code start}'s regions (in its order) and shards. */
  GrowingAllocation(ShardAllocation start) {
    start.shardsByRegion().forEach((region, list) -> shards.put(region, new ArrayList<>(list)));
  }

  /** The allocation as it is now; later {@link #add}s do not change it. */
  ShardAllocation view() {
    Map<RegionInfo, List<String>> snapshot = new LinkedHashMap<>();
    shards.forEach((region, list) -> snapshot.put(region, new Prefix(list, list.size())));
    return ShardAllocation.ofDisjoint(snapshot);
  }

  /**
   * Gives {@code shardId} to {@code region}.
   *
   * @throws IllegalArgumentException if the region is not one of the allocation's
   */
  void add(RegionInfo region, String shardId) {
    List<String> list = shards.get(region);
    if (list == null) {
      throw new IllegalArgumentException("Shard [" + shardId + "] was given to " + region
          + ", which is not a region of the allocation");
    }
    list.add(shardId);
  }

  /** The first {@code size} elements of a list that is only appended to: a fixed snapshot. */
  private static final class Prefix extends AbstractList<String> implements RandomAccess {
    private final List<String> appendOnly;
    private final int size;

    Prefix(List<String> appendOnly, int size) {
      this.appendOnly = appendOnly;
      this.size = size;
    }

    @Override
    public String get(int index) {
      if (index < 0 || index >= size) {
        throw new IndexOutOfBoundsException("Index " + index + " out of bounds for length " + size);
      }
      return appendOnly.get(index);
    }

    @Override
    public int size() {
      return size;
    }
  }
}
