package dev.shardkit.sharding.spi;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Keeps one entity type's coordinator state so that a new coordinator (after the old one's node
 * left or crashed) starts from it. The coordinator calls it from its actor, one call at a time, and
 * does not announce a change before {@link #store} (or {@link #storeAll}) has completed; a failed
 * stage is retried.
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

  /**
   * Stores several events in one go: the coordinator gathers the changes it decides while a write
   * is in flight into the next one. The default stores them one after the other; a store that can
   * write them at once (a whole-state store, a journal's atomic batch) should. A failed stage is
   * retried with the same events, possibly followed by more.
   *
   * @param stateBefore the state the first event applies to
   * @param events the events, in order; not empty
   */
  default CompletionStage<Void> storeAll(CoordinatorState stateBefore, List<CoordinatorEvent> events) {
    CompletionStage<Void> written = CompletableFuture.completedFuture(null);
    CoordinatorState state = stateBefore;
    for (CoordinatorEvent event : events) {
      CoordinatorState after = state.applied(event);
      written = written.thenCompose(done -> store(event, after));
      state = after;
    }
    return written;
  }

  /** A short description for logs, e.g. {@code "in-memory (does not survive failover)"}. */
  String describe();

  /**
   * Called once when the coordinator that uses this store stops (it hands over to another node,
   * or its node leaves). A store that runs an actor stops it here, so that two nodes never write
   * the same type's state at once. The default does nothing.
   */
  default void close() {}
}
