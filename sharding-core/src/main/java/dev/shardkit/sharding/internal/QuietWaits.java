package dev.shardkit.sharding.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * Actions a region runs once no caller can still send by an older routing table, such as a
 * hand-off marker that must land behind every shortcut message for its shard, or the closing of
 * a link to a region that is gone. An action whose condition holds now (within a short spin)
 * runs at once; otherwise it waits, and a look again ({@link #recheck}) is asked for through the
 * scheduler given, instead of blocking the region's thread; it is asked for again as long as some
 * action waits.
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
  private final Runnable scheduleRecheck;

  /** @param scheduleRecheck arranges for {@link #recheck} to be called shortly */
  QuietWaits(Runnable scheduleRecheck) {
    this.scheduleRecheck = scheduleRecheck;
  }

  /** Runs {@code action} now if nothing waits and {@code quiet} holds; otherwise keeps it and schedules a look again. */
  void runWhenQuiet(BooleanSupplier quiet, Runnable action) {
    if (!runOrKeep(quiet, action)) {
      scheduleRecheck.run();
    }
  }

  /**
   * Runs the waiting actions whose turn has come, in order, up to the first whose condition still
   * does not hold; if some still wait, schedules another look.
   */
  void recheck() {
    List<Waiting> again = List.copyOf(waiting);
    waiting.clear();
    again.forEach(w -> runOrKeep(w.quiet(), w.action()));
    if (!waiting.isEmpty()) {
      scheduleRecheck.run();
    }
  }

  /** @return true if the action ran, false if it waits */
  private boolean runOrKeep(BooleanSupplier quiet, Runnable action) {
    if (waiting.isEmpty()) {
      for (int spins = 0; spins < SPINS; spins++) {
        if (quiet.getAsBoolean()) {
          action.run();
          return true;
        }
        Thread.onSpinWait();
      }
    }
    waiting.add(new Waiting(quiet, action));
    return false;
  }
}
