package dev.shardkit.sharding;

import java.util.Set;

/**
 * What one node's region of an entity type holds right now.
 *
 * @param shards the shards hosted on this node, each with the ids of its live entities
 * @param bufferedMessages messages held for shards whose home is not known yet
 * @param droppedMessages messages dropped since the region started because a buffer was full or
 *     the input was bad
 */
public record ShardRegionState(Set<ShardState> shards, int bufferedMessages, long droppedMessages) {
  public ShardRegionState {
    shards = Set.copyOf(shards);
  }

  /**
   * One hosted shard.
   *
   * @param shardId the shard's id
   * @param entityIds the ids of its live entities
   */
  public record ShardState(String shardId, Set<String> entityIds) {
    public ShardState {
      entityIds = Set.copyOf(entityIds);
    }
  }

  /** All live entity ids on this node, over every shard. */
  public int entityCount() {
    return shards.stream().mapToInt(s -> s.entityIds().size()).sum();
  }
}
