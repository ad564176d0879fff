package dev.shardkit.sharding.internal.coordinator;

import dev.shardkit.sharding.ShardAllocationStrategy;
import dev.shardkit.sharding.ShardingSettings;
import dev.shardkit.sharding.internal.InternalApi;
import dev.shardkit.sharding.internal.util.ShardIdBounds;
import dev.shardkit.sharding.spi.CoordinatorStateStore;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

/**
 * Everything one coordinator incarnation needs to know about its entity type. Internal API: built
 * by {@code ClusterSharding} for each incarnation (each gets a store of its own).
 *
 * @param settings the type's settings: role, settle timeout, rebalance interval, hand-off timeout
 *     and buffer size are the coordinator's
 * @param store this incarnation's state store; closed when the coordinator stops
 * @param rememberedShards with remember-entities, reads the shards that may have remembered
 *     entities; such shards, and those of regions that are gone, are placed without waiting for a
 *     message
 * @param knownShards with n &gt; 0, the shard ids are {@code 0..n-1} and all are placed, in one
 *     write, once the coordinator has settled; 0 places each shard when it is first asked for
 * @param handOffIds the source of hand-off ids (random by default; tests make them predictable)
 * @param shardIdBounds which shard ids the coordinator gives a home (known ids, or the cap)
 */
@InternalApi
public record CoordinatorSpec(
    String typeName,
    ShardingSettings settings,
    ShardAllocationStrategy strategy,
    CoordinatorStateStore store,
    Optional<Supplier<CompletionStage<Set<String>>>> rememberedShards,
    int knownShards,
    IntSupplier handOffIds,
    ShardIdBounds shardIdBounds) {

  /** A spec with random hand-off ids, whose known shard ids (if any) are {@code 0..knownShards-1}. */
  public CoordinatorSpec(String typeName, ShardingSettings settings, ShardAllocationStrategy strategy,
      CoordinatorStateStore store, Optional<Supplier<CompletionStage<Set<String>>>> rememberedShards,
      int knownShards) {
    this(typeName, settings, strategy, store, rememberedShards, knownShards,
        new ShardIdBounds(typeName, knownShards, settings.maxShards(), null));
  }

  /** A spec with random hand-off ids. */
  public CoordinatorSpec(String typeName, ShardingSettings settings, ShardAllocationStrategy strategy,
      CoordinatorStateStore store, Optional<Supplier<CompletionStage<Set<String>>>> rememberedShards,
      int knownShards, ShardIdBounds shardIdBounds) {
    this(typeName, settings, strategy, store, rememberedShards, knownShards,
        () -> ThreadLocalRandom.current().nextInt(), shardIdBounds);
  }

  /**
   * How many requests wait while the coordinator loads its state, and how many requests for
   * homeless shards while it settles: at least the region's buffer size.
   */
  int stashCapacity() {
    return Math.max(1000, settings.bufferSize());
  }
}
