package dev.shardkit.sharding.spi;

import java.util.concurrent.CompletionStage;

/**
 * Keeps one entity type's coordinator state so that a new coordinator (after the old one's node
 * left or crashed) starts from it. The coordinator calls it from its actor, one call at a time, and
 * does not apply an event before {@link #store} has completed; a failed stage is retried.
 */
public interface CoordinatorStateStore {

  /** The stored state, or {@link CoordinatorState#empty()} if nothing was stored. */
  CompletionStage<CoordinatorState> load();

  /**
   * Stores an event.
   *
   * @param event the event to keep
   * @param stateAfter the state with the event applied, for stores that keep snapshots
   * @return completes once the event is durable as far as this store promises
   */
  CompletionStage<Void> store(CoordinatorEvent event, CoordinatorState stateAfter);

  /** A short description for logs, e.g. {@code "in-memory (does not survive failover)"}. */
  String describe();

  /**
   * Called once when the coordinator that uses this store stops (it hands over to another node,
   * or its node leaves). A store that runs an actor stops it here, so that two nodes never write
   * the same type's state at once. The default does nothing.
   */
  default void close() {}
}
