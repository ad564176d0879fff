package dev.shardkit.sharding;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;

/**
 * What one node's region of an entity type holds right now.
 *
 * @param shards the shards hosted on this node, each with the ids of its live entities
 * @param bufferedMessages messages this region holds: for shards whose home is not known yet, is
 *     unreachable or is being handed off, and messages for other nodes that wait in its links or
 *     were sent and not yet acknowledged
 * @param droppedMessages messages dropped since the region started because a buffer was full or
 *     the input was bad
 * @param passivation the type's automatic passivation and what it has done
 */
public record ShardRegionState(Set<ShardState> shards, int bufferedMessages, long droppedMessages,
    Passivation passivation) {
  public ShardRegionState {
    shards = Set.copyOf(shards);
    Objects.requireNonNull(passivation, "passivation");
  }

  /**
   * Automatic passivation in this region.
   *
   * @param idleTimeout entities idle this long are passivated; empty when off
   * @param activeEntityLimit the most live entities the region keeps; empty when off
   * @param idlePassivations entities passivated for being idle, by the shards hosted now since
   *     they started
   * @param limitPassivations entities passivated to make room under the limit, by the shards hosted
   *     now since they started
   */
  public record Passivation(Optional<Duration> idleTimeout, OptionalInt activeEntityLimit, long idlePassivations,
      long limitPassivations) {
    public Passivation {
      Objects.requireNonNull(idleTimeout, "idleTimeout");
      Objects.requireNonNull(activeEntityLimit, "activeEntityLimit");
    }
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
