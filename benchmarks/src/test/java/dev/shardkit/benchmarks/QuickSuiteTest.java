package dev.shardkit.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.benchmarks.harness.Report;
import dev.shardkit.benchmarks.harness.Row;
import dev.shardkit.benchmarks.harness.Scale;
import dev.shardkit.benchmarks.workloads.LatencyDuringMoves;
import dev.shardkit.benchmarks.workloads.RememberEntitiesRecovery;
import dev.shardkit.benchmarks.workloads.RemoteThroughput;
import dev.shardkit.benchmarks.workloads.Workload;
import dev.shardkit.benchmarks.workloads.Workloads;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The quick mode end to end: every workload runs for both libraries (each run in its own JVM)
 * and produces figures for both (shardkit's alone for a shardkit-only workload), every remembered entity of the recovery workload comes back
 * after its node restarts, and shardkit loses no message silently in the unpaced remote burst
 * (and none at all with buffer-size above the burst) nor while shards move; JMH runs every micro-benchmark once. No
 * timing is asserted, and nothing is written to docs/ (the report goes to target/ to check that it
 * can be written).
 */
class QuickSuiteTest {
  @Test
  void everyWorkloadProducesFiguresForBothLibraries() throws Exception {
    Path target = BenchmarkSuite.repositoryRoot().resolve("benchmarks/target");
    SuiteOptions options = SuiteOptions.parse(List.of("--quick", "--work", target.resolve("quick-runs").toString()),
        BenchmarkSuite.repositoryRoot());
    assertTrue(options.docs().isEmpty(), "the quick mode writes no docs");
    ByteArrayOutputStream progress = new ByteArrayOutputStream();
    Report.Suite suite = BenchmarkSuite.run(options, "test", new PrintStream(progress, true, StandardCharsets.UTF_8));
    String log = progress.toString(StandardCharsets.UTF_8);
    System.out.println(log);
    System.out.println(Report.table(Report.rows(suite)));

    // Recovery is the one workload whose quick run checks a result and not only that figures exist:
    // every remembered entity must be alive again after the restart, for both libraries.
    int remembered = new RememberEntitiesRecovery().plan(new Scale(true, 1)).get(0).intParam("entities");
    // One such row per store mode (ddata, persistence).
    List<Row> backRows = rows(suite, "entities alive again");
    assertEquals(2, backRows.size(), "one row of remembered entities alive again per store mode: " + backRows);
    for (Row back : backRows) {
      assertEquals(remembered, back.shardkitMedian(), "shardkit's remembered entities alive again: " + back);
      assertEquals(remembered, back.pekkoMedian(), "Pekko's remembered entities alive again: " + back);
    }

    // The unpaced remote burst (larger than the default buffer-size): shardkit loses nothing
    // silently (what it cannot hold is dropped, counted and warned), and nothing at all when its
    // buffer-size is above the burst. One round, so the median is that round's count. Pekko's
    // figures are reported, not asserted.
    Row silently = row(suite, RemoteThroughput.BURST_LOST_SILENTLY);
    assertEquals(0.0, silently.shardkitMedian(), "shardkit lost messages silently in the unpaced burst: " + silently);
    Row lost = row(suite, RemoteThroughput.LARGE_BURST_LOST);
    assertEquals(0.0, lost.shardkitMedian(), "shardkit lost messages in the burst below its buffer-size: " + lost);

    // Shards moving while a node joins and leaves gracefully: shardkit loses no message (its
    // hand-off buffers what arrives for a moving shard); Pekko's count is reported, not asserted.
    Row moved = row(suite, LatencyDuringMoves.LOST);
    assertEquals(0.0, moved.shardkitMedian(), "shardkit lost messages while shards moved: " + moved);

    List<String> titles = Workloads.all().stream().map(Workload::title).toList();
    assertEquals(titles, suite.sections().stream().map(Report.Section::title).toList());
    for (Report.Section s : suite.sections()) {
      assertEquals(List.of(), s.failures(), s.title() + " had failed runs");
      assertFalse(s.rows().isEmpty(), s.title() + " produced no rows");
      // A shardkit-only workload (Pekko's sharding has nothing to compare) has shardkit's figures alone.
      boolean shardkitOnly = Workloads.all().stream().anyMatch(w -> w.title().equals(s.title()) && w.shardkitOnly());
      for (Row r : s.rows()) {
        assertTrue(shardkitOnly ? !Double.isNaN(r.shardkitMedian()) : r.complete(),
            s.title() + " / " + r.figure() + " lacks a figure for a library: " + r);
      }
    }
    assertNull(suite.microError(), "JMH failed: " + suite.microError());
    // A benchmark with @Params reports one score per parameter set, under its name and their values.
    assertEquals(jmhBenchmarks(), suite.micro().stream().map(m -> m.benchmark().replaceFirst(" \\[.*", ""))
        .distinct().count(), "every JMH benchmark reported: " + suite.micro());

    Path docs = target.resolve("quick-docs");
    Path doc = BenchmarkSuite.write(suite, docs);
    assertTrue(Files.readString(doc).contains(Report.END));
    assertTrue(Files.size(docs.resolve(BenchmarkSuite.CHART)) > 0);
  }

  /** How many benchmarks JMH's annotation processor found in the module: one line each. */
  private static long jmhBenchmarks() throws java.io.IOException {
    try (var in = QuickSuiteTest.class.getResourceAsStream("/META-INF/BenchmarkList")) {
      assertTrue(in != null, "JMH's benchmark list is on the class path");
      return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().filter(l -> !l.isBlank()).count();
    }
  }

  /** The first row whose figure starts with {@code figure}. */
  private static List<Row> rows(Report.Suite suite, String figure) {
    return suite.sections().stream().flatMap(s -> s.rows().stream())
        .filter(r -> r.figure().startsWith(figure)).toList();
  }

  private static Row row(Report.Suite suite, String figure) {
    return suite.sections().stream().flatMap(s -> s.rows().stream())
        .filter(r -> r.figure().startsWith(figure)).findFirst()
        .orElseThrow(() -> new AssertionError("no row [" + figure + "]"));
  }
}
