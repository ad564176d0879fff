package dev.shardkit.benchmarks.workloads;

import dev.shardkit.benchmarks.harness.Row;
import dev.shardkit.benchmarks.harness.RunResult;
import dev.shardkit.benchmarks.harness.RunSpec;
import dev.shardkit.benchmarks.harness.Scale;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * One workload of the suite. The suite asks it for its runs, executes each in a fresh JVM
 * ({@link #run} is called there), and asks it to turn the figures into table rows.
 */
public interface Workload {
  /** A short id, used on the command line ({@code --only}) and in file names. */
  String id();

  /** The heading in the report. */
  String title();

  /** How the workload runs at this scale, for the report (Markdown). */
  String method(Scale scale);

  /** The runs, in the order they execute (variants alternating). */
  List<RunSpec> plan(Scale scale);

  /**
   * True for a workload that measures shardkit alone, because Pekko's sharding has nothing to
   * compare (its rows read "n/a" for Pekko); false for the others, which run both libraries.
   */
  default boolean shardkitOnly() {
    return false;
  }

  /** Options for the run's JVM (heap size). */
  default List<String> jvmOptions(RunSpec spec) {
    return List.of("-Xms1g", "-Xmx2g");
  }

  /** How long a run may take before it is killed and counted as failed. */
  default Duration timeout(RunSpec spec) {
    return Duration.ofMinutes(5);
  }

  /**
   * Runs once, in the child JVM, and returns its figures. The JVM halts as soon as they are
   * printed ({@code RunMain}), so a run leaves its actor systems running unless their shutdown is
   * part of what it measures: a graceful leave of every node of a finished run took 2 to 8 s per
   * run, about three minutes of a full suite, and measured nothing.
   *
   * @throws Exception if the run cannot produce its figures; the suite reports it as failed
   */
  Map<String, Double> run(RunSpec spec) throws Exception;

  /** The table rows for this workload's results (failed runs included, they count as missing). */
  List<Row> summarize(List<RunResult> results);
}
