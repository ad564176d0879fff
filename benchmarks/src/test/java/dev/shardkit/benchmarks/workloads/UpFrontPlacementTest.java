package dev.shardkit.benchmarks.workloads;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.benchmarks.harness.Report;
import dev.shardkit.benchmarks.harness.Row;
import dev.shardkit.benchmarks.harness.RunResult;
import dev.shardkit.benchmarks.harness.RunSpec;
import dev.shardkit.benchmarks.harness.Targets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The issue's row "placing 100 000 shards up front" is judged from the workload's figures: met only
 * when every region knew every home within 1 s, the placement took one store write and no node
 * warned of a heartbeat gap; its rows have no Pekko figure and say so instead of showing a ratio.
 */
class UpFrontPlacementTest {
  private static final String TARGET = "placing 100 000 shards up front";

  private static Map<String, Double> figures(double knownSeconds, double writes, double heartbeatWarnings) {
    Map<String, Double> f = new HashMap<>(Map.of("told_known_s", knownSeconds, "told_decided_s", 0.01,
        "told_stored_s", 0.3, "told_writes", writes, "default_stored_s", 0.2, "default_writes", 1.0,
        "heartbeat_warnings", heartbeatWarnings, "heartbeat_warnings_run", heartbeatWarnings + 3,
        "formation_s", 9.0));
    return f;
  }

  private static Targets.Outcome judged(Map<String, Double> figures) {
    List<Row> rows = new UpFrontPlacement().summarize(List.of(RunResult.ok(
        new RunSpec("up-front", "shardkit", 1, Map.of()), figures)));
    return Targets.judge(Targets.issue17(), rows, List.<Report.Micro>of()).stream()
        .filter(o -> o.figure().equals(TARGET)).findFirst().orElseThrow();
  }

  @Test
  void metOnlyWithinOneSecondInOneWriteWithoutHeartbeatWarnings() {
    Targets.Outcome met = judged(figures(0.8, 1, 0));
    assertEquals(Row.Verdict.MET, met.verdict(), met.toString());
    assertTrue(met.measured().contains("0.800 s"), met.measured());
    assertEquals(Row.Verdict.NOT_MET, judged(figures(1.2, 1, 0)).verdict(), "slower than 1 s");
    assertEquals(Row.Verdict.NOT_MET, judged(figures(0.8, 2, 0)).verdict(), "two writes");
    assertEquals(Row.Verdict.NOT_MET, judged(figures(0.8, 1, 1)).verdict(), "a heartbeat warning");
  }

  @Test
  void theDefaultTypesWritesCountToo() {
    Map<String, Double> f = figures(0.8, 1, 0);
    f.put("default_writes", 2.0);
    assertEquals(Row.Verdict.NOT_MET, judged(f).verdict());
  }

  @Test
  void aFailedRunLeavesTheTargetWithoutData() {
    List<Row> rows = new UpFrontPlacement().summarize(List.of(RunResult.failed(
        new RunSpec("up-front", "shardkit", 1, Map.of()), "the cluster did not form")));
    assertEquals(Row.Verdict.NO_DATA, Targets.judge(Targets.issue17(), rows, List.of()).stream()
        .filter(o -> o.figure().equals(TARGET)).findFirst().orElseThrow().verdict());
  }

  @Test
  void rowsShowNoPekkoFigureAndNoRatio() {
    for (Row r : new UpFrontPlacement().summarize(List.of(RunResult.ok(
        new RunSpec("up-front", "shardkit", 1, Map.of()), figures(0.5, 1, 0))))) {
      assertEquals("n/a", r.pekko(), r.toString());
      assertEquals("n/a", r.ratio(), r.toString());
      assertTrue(!Double.isNaN(r.shardkitMedian()), r.toString());
    }
  }
}
