package dev.shardkit.sharding.persistence.internal;

import dev.shardkit.sharding.spi.CoordinatorState;
import org.jspecify.annotations.Nullable;

/**
 * What a {@link CoordinatorJournal} holds: the coordinator state, and the term of the last
 * coordinator that took over (the sequence number of the last {@link CoordinatorTakeOver}; 0 if
 * none did, as in a journal written before take-overs were). Kept in snapshots, so the term
 * outlives the deletion of the take-over event, and so does the node that took over. Immutable.
 *
 * @param state the coordinator state
 * @param term the last take-over's term, {@code >= 0}
 * @param node the address of the node that took over at {@code term}; null if none did or its
 *     take-over stored no node
 */
record TermedCoordinatorState(CoordinatorState state, long term, @Nullable String node) {

  static final TermedCoordinatorState EMPTY = new TermedCoordinatorState(CoordinatorState.empty(), 0, null);

  /** The same state, with a take-over at {@code newTerm} by {@code byNode}. */
  TermedCoordinatorState takenOver(long newTerm, String byNode) {
    return new TermedCoordinatorState(state, newTerm, byNode);
  }

  /** {@code next} as the state, at the same term. */
  TermedCoordinatorState with(CoordinatorState next) {
    return new TermedCoordinatorState(next, term, node);
  }
}
