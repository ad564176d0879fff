package dev.shardkit.benchmarks.harness;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * The targets of the current performance issue, each judged from a suite run: a row of the results
 * table (or several, such as both store modes) or a JMH benchmark. A target whose rows or benchmarks
 * the run did not produce is reported as not measured, never as met. The verdict is computed here
 * from the medians, independently of the target a workload prints on its own row.
 */
public final class Targets {
  private Targets() {}

  /** How a row's figures are held against the bound. */
  public enum Check {
    /** shardkit / Pekko of the medians at most the bound. */
    RATIO_AT_MOST,
    /** shardkit / Pekko of the medians at least the bound. */
    RATIO_AT_LEAST,
    /** shardkit's median at most the bound. */
    VALUE_AT_MOST,
    /** shardkit's median at least the bound. */
    VALUE_AT_LEAST
  }

  /**
   * One target.
   *
   * @param figure the issue's name for it
   * @param target the bound in words
   * @param rows the rows it is judged on (every one must meet it); null for a JMH target
   * @param benchmarkPrefix the JMH benchmarks it is judged on ({@code Class.method} prefix); null
   *     for a row target
   * @param bound the bound: a ratio, a value in the row's unit, or microseconds for JMH
   * @param benchmarkParam for a benchmark run with {@code @Param}s, the parameter value the target
   *     is stated at ({@code shards=10000}); its scores at other values are not judged
   */
  public record Target(String figure, String target, Predicate<Row> rows, Check check, String benchmarkPrefix,
      double bound, String benchmarkParam) {}

  /** One target's outcome. */
  public record Outcome(String figure, String target, String measured, Row.Verdict verdict) {}

  private static Predicate<Row> row(String workloadPrefix, String figurePrefix) {
    return r -> r.workload().startsWith(workloadPrefix) && r.figure().startsWith(figurePrefix);
  }

  private static Target ofRows(String figure, String target, Predicate<Row> rows, Check check, double bound) {
    return new Target(figure, target, rows, check, null, bound, null);
  }

  private static Target ofMicro(String figure, String target, String benchmarkPrefix, String param,
      double maxMicros) {
    return new Target(figure, target, null, null, benchmarkPrefix, maxMicros, param);
  }

  /** The targets table of issue 17, in its order. */
  public static List<Target> issue17() {
    Predicate<Row> recovery = row("Remember-entities recovery", "seconds from the region's start");
    Predicate<Row> creating = row("Remember-entities recovery", "seconds to create");
    Predicate<Row> persistence = r -> (r.workload() + r.figure()).contains("persistence");
    // On the defaults only: the "homes asked for" rows show the other setting, with no target.
    Predicate<Row> firstMessage = row("First message to a new shard", "p50")
        .or(row("First message to a new shard", "p99")).and(r -> !r.figure().contains("homes asked for"));
    return List.of(
        ofRows("remember-entities recovery, ddata + LMDB", "≤ 0.5×", recovery.and(persistence.negate()),
            Check.RATIO_AT_MOST, 0.5),
        ofRows("creating the remembered entities", "≤ 1.0×", creating.and(persistence.negate()),
            Check.RATIO_AT_MOST, 1.0),
        ofRows("remember-entities recovery, persistence mode", "≤ 0.5×", recovery.and(persistence),
            Check.RATIO_AT_MOST, 0.5),
        ofRows("first message to a never-used shard, p50 and p99, both store modes", "≤ 0.33×", firstMessage,
            Check.RATIO_AT_MOST, 0.3333),
        ofRows("local `EntityRef.tell`", "≥ 3×",
            row("Local routed throughput", "`EntityRef.tell`").and(r -> r.figure().equals("`EntityRef.tell`")),
            Check.RATIO_AT_LEAST, 3.0),
        ofRows("local `EntityRef.tell` as % of plain tell", "≥ 60 %",
            row("Local routed throughput", "`EntityRef.tell` as % of plain tell"), Check.VALUE_AT_LEAST, 60),
        ofRows("local region tell", "≥ 2.5×", row("Local routed throughput", "region tell (envelope)"),
            Check.RATIO_AT_LEAST, 2.5),
        ofRows("remote `EntityRef.tell`", "≥ 1.5×", row("Remote routed throughput", "`EntityRef.tell` to another node"),
            Check.RATIO_AT_LEAST, 1.5),
        ofMicro("one home change in the routing table, 10 000 shards (JMH)", "≤ 5 µs",
            "RoutingTableBenchmark.withOneHomeChanged", "shards=10000", 5),
        ofMicro("one coordinator event applied, 100 000 shards × 1 000 regions (JMH)", "≤ 10 µs",
            "CoordinatorStateBenchmark.", "shards=100000", 10),
        ofRows("placing 100 000 shards up front", "≤ 1 s, one store write, no heartbeat warning",
            // Its rows with a target (time, store writes, heartbeat warnings), each judged by the workload.
            r -> r.workload().toLowerCase(Locale.ROOT).contains("up front") && !r.target().equals("—"), null,
            Double.NaN),
        ofRows("p99 while shards move / steady-state p99 (join and leave)", "≤ 2×",
            row("Latency while shards move", "p99 during").and(r -> r.figure().endsWith("/ steady-state p99")),
            Check.VALUE_AT_MOST, 2.0),
        ofRows("p99 of messages to a moving shard, shardkit / Pekko (join and leave)", "≤ 0.25×",
            row("Latency while shards move", "p99 of messages to a moving shard"), Check.RATIO_AT_MOST, 0.25));
  }

