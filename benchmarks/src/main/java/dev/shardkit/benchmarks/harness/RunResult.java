package dev.shardkit.benchmarks.harness;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * What one run measured: named figures, or why it produced none.
 *
 * @param values figure name → value, in the unit the workload documents
 * @param error why the run failed; empty when it succeeded
 */
public record RunResult(RunSpec spec, Map<String, Double> values, Optional<String> error) {
  public RunResult {
    values = Map.copyOf(values);
  }

  public static RunResult ok(RunSpec spec, Map<String, Double> values) {
    return new RunResult(spec, values, Optional.empty());
  }

  public static RunResult failed(RunSpec spec, String error) {
    return new RunResult(spec, Map.of(), Optional.of(error));
  }

  public boolean succeeded() {
    return error.isEmpty();
  }

  /** The line a child JVM prints: {@code RESULT name=value name=value}. */
  public static String resultLine(Map<String, Double> values) {
    StringBuilder sb = new StringBuilder("RESULT");
    values.forEach((k, v) -> {
      if (k.contains("=") || k.contains(" ")) {
        throw new IllegalArgumentException("figure names must not contain '=' or spaces: [" + k + "]");
      }
      sb.append(' ').append(k).append('=').append(v);
    });
    return sb.toString();
  }

  /**
   * Reads a {@link #resultLine}.
   *
   * @throws IllegalArgumentException if the line is not one
   */
  public static Map<String, Double> parseResultLine(String line) {
    if (!line.startsWith("RESULT")) {
      throw new IllegalArgumentException("not a result line: [" + line + "]");
    }
    Map<String, Double> values = new LinkedHashMap<>();
    for (String kv : line.substring("RESULT".length()).trim().split(" +")) {
      if (kv.isEmpty()) {
        continue;
      }
      int eq = kv.indexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException("expected name=value in result line, got [" + kv + "]");
      }
      values.put(kv.substring(0, eq), Double.parseDouble(kv.substring(eq + 1)));
    }
    return values;
  }
}
