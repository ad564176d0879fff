package dev.shardkit.sharding.persistence.internal;

import dev.shardkit.sharding.spi.CoordinatorEvent;
import dev.shardkit.sharding.spi.CoordinatorState;
import java.util.List;

/**
 * The journal event of one write of many coordinator events ({@link CoordinatorJournal}), stored
 * as one {@link StoredEventsBatch} row. Applying it applies its events in order.
 *
 * <p>{@code before} and {@code after} are what the write was checked against and led to, known
 * only where it is written (null on replay), so that the journal's mirror state takes
 * {@code after} instead of applying every event a second time. They are never stored.
 *
 * @param events the events, in order; at least one
 */
record CoordinatorEventsBatch(List<CoordinatorEvent> events, CoordinatorState before, CoordinatorState after) {
  CoordinatorEventsBatch {
    events = List.copyOf(events);
    if (events.isEmpty()) {
      throw new IllegalArgumentException("A coordinator events batch needs at least one event");
    }
  }

  /** A batch read back from the journal. */
  CoordinatorEventsBatch(List<CoordinatorEvent> events) {
    this(events, null, null);
  }

  /** {@code after} if the batch was written from {@code state}; null if it must be applied. */
  CoordinatorState afterFrom(CoordinatorState state) {
    return before != null && before == state ? after : null;
  }
}
