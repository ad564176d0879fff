package dev.shardkit.sharding.internal.region;

import dev.shardkit.sharding.ShardRegionState;
import dev.shardkit.sharding.ShardingSettings;
import dev.shardkit.sharding.internal.shard.ShardProtocol;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * What a region reports about itself, built from its shards' snapshots: its state for
 * {@code shardRegionState} and the entity counts for cluster-wide statistics. Passivation counts
 * are summed over the shards hosted now, so a shard that moved away takes its counts with it. Pure.
 */
final class RegionReport {

  private RegionReport() {}

  /**
   * @param holding messages held by the region or waiting in its links
   * @param dropped messages dropped since the region started
   */
  static ShardRegionState state(Set<ShardProtocol.ShardSnapshot> shards, int holding, long dropped,
      ShardingSettings settings) {
    return new ShardRegionState(
        shards.stream().map(s -> new ShardRegionState.ShardState(s.shardId(), s.entityIds())).collect(Collectors.toSet()),
        holding, dropped,
        new ShardRegionState.Passivation(settings.passivationIdleTimeout(), settings.passivationActiveEntityLimit(),
            shards.stream().mapToLong(ShardProtocol.ShardSnapshot::idlePassivations).sum(),
            shards.stream().mapToLong(ShardProtocol.ShardSnapshot::limitPassivations).sum()));
  }

  /** The number of live entities per shard. */
  static Map<String, Integer> entityCounts(Set<ShardProtocol.ShardSnapshot> shards) {
    return shards.stream().collect(Collectors.toMap(ShardProtocol.ShardSnapshot::shardId, s -> s.entityIds().size()));
  }
}
