package dev.shardkit.sharding.spi;

import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * Keeps one entity type's coordinator state so that a new coordinator (after the old one's node
 * left or crashed) starts from it. Each coordinator incarnation gets a store of its own from its
 * {@link CoordinatorStateStoreProvider}.
 *
 * <p>How the coordinator calls it:
 * <ul>
 *   <li>From its actor, one call at a time: it calls again only once the previous stage has
 *       completed. Stages may complete on any thread.
 *   <li>{@link #load()} first (again after a failure, and after a store refused as superseded),
 *       and {@link #store} only once a load has completed.
 *   <li>It announces a change (tells any region of a shard's home) only after the {@link #store}
 *       that holds it has completed, so a successor that loads what this store kept never gives a
 *       shard a second home.
 *   <li>A failed stage (and an exception thrown by the call itself, which counts as one) is retried
 *       after a back-off: a failed load is loaded again, a failed store is stored again with the
 *       same events followed by whatever was decided since, and the state after all of them.
 *   <li>A store that fails with {@link CoordinatorStateSupersededException} is not retried: the
 *       coordinator stops acting and calls {@link #load()} again.
 *   <li>{@link #close()} once, when the coordinator stops.
 * </ul>
 */
public interface CoordinatorStateStore {

  /**
   * The stored state: the {@code stateAfter} of the last completed {@link #store}, by this store or
   * an earlier coordinator's, or {@link CoordinatorState#empty()} if nothing was stored; with this
   * coordinator's term, greater than that of every coordinator that loaded from this store before
   * (see {@link LoadedCoordinatorState}). A store that can refuse a deposed coordinator's writes
   * makes the load count as a take-over: from then on it refuses the writes of every coordinator
   * that loaded before.
   */
  CompletionStage<LoadedCoordinatorState> load();

  /**
   * Stores the changes the coordinator decided since the state it last stored (or loaded).
   *
   * <p>A store keeps either the events (a journal) or the state (a whole-state store), and must
   * write one call all or nothing: a later {@link #load()} returns either the state before the call
   * or {@code stateAfter}. A failed call may still have been written (a timeout, a lost
   * confirmation), and its retry carries the same events again: a store that keeps events must
   * not apply them twice.
   *
   * @param events the changes, in order; never empty. Applied with
   *     {@link CoordinatorState#applied} to the state last stored (or loaded), they give
   *     {@code stateAfter}
   * @param stateAfter the state with every one of them applied, computed by the coordinator: a
   *     store need not apply them itself
   * @return completes once the state after the events is durable as far as this store promises;
   *     fails if it is not (the coordinator retries). A store that can tell that another
   *     coordinator of the type has loaded since this one did fails with
   *     {@link CoordinatorStateSupersededException} rather than overwrite its state
   */
  CompletionStage<Void> store(List<CoordinatorEvent> events, CoordinatorState stateAfter);

  /** A short description for logs, e.g. {@code "in-memory (does not survive failover)"}. */
  String describe();

  /**
   * Called once when the coordinator that uses this store stops (it hands over to another node,
   * or its node leaves). A store that runs an actor stops it here, so that two nodes never write
   * the same type's state at once; later calls may fail. The default does nothing.
   */
  default void close() {}
}
