package dev.shardkit.sharding.internal.coordinator;

import dev.shardkit.sharding.internal.InternalApi;
import dev.shardkit.sharding.internal.machine.TimerTable;
import org.apache.pekko.actor.typed.ActorRef;

/** The coordinator machine's timers, as keys of its {@link TimerTable}. */
@InternalApi
public sealed interface CoordinatorTimer {

  /** Settling gives up waiting for every hosting node's region. */
  record SettleTimeout() implements CoordinatorTimer {}

  /** The next rebalance round. */
  record RebalanceTick() implements CoordinatorTimer {}

  /** The removal margin of a region whose node was removed has passed. */
  record RemovalMarginPassed(ActorRef<Object> region) implements CoordinatorTimer {}

  /** The hand-off of the shard has taken too long. */
  record HandOffTimeout(String shardId) implements CoordinatorTimer {}

  /** Load the state again after a failed load. */
  record RetryLoad() implements CoordinatorTimer {}

  /** Write again after a failed write. */
  record RetryStore() implements CoordinatorTimer {}

  /** Tell again the homes of shards with remembered entities whose regions have not confirmed them ({@link StartConfirmations}). */
  record ConfirmStarts() implements CoordinatorTimer {}

  /** Read the shards with remembered entities again after a failed read. */
  record RetryRememberedRead() implements CoordinatorTimer {}
}
