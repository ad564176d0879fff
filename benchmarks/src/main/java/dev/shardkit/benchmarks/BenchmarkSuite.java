package dev.shardkit.benchmarks;

import dev.shardkit.benchmarks.harness.Chart;
import dev.shardkit.benchmarks.harness.ChildJvm;
import dev.shardkit.benchmarks.harness.JfrSummary;
import dev.shardkit.benchmarks.harness.MachineInfo;
import dev.shardkit.benchmarks.harness.Report;
import dev.shardkit.benchmarks.harness.Row;
import dev.shardkit.benchmarks.harness.RoundsUntilStable;
import dev.shardkit.benchmarks.harness.RunMain;
import dev.shardkit.benchmarks.harness.RunResult;
import dev.shardkit.benchmarks.harness.RunSpec;
import dev.shardkit.benchmarks.harness.Scale;
import dev.shardkit.benchmarks.micro.MicroBenchmarks;
import dev.shardkit.benchmarks.workloads.Workload;
import dev.shardkit.benchmarks.workloads.Workloads;
import java.io.PrintStream;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The side-by-side benchmark suite: every workload against shardkit and against Pekko's cluster
 * sharding, alternating, each run in a fresh JVM; prints the table and, in the full mode, rewrites
 * the generated part of {@code docs/performance.md} and the chart beside it.
 *
 * <p>{@code mvn -q -pl benchmarks -am compile exec:java} runs the full suite;
 * {@code -Dexec.args="--quick"} the short one. See {@link SuiteOptions#USAGE}.
 */
public final class BenchmarkSuite {
  private BenchmarkSuite() {}

  static final String CHART = "performance.png";

  public static void main(String[] args) throws Exception {
    Path root = repositoryRoot();
    SuiteOptions options;
    try {
      options = SuiteOptions.parse(List.of(args), root);
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.exit(2);
      return;
    }
    String command = "mvn -q -pl benchmarks -am compile exec:java"
        + (args.length == 0 ? "" : " -Dexec.args=\"" + String.join(" ", args) + "\"");
    Report.Suite suite = run(options, command, System.out);
    System.out.println();
    System.out.println(Report.table(Report.rows(suite)));
    System.out.println(Report.targetTable(suite));
    if (options.docs().isPresent()) {
      Path doc = write(suite, options.docs().get());
      System.out.println("Wrote " + doc + " and " + doc.resolveSibling(CHART));
    }
    boolean failed = suite.sections().stream().anyMatch(s -> !s.failures().isEmpty()) || suite.microError() != null;
    System.out.flush();
    System.exit(failed ? 1 : 0);
  }

  /** Writes the generated block into {@code docs/performance.md} and the chart beside it. */
  static Path write(Report.Suite suite, Path docs) throws Exception {
    Files.createDirectories(docs);
    Path doc = docs.resolve("performance.md");
    Chart.write(Report.rows(suite), "shardkit vs Pekko cluster sharding", docs.resolve(CHART));
    Report.updateDocument(doc, Report.generatedBlock(suite, CHART));
    return doc;
  }

  /** Runs the selected workloads (and JMH) and collects the report. */
  public static Report.Suite run(SuiteOptions options, String command, PrintStream out) throws Exception {
    long start = System.nanoTime();
    String loadBefore = MachineInfo.loadAverage().orElse("n/a");
    Scale scale = new Scale(options.quick(), options.rounds());
    Files.createDirectories(options.work());
    List<Workload> workloads = Workloads.all().stream().filter(w -> options.runs(w.id())).toList();
    int total = workloads.stream().mapToInt(w -> w.plan(scale).size()).sum();
    int[] done = {0};
    List<Report.Section> sections = new ArrayList<>();
    for (Workload w : workloads) {
      Set<String> swinging = options.quick() ? Set.of() : Workloads.swinging(w);
      RoundsUntilStable.Rounds ran = RoundsUntilStable.run(w::plan, scale, swinging, spec -> {
        done[0]++;
        out.printf(Locale.ROOT, "[%d/%d] %s %s ... ", done[0], Math.max(done[0], total), spec, spec.params());
        out.flush();
        long t0 = System.nanoTime();
        RunResult r = execute(w, spec, options.work(), options.jfr());
        out.printf(Locale.ROOT, "%.1f s: %s%n", (System.nanoTime() - t0) / 1e9,
            r.succeeded() ? format(r.values()) : "FAILED " + r.error().get());
        return r;
      });
      List<RunResult> results = ran.results();
      String roundsText = swinging.isEmpty() ? "" : ran.spread().describe(ran.rounds());
      if (!roundsText.isEmpty()) {
        out.println(w.title() + ": " + roundsText);
      }
      List<String> failures = results.stream().filter(r -> !r.succeeded())
          .map(r -> r.spec() + ": " + r.error().get()).toList();
      sections.add(new Report.Section(w.title(), w.method(scale), w.summarize(results), failures, roundsText));
    }
    List<Report.Micro> micro = new ArrayList<>();
    String microError = null;
    String microSettings = String.join(" ", options.quick() ? MicroBenchmarks.SMOKE : MicroBenchmarks.SUITE);
    if (options.runs("micro")) {
      try {
        for (MicroBenchmarks.Score s : MicroBenchmarks.run(options.quick() ? MicroBenchmarks.SMOKE
            : MicroBenchmarks.SUITE, options.work().resolve("jmh"))) {
          micro.add(new Report.Micro(s.benchmark(), Double.isNaN(s.error())
              ? Row.value(s.score(), "", 3) : Row.value(s.score(), "", 3) + " ± " + Row.value(s.error(), "", 3),
              s.unit()));
        }
      } catch (Exception e) {
        microError = e.getMessage();
      }
    }
    return new Report.Suite(options.quick(), options.rounds(), sections, micro, "JMH options `" + microSettings + "`",
        microError, MachineInfo.describe(), loadBefore, MachineInfo.loadAverage().orElse("n/a"),
        Duration.ofNanos(System.nanoTime() - start), command, ZonedDateTime.now());
  }

  /** Runs one spec in a fresh JVM and reads its figures. */
  static RunResult execute(Workload w, RunSpec spec, Path work, boolean jfr) {
    String name = spec.workload() + "-" + spec.variant() + "-" + spec.round()
        + spec.params().getOrDefault("mode", "").replaceAll("(.+)", "-$1");
    Path log = work.resolve(name + ".log");
    Path recording = work.toAbsolutePath().resolve(name + ".jfr");
    List<String> jvm = new ArrayList<>(w.jvmOptions(spec));
    jvm.add("-D" + ChildJvm.LOG_DIR_PROPERTY + "=" + work.toAbsolutePath());
    if (jfr) {
      jvm.add("-XX:StartFlightRecording=settings=profile,filename=" + recording);
    }
    RunResult result;
    try (ChildJvm child = ChildJvm.start(RunMain.class.getName(), jvm, spec.toArgs(), log)) {
      String line = child.awaitLine(w.timeout(spec), "RESULT", "ERROR");
      result = line.startsWith("ERROR")
          ? RunResult.failed(spec, line.substring("ERROR".length()).trim() + " (log: " + log + ")")
          : RunResult.ok(spec, RunResult.parseResultLine(line));
    } catch (Exception e) {
      return RunResult.failed(spec, e.getMessage());
    }
    if (jfr) {
      try {
        JfrSummary.writeBeside(recording, 30);
      } catch (Exception e) {
        System.err.println("Could not summarize " + recording + ": " + e);
      }
    }
    return result;
  }

  private static String format(Map<String, Double> values) {
    return values.entrySet().stream().map(e -> e.getKey() + "=" + String.format(Locale.ROOT, "%.3f", e.getValue()))
        .collect(Collectors.joining(" "));
  }

  /** The repository this program was built in: three levels above {@code benchmarks/target/classes}. */
  static Path repositoryRoot() {
    try {
      Path classes = Path.of(BenchmarkSuite.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      Path root = classes.getParent().getParent().getParent();
      if (Files.exists(root.resolve("benchmarks").resolve("pom.xml"))) {
        return root;
      }
    } catch (URISyntaxException | RuntimeException e) {
      // Fall through to the working directory.
    }
    return Path.of("").toAbsolutePath();
  }
}
