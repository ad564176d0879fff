package dev.shardkit.sharding.internal.sim;

import java.util.PriorityQueue;

/**
 * What happens next in the simulation: events ordered by time, and events at the same time by
 * the order they were scheduled in, so that a seed replays alike wherever it runs.
 */
final class SimScheduler {

  private record Event(long time, long seq, Runnable action) implements Comparable<Event> {
    @Override
    public int compareTo(Event o) {
      return time != o.time ? Long.compare(time, o.time) : Long.compare(seq, o.seq);
    }
  }

  private final SimClock clock;
  private final PriorityQueue<Event> queue = new PriorityQueue<>();
  private long seq;
  private long steps;

  SimScheduler(SimClock clock) {
    this.clock = clock;
  }

  long now() {
    return clock.now();
  }

  /** Runs {@code action} at {@code time}, or now if that has passed. */
  void at(long time, Runnable action) {
    queue.add(new Event(Math.max(time, clock.now()), seq++, action));
  }

  void after(long delayNanos, Runnable action) {
    at(clock.now() + delayNanos, action);
  }

  /** Runs the next event if it is due by {@code until}; false if none is. */
  boolean step(long until) {
    Event next = queue.peek();
    if (next == null || next.time > until) {
      return false;
    }
    queue.poll();
    clock.advanceTo(next.time);
    steps++;
    next.action.run();
    return true;
  }

  long steps() {
    return steps;
  }
}
