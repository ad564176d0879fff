package dev.shardkit.sharding.internal.sim;

import java.lang.reflect.Method;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the simulation did, step by step: the last steps (time, node, what happened, the input and
 * the effects a machine answered, which are values and print as such) for the report of a failed
 * seed, and a hash of every step, to tell whether two runs of a seed went alike. The effects are
 * kept as given and printed only when a report is made.
 */
final class SimTrace {

  private record Step(long time, int node, String what, Object input, List<?> effects) {}

  private static final boolean DUMP = Boolean.getBoolean("sim.dump");
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
      if (DUMP) {
        System.out.println("STEP " + time + " " + node + " " + what + " " + canonical(input) + " " + canonical(effects));
      }
      hash = 31 * hash + canonical(input).hashCode();
      for (Object e : effects) {
        hash = 31 * hash + canonical(e).hashCode();
      }
    } else {
      hash = 31 * hash + (input == null ? 0 : input.getClass().getName().hashCode());
      for (Object e : effects) {
        hash = 31 * hash + e.getClass().getName().hashCode();
      }
    }
  }

  /**
   * A value printed so that it prints alike in every JVM: records component by component, sets
   * and maps sorted (a {@code Set.copyOf} in a message iterates in an order each JVM salts).
   */
  static String canonical(Object value) {
    if (value instanceof Record record) {
      StringBuilder b = new StringBuilder(record.getClass().getSimpleName()).append('[');
      for (RecordComponent c : record.getClass().getRecordComponents()) {
        try {
          Method accessor = c.getAccessor();
          accessor.setAccessible(true);
          b.append(c.getName()).append('=').append(canonical(accessor.invoke(record))).append(' ');
        } catch (ReflectiveOperationException | RuntimeException e) {
          b.append(c.getName()).append("=? ");
        }
      }
      return b.append(']').toString();
    } else if (value instanceof Set<?> set) {
      List<String> items = new ArrayList<>();
      set.forEach(item -> items.add(canonical(item)));
      Collections.sort(items);
      return items.toString();
    } else if (value instanceof Map<?, ?> map) {
      List<String> items = new ArrayList<>();
      map.forEach((k, v) -> items.add(canonical(k) + "=" + canonical(v)));
      Collections.sort(items);
      return items.toString();
    } else if (value instanceof Object[] array) {
      return canonical(java.util.Arrays.asList(array));
    } else if (value instanceof List<?> list) {
      List<String> items = new ArrayList<>();
      list.forEach(item -> items.add(canonical(item)));
      return items.toString();
    }
    return String.valueOf(value);
  }

  long hash() {
    return hash;
  }

  long steps() {
    return count;
  }

  /**
   * The last {@code n} steps that did something, one a line, oldest first: a timer that fired and
   * had no effect (the retry ticks of a calm tail, mostly) is left out and only counted, so the
   * report shows what led to the violation rather than the quiet after it.
   */
  String last(int n) {
    List<Step> shown = new ArrayList<>();
    int quiet = 0;
    for (long i = count - 1; i >= Math.max(0, count - ring.length) && shown.size() < n; i--) {
      Step s = ring[(int) (i % ring.length)];
      if (s.effects.isEmpty() && s.input != null && s.input.getClass().getSimpleName().equals("TimerFired")) {
        quiet++;
      } else {
        shown.add(s);
      }
    }
    Collections.reverse(shown);
    StringBuilder b = new StringBuilder();
    if (quiet > 0) {
      b.append("    (").append(quiet).append(" timers that fired without effect left out)\n");
    }
    for (Step s : shown) {
      b.append(String.format("%10.3f s  n%-2d %-22s %s%n", s.time / 1e9, s.node, s.what, s.input == null ? "" : s.input));
      for (Object e : s.effects) {
        b.append("                    -> ").append(e).append('\n');
      }
    }
    return b.toString();
  }
}
