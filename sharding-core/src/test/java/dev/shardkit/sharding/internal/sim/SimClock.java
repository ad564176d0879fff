package dev.shardkit.sharding.internal.sim;

/** The simulation's one clock, in nanoseconds: it moves only when the scheduler runs the next event. */
final class SimClock {
  private long now;

  long now() {
    return now;
  }

  void advanceTo(long time) {
    if (time < now) {
      throw new IllegalStateException("the clock cannot go back from " + now + " to " + time);
    }
    now = time;
  }
}
