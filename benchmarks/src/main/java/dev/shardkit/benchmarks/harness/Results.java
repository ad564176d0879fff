package dev.shardkit.benchmarks.harness;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.ToDoubleFunction;

/** Picking figures out of a workload's run results, and planning alternating runs. */
public final class Results {
  private Results() {}

  /** round → value of one figure of one variant, over the runs that produced it. */
  public static Map<Integer, Double> series(List<RunResult> results, String variant, String figure) {
    return derived(results, variant, values -> values.getOrDefault(figure, Double.NaN));
  }

  /** round → a value computed from each run's figures (NaN results are left out). */
  public static Map<Integer, Double> derived(List<RunResult> results, String variant,
      ToDoubleFunction<Map<String, Double>> f) {
    Map<Integer, Double> out = new TreeMap<>();
    for (RunResult r : results) {
      if (r.succeeded() && r.spec().variant().equals(variant)) {
        double v = f.applyAsDouble(r.values());
        if (!Double.isNaN(v)) {
          out.put(r.spec().round(), v);
        }
      }
    }
    return out;
  }

  /** The runs whose parameter {@code name} is {@code value}. */
  public static List<RunResult> where(List<RunResult> results, String name, String value) {
    return results.stream().filter(r -> value.equals(r.spec().params().get(name))).toList();
  }

  /**
   * Runs of every variant, round after round, each round starting one variant later than the one
   * before (A B C, B C A, C A B, ...) so that no variant always runs first or last.
   */
  public static List<RunSpec> alternate(String workload, int rounds, List<String> variants,
      Map<String, String> params) {
    List<RunSpec> plan = new ArrayList<>();
    for (int round = 1; round <= rounds; round++) {
      for (int i = 0; i < variants.size(); i++) {
        String variant = variants.get((i + round - 1) % variants.size());
        plan.add(new RunSpec(workload, variant, round, params));
      }
    }
    return plan;
  }
}
