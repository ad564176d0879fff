package dev.shardkit.sharding;

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