  /**
   * Judges every target on a suite's rows and JMH scores.
   *
   * <p>A row target with no check (placement up front, whose conditions are not one number) takes
   * the verdicts of its rows as the workload computed them.
   */
  public static List<Outcome> judge(List<Target> targets, List<Row> rows, List<Report.Micro> micro) {
    List<Outcome> out = new ArrayList<>();
    for (Target t : targets) {
      out.add(t.benchmarkPrefix() != null ? judgeMicro(t, micro) : judgeRows(t, rows));
    }
    return out;
  }

  private static Outcome judgeRows(Target t, List<Row> rows) {
    List<Row> matched = rows.stream().filter(t.rows()).toList();
    if (matched.isEmpty()) {
      return new Outcome(t.figure(), t.target(), "not measured in this run", Row.Verdict.NO_DATA);
    }
    List<String> measured = new ArrayList<>();
    Row.Verdict verdict = Row.Verdict.MET;
    for (Row r : matched) {
      double v = switch (t.check() == null ? Check.VALUE_AT_MOST : t.check()) {
        case RATIO_AT_MOST, RATIO_AT_LEAST -> r.shardkitMedian() / r.pekkoMedian();
        case VALUE_AT_MOST, VALUE_AT_LEAST -> r.shardkitMedian();
      };
      Row.Verdict one;
      if (t.check() == null) {
        one = r.verdict();
        measured.add(label(r, matched) + r.shardkit());
      } else if (Double.isNaN(v)) {
        one = Row.Verdict.NO_DATA;
        measured.add(label(r, matched) + "n/a");
      } else {
        boolean met = switch (t.check()) {
          case RATIO_AT_MOST, VALUE_AT_MOST -> v <= t.bound();
          case RATIO_AT_LEAST, VALUE_AT_LEAST -> v >= t.bound();
        };
        one = met ? Row.Verdict.MET : Row.Verdict.NOT_MET;
        measured.add(label(r, matched) + (t.check() == Check.RATIO_AT_MOST || t.check() == Check.RATIO_AT_LEAST
            ? Row.ratioText(v) : r.shardkit()));
      }
      verdict = worse(verdict, one);
    }
    return new Outcome(t.figure(), t.target(), String.join("; ", measured), verdict);
  }

  /** The row's distinguishing part, when a target spans several rows. */
  private static String label(Row r, List<Row> matched) {
    return matched.size() == 1 ? "" : r.workload() + " / " + r.figure() + ": ";
  }

  private static Outcome judgeMicro(Target t, List<Report.Micro> micro) {
    List<Report.Micro> matched = micro.stream().filter(m -> m.benchmark().startsWith(t.benchmarkPrefix())
        && (!m.benchmark().contains(" [") || m.benchmark().matches(".*[\\[ ]" + t.benchmarkParam() + "[,\\]].*")))
        .toList();
    if (matched.isEmpty()) {
      return new Outcome(t.figure(), t.target(), "not measured in this run", Row.Verdict.NO_DATA);
    }
    List<String> measured = new ArrayList<>();
    Row.Verdict verdict = Row.Verdict.MET;
    for (Report.Micro m : matched) {
      Optional<Double> micros = micros(m);
      measured.add((matched.size() == 1 ? "" : m.benchmark() + ": ") + micros
          .map(v -> Row.value(v, "µs", 3)).orElse(m.score() + " " + m.unit()));
      verdict = worse(verdict, micros.map(v -> v <= t.bound() ? Row.Verdict.MET : Row.Verdict.NOT_MET)
          .orElse(Row.Verdict.NO_DATA));
    }
    return new Outcome(t.figure(), t.target(), String.join("; ", measured), verdict);
  }

  /** A JMH score in microseconds per operation; empty for a unit that is not a time per operation. */
  static Optional<Double> micros(Report.Micro m) {
    String number = m.score().split(" ± ")[0].replace(" ", "");
    double v;
    try {
      v = Double.parseDouble(number);
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
    return switch (m.unit()) {
      case "ns/op" -> Optional.of(v / 1e3);
      case "us/op" -> Optional.of(v);
      case "ms/op" -> Optional.of(v * 1e3);
      case "s/op" -> Optional.of(v * 1e6);
      default -> Optional.empty();
    };
  }

  private static Row.Verdict worse(Row.Verdict a, Row.Verdict b) {
    if (a == Row.Verdict.NOT_MET || b == Row.Verdict.NOT_MET) {
      return Row.Verdict.NOT_MET;
    }
    if (a == Row.Verdict.NO_DATA || b == Row.Verdict.NO_DATA || b == Row.Verdict.NO_TARGET) {
      return Row.Verdict.NO_DATA;
    }
    return Row.Verdict.MET;
  }

  /** The outcomes as a Markdown table. */
  public static String table(List<Outcome> outcomes) {
    StringBuilder sb = new StringBuilder("| issue target | target | this run | |\n|---|---|---|---|\n");
    for (Outcome o : outcomes) {
      sb.append("| ").append(o.figure()).append(" | ").append(o.target()).append(" | ").append(o.measured())
          .append(" | ").append(o.verdict().text()).append(" |\n");
    }
    return sb.toString();
  }
}
