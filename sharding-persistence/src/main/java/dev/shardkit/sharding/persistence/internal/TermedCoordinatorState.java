package dev.shardkit.sharding.persistence.internal;

import dev.shardkit.sharding.spi.CoordinatorState;

/**
 * What a {@link CoordinatorJournal} holds: the coordinator state, and the term of the last
 * coordinator that took over (the sequence number of the last {@link CoordinatorTakeOver}; 0 if
 * none did, as in a journal written before take-overs were). Kept in snapshots, so the term
 * outlives the deletion of the take-over event. Immutable.
 *
 * @param state the coordinator state
 * @param term the last take-over's term, {@code >= 0}
 */
record TermedCoordinatorState(CoordinatorState state, long term) {

  static final TermedCoordinatorState EMPTY = new TermedCoordinatorState(CoordinatorState.empty(), 0);

  /** The same state, with a take-over at {@code newTerm}. */
  TermedCoordinatorState takenOver(long newTerm) {
    return new TermedCoordinatorState(state, newTerm);
  }

  /** {@code next} as the state, at the same term. */
  TermedCoordinatorState with(CoordinatorState next) {
    return new TermedCoordinatorState(next, term);
  }
}
