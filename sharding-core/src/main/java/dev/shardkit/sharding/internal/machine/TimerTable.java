package dev.shardkit.sharding.internal.machine;

import dev.shardkit.sharding.internal.InternalApi;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A machine's timers, as values: each key has at most one timer running, identified by a
 * generation that every start increases. A timer that fires carries the generation it was started
 * with; the machine acts on it only if it is still the current one, so a timer cancelled or
 * restarted while its firing was already on its way is ignored by the machine itself, whatever the
 * scheduler that carried it out did.
 *
 * <p>Iterates in the order keys were first started, never by hash, so that a machine's decisions
 * replay alike in every JVM.
 *
 * @param <K> the timers' keys: records or enums naming what each timer is for
 */
@InternalApi
public final class TimerTable<K> {
  private final Map<K, Long> running = new LinkedHashMap<>();
  private long generations;

  /** A table for a machine that has no incarnations before it. */
  public TimerTable() {
    this(0);
  }

  /**
   * A table for one incarnation of a machine that is made anew after a failure while its actor
   * (and so its mailbox and the timer firings on their way in it) stays. Its generations start
   * above every generation of the incarnations before it, so a firing of a timer an earlier
   * incarnation started is never taken for one of this incarnation's.
   *
   * @param incarnation how many incarnations came before this one (at least 0, below 2^31)
   * @throws IllegalArgumentException if {@code incarnation} is negative or 2^31 or more
   */
  public TimerTable(long incarnation) {
    if (incarnation < 0 || incarnation > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("incarnation must be in [0, 2^31), was " + incarnation);
    }
    this.generations = incarnation << 32;
  }

  /**
   * Starts (or restarts) the timer of {@code key}.
   *
   * @return its generation, for the effect that schedules it and the input that reports it fired
   */
  public long start(K key) {
    long generation = ++generations;
    running.put(key, generation);
    return generation;
  }

  /** Cancels the timer of {@code key}, if one runs: a firing of it on its way is then ignored. */
  public void cancel(K key) {
    running.remove(key);
  }

  /**
   * Cancels every timer: a firing of any of them on its way is then ignored. Generations go on
   * growing, so a timer started afterwards is never taken for one started before.
   */
  public void cancelAll() {
    running.clear();
  }

  /** Whether a timer of {@code key} runs. */
  public boolean isRunning(K key) {
    return running.containsKey(key);
  }

  /**
   * Whether a firing of {@code key}'s timer started as {@code generation} counts: that timer still
   * runs, and was not restarted since. A timer that fires and counts is no longer running.
   */
  public boolean fired(K key, long generation) {
    Long current = running.get(key);
    if (current == null || current != generation) {
      return false;
    }
    running.remove(key);
    return true;
  }

  /**
   * Whether a firing of {@code key}'s periodic timer started as {@code generation} counts; the timer
   * keeps running.
   */
  public boolean tick(K key, long generation) {
    Long current = running.get(key);
    return current != null && current == generation;
  }
}
