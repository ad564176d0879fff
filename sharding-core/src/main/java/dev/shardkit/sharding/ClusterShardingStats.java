package dev.shardkit.sharding;

import java.util.Map;
import java.util.Set;
import org.apache.pekko.actor.Address;

/**
 * A cluster-wide view of one entity type: for each region the coordinator knows, its shards and
 * how many live entities each has.
 *
 * @param regions the regions that answered in time, by node address: shard id → entity count
 * @param failedRegions the regions that did not answer in time
 */
public record ClusterShardingStats(Map<Address, Map<String, Integer>> regions, Set<Address> failedRegions) {
  public ClusterShardingStats {
    regions = Map.copyOf(regions);
    failedRegions = Set.copyOf(failedRegions);
  }

  /** The number of live entities over every region that answered. */
  public int entityCount() {
    return regions.values().stream().flatMap(m -> m.values().stream()).mapToInt(Integer::intValue).sum();
  }

  /** The number of shards over every region that answered. */
  public int shardCount() {
    return regions.values().stream().mapToInt(Map::size).sum();
  }
}
