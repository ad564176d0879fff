package dev.shardkit.sharding;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Decides where new shards live and which shards move. The coordinator calls it from its own
 * actor, one call at a time, so implementations need no locking; they must be fast and should be
 * pure functions of their arguments (the coordinator may call them again with the same view).
 *
 * <p>A strategy that throws, or answers with a region that is not in the view, does not allocate:
 * the coordinator logs the failure naming the entity type and shard and the region asks again
 * later.
 */
public interface ShardAllocationStrategy {

  /**
   * Chooses the region for a shard that has no home yet.
   *
   * @param requester the region that asked for the shard's home (it has a message for it)
   * @param shardId the shard to place
   * @param allocation every registered region with its shards; never empty
   * @return one of {@code allocation.regions()}
   */
  RegionInfo allocateShard(RegionInfo requester, String shardId, ShardAllocation allocation);

  /**
   * Chooses the regions for several shards that have no home, in order: the same choices as
   * {@link #allocateShard} for each shard in turn over {@code allocation} with the shards before
   * it added to the regions chosen for them. The coordinator calls it to place every shard at
   * once when their ids are known in advance. The default does just that, taking a fresh view per
   * shard (O(regions) each); a strategy that only counts shards may override it with something
   * cheaper, but must choose the same regions.
   *
   * @param requester the region (or, for a placement nobody asked for, the coordinator) that
   *     asked
   * @param shardIds the shards to place, none of them in {@code allocation}, none twice
   * @param allocation every registered region with its shards; never empty
   * @return one region of {@code allocation.regions()} per shard, in the order of {@code shardIds}
   * @throws IllegalArgumentException if {@link #allocateShard} chose a region that is not in the
   *     allocation (named in the message with the shard), or threw it
   */
  default List<RegionInfo> allocateShards(RegionInfo requester, List<String> shardIds, ShardAllocation allocation) {
    GrowingAllocation growing = new GrowingAllocation(allocation);
    List<RegionInfo> homes = new ArrayList<>(shardIds.size());
    for (String shardId : shardIds) {
      RegionInfo home = allocateShard(requester, shardId, growing.view());
      growing.add(home, shardId);
      homes.add(home);
    }
    return homes;
  }

  /**
   * Chooses shards to move in one rebalance round. The coordinator hands each one off and, once
   * its entities have stopped, places it again at once with {@link #allocateShard}, offering every
   * region except the one it just left.
   *
   * @param allocation every registered region with its shards
   * @param rebalanceInProgress shards already being moved; must not be chosen again
   * @return the shards to move now; empty when the allocation is good enough
   */
  Set<String> rebalance(ShardAllocation allocation, Set<String> rebalanceInProgress);
}
