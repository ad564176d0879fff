package dev.shardkit.benchmarks.harness;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One run of one workload for one variant (a library, or a baseline), in its own JVM. It travels
 * to the child JVM as command-line arguments.
 *
 * @param workload the workload's id
 * @param variant what is measured: {@code shardkit}, {@code pekko}, or a baseline such as {@code plain}
 * @param round which round of the alternation this run belongs to, from 1
 * @param params the workload's parameters (sizes, modes), all as strings
 */
public record RunSpec(String workload, String variant, int round, Map<String, String> params) {
  public RunSpec {
    if (workload == null || workload.isBlank() || variant == null || variant.isBlank()) {
      throw new IllegalArgumentException("a run needs a workload and a variant, got [" + workload + "] and ["
          + variant + "]");
    }
    params = Map.copyOf(params);
  }

  /**
   * A parameter's value.
   *
   * @throws IllegalArgumentException if the run has no such parameter
   */
  public String param(String name) {
    String v = params.get(name);
    if (v == null) {
      throw new IllegalArgumentException("run " + this + " has no parameter [" + name + "]");
    }
    return v;
  }

  public int intParam(String name) {
    return Integer.parseInt(param(name));
  }

  public long longParam(String name) {
    return Long.parseLong(param(name));
  }

  public RunSpec with(String name, String value) {
    Map<String, String> copy = new LinkedHashMap<>(params);
    copy.put(name, value);
    return new RunSpec(workload, variant, round, copy);
  }

  /** The arguments that {@link #fromArgs} reads back. */
  public List<String> toArgs() {
    List<String> args = new ArrayList<>(List.of(workload, variant, Integer.toString(round)));
    params.forEach((k, v) -> args.add(k + "=" + v));
    return args;
  }

  /**
   * @throws IllegalArgumentException if the arguments are not {@code workload variant round k=v...}
   */
  public static RunSpec fromArgs(List<String> args) {
    if (args.size() < 3) {
      throw new IllegalArgumentException("expected: workload variant round [key=value ...], got " + args);
    }
    Map<String, String> params = new LinkedHashMap<>();
    for (String kv : args.subList(3, args.size())) {
      int eq = kv.indexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException("expected key=value, got [" + kv + "]");
      }
      params.put(kv.substring(0, eq), kv.substring(eq + 1));
    }
    return new RunSpec(args.get(0), args.get(1), Integer.parseInt(args.get(2)), params);
  }

  @Override
  public String toString() {
    return workload + "/" + variant + "#" + round;
  }
}
