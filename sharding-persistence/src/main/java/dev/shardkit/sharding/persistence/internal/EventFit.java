package dev.shardkit.sharding.persistence.internal;

import dev.shardkit.sharding.spi.CoordinatorEvent;
import dev.shardkit.sharding.spi.CoordinatorEvent.ProxyRegistered;
import dev.shardkit.sharding.spi.CoordinatorEvent.ProxyTerminated;
import dev.shardkit.sharding.spi.CoordinatorEvent.RegionRegistered;
import dev.shardkit.sharding.spi.CoordinatorEvent.RegionTerminated;
import dev.shardkit.sharding.spi.CoordinatorEvent.ShardHomeAllocated;
import dev.shardkit.sharding.spi.CoordinatorEvent.ShardHomeDeallocated;
import dev.shardkit.sharding.spi.CoordinatorState;

/**
 * How an event fits a state: it {@link Applies}, it is {@link AlreadyReflected} (the state already
 * looks as if it had been applied: a region registered twice, a shard allocated again to the home
 * it has), or it {@link Conflicts} with the state.
 *
 * <p>An event is written twice when a write reached the database but its confirmation did not
 * (a connection cut at the wrong moment), and the coordinator, which saw a failure, writes it
 * again. On replay the second copy is already reflected and is skipped; an event that conflicts
 * means the stored data is inconsistent.
 */
public sealed interface EventFit {

  /** The event changes the state to {@code after}. */
  record Applies(CoordinatorState after) implements EventFit {}

  /** The state already has what the event would give it. */
  record AlreadyReflected() implements EventFit {}

  /** The event cannot be applied, for {@code reason}. */
  record Conflicts(String reason) implements EventFit {}

  static EventFit of(CoordinatorState state, CoordinatorEvent event) {
    if (reflected(state, event)) {
      return new AlreadyReflected();
    }
    try {
      return new Applies(state.applied(event));
    } catch (IllegalStateException e) {
      return new Conflicts(e.getMessage());
    }
  }

  private static boolean reflected(CoordinatorState state, CoordinatorEvent event) {
    if (event instanceof RegionRegistered e) {
      return state.regions().containsKey(e.region());
    } else if (event instanceof ProxyRegistered e) {
      return state.proxies().contains(e.proxy());
    } else if (event instanceof RegionTerminated e) {
      return !state.regions().containsKey(e.region());
    } else if (event instanceof ProxyTerminated e) {
      return !state.proxies().contains(e.proxy());
    } else if (event instanceof ShardHomeAllocated e) {
      return e.region().equals(state.shards().get(e.shardId()));
    } else if (event instanceof ShardHomeDeallocated e) {
      return !state.shards().containsKey(e.shardId());
    }
    throw new IllegalArgumentException("Unknown coordinator event " + event);
  }
}
