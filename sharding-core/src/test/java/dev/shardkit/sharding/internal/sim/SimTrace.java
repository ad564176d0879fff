package dev.shardkit.sharding.internal.sim;

import java.util.List;

/**
 * What the simulation did, step by step: the last steps (time, node, what happened, the input and
 * the effects a machine answered, which are values and print as such) for the report of a failed
 * seed, and a hash of every step, to tell whether two runs of a seed went alike. The effects are
 * kept as given and printed only when a report is made.
 */
final class SimTrace {

  private record Step(long time, int node, String what, Object input, List<?> effects) {}

  private final Step[] ring;
  private final boolean deepHash;
  private long count;
  private long hash = 1125899906842597L;

  /**
   * @param keep how many of the last steps are kept for a report
   * @param deepHash whether the hash covers the inputs' and effects' printed values (slower), or
   *     only the time, node, kind of step and the number and kinds of effects
   */
  SimTrace(int keep, boolean deepHash) {
    this.ring = new Step[keep];
    this.deepHash = deepHash;
  }

  void step(long time, int node, String what, Object input, List<?> effects) {
    ring[(int) (count++ % ring.length)] = new Step(time, node, what, input, effects);
    hash = 31 * hash + time;
    hash = 31 * hash + node;
    hash = 31 * hash + what.hashCode();
    if (deepHash) {
      hash = 31 * hash + String.valueOf(input).hashCode();
      for (Object e : effects) {
        hash = 31 * hash + String.valueOf(e).hashCode();
      }
    } else {
      hash = 31 * hash + (input == null ? 0 : input.getClass().getName().hashCode());
      for (Object e : effects) {
        hash = 31 * hash + e.getClass().getName().hashCode();
      }
    }
  }

  long hash() {
    return hash;
  }

  long steps() {
    return count;
  }

  /** The last {@code n} steps, one a line, oldest first. */
  String last(int n) {
    StringBuilder b = new StringBuilder();
    long from = Math.max(0, count - Math.min(n, ring.length));
    for (long i = from; i < count; i++) {
      Step s = ring[(int) (i % ring.length)];
      b.append(String.format("%10.3f s  n%-2d %-22s %s%n", s.time / 1e9, s.node, s.what, s.input == null ? "" : s.input));
      for (Object e : s.effects) {
        b.append("                    -> ").append(e).append('\n');
      }
    }
    return b.toString();
  }
}
