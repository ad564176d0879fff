package dev.shardkit.sharding.internal.coordinator;

import dev.shardkit.sharding.ShardAllocationStrategy;
import dev.shardkit.sharding.internal.InternalApi;
import dev.shardkit.sharding.internal.store.InMemoryCoordinatorStateStore;
import dev.shardkit.sharding.internal.util.ShardIdBounds;
import java.time.Duration;
import java.util.Optional;
import org.apache.pekko.actor.Address;

/**
 * What a {@link CoordinatorMachine} is told once, when it is built: its entity type's settings, and
 * what the shell learned from its node (its address, the downing provider's removal margin, what
 * kind of store it has). Immutable.
 *
 * @param role the role of the nodes that host the type's shards, if any
 * @param knownShards with n &gt; 0, the shard ids are {@code 0..n-1} and all are placed up front
 * @param remembersEntities whether shards with remembered entities are placed without a message
 * @param tellsHomes whether regions are told the homes placed up front: on, with known shards, and
 *     not with the in-memory store (a successor on another node rebuilds its state from the shards
 *     regions report hosting, so it would not know the homes of shards nobody started, and regions
 *     would route by homes it placed anew elsewhere)
 * @param removalMargin the downing provider's removal margin ({@link RemovalMargin})
 * @param stashCapacity how many requests wait while loading, and for the end of settling
 * @param self this node's address, the address of local references
 * @param storeDescription the store, as the start notice names it
 */
@InternalApi
public record CoordinatorConfig(String typeName, Optional<String> role, ShardAllocationStrategy strategy, int knownShards,
    ShardIdBounds shardIdBounds, boolean remembersEntities, boolean tellsHomes, Duration settleTimeout,
    Duration rebalanceInterval, Duration handOffTimeout, Duration removalMargin, int stashCapacity,
    int pendingAnswersLimit, Address self, String storeDescription) {

  /** The config of {@code spec}'s coordinator on the node at {@code self}. */
  static CoordinatorConfig of(CoordinatorSpec spec, Address self, Duration removalMargin) {
    var settings = spec.settings();
    boolean tellsHomes = settings.tellUpFrontHomes() && spec.knownShards() > 0
        && !(spec.store() instanceof InMemoryCoordinatorStateStore);
    return new CoordinatorConfig(spec.typeName(), settings.role(), spec.strategy(), spec.knownShards(),
        spec.shardIdBounds(), spec.rememberedShards().isPresent(), tellsHomes, settings.coordinatorSettleTimeout(),
        settings.rebalanceInterval(), settings.handOffTimeout(), removalMargin, spec.stashCapacity(),
        settings.coordinatorPendingAnswersLimit(), self, spec.store().describe());
  }
}
