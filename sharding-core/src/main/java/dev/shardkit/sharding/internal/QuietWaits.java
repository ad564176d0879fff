package dev.shardkit.sharding.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * Actions a region runs once no caller can still send by an older routing table, such as a
 * hand-off marker that must land behind every shortcut message for its shard, or the closing of
 * a link to a region that is gone. An action whose condition holds now (within a short spin)
 * runs at once; otherwise it waits, and the region looks again shortly ({@link #recheck}) instead
 * of blocking its thread.
 *
 * <p>Actions run in the order they were asked for: once one has to wait, every later one waits
 * behind it, even if its own condition already holds. Owned by the region actor; not thread-safe.
 */
final class QuietWaits {
  /**
   * How often to look before waiting: a caller between reading the table and sending is usually
   * done within a few hundred nanoseconds, unless it was preempted.
   */
  private static final int SPINS = 200;

  private record Waiting(BooleanSupplier quiet, Runnable action) {}

  private final List<Waiting> waiting = new ArrayList<>();

  /**
   * Runs {@code action} now if nothing waits and {@code quiet} holds; otherwise keeps it.
   *
   * @return true if it waits: call {@link #recheck} later
   */
  boolean runWhenQuiet(BooleanSupplier quiet, Runnable action) {
    if (waiting.isEmpty()) {
      for (int spins = 0; spins < SPINS; spins++) {
        if (quiet.getAsBoolean()) {
          action.run();
          return false;
        }
        Thread.onSpinWait();
      }
    }
    waiting.add(new Waiting(quiet, action));
    return true;
  }

  /**
   * Runs the waiting actions whose turn has come, in order, up to the first whose condition still
   * does not hold.
   *
   * @return true if some still wait: call again later
   */
  boolean recheck() {
    List<Waiting> again = List.copyOf(waiting);
    waiting.clear();
    again.forEach(w -> runWhenQuiet(w.quiet(), w.action()));
    return !waiting.isEmpty();
  }
}
