package dev.shardkit.benchmarks.harness;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The suite's results as Markdown: the table printed on stdout and the generated part of
 * {@code docs/performance.md}, which sits between two markers so that the hand-written analysis
 * around it survives a rerun.
 */
public final class Report {
  public static final String BEGIN = "<!-- BEGIN GENERATED RESULTS: BenchmarkSuite rewrites everything up to the END marker -->";
  public static final String END = "<!-- END GENERATED RESULTS -->";

  /**
   * One workload's part of the report.
   *
   * @param rounds how many rounds ran and, for swinging figures, how far apart their rounds were
   *     (see {@link RoundsUntilStable}); empty when there is nothing to say
   */
  public record Section(String title, String method, List<Row> rows, List<String> failures, String rounds) {
    public Section(String title, String method, List<Row> rows, List<String> failures) {
      this(title, method, rows, failures, "");
    }
  }

  /** One micro-benchmark's line. */
  public record Micro(String benchmark, String score, String unit) {}

  /**
   * A whole suite run.
   *
   * @param microSettings how JMH ran, in words
   * @param microError why the micro-benchmarks have no figures, or null
   */
  public record Suite(boolean quick, int rounds, List<Section> sections, List<Micro> micro, String microSettings,
      String microError,
      Map<String, String> machine, String loadBefore, String loadAfter, Duration elapsed, String command,
      ZonedDateTime finished) {}

  /** Every row of every section. */
  public static List<Row> rows(Suite suite) {
    List<Row> rows = new ArrayList<>();
    suite.sections().forEach(s -> rows.addAll(s.rows()));
    return rows;
  }

  /** The results table. */
  public static String table(List<Row> rows) {
    StringBuilder sb = new StringBuilder();
    sb.append("| workload | figure | shardkit | Pekko | shardkit / Pekko | per round | target | |\n");
    sb.append("|---|---|---:|---:|---:|---|---|---|\n");
    for (Row r : rows) {
      sb.append("| ").append(r.workload()).append(" | ").append(r.figure()).append(" | ").append(r.shardkit())
          .append(" | ").append(r.pekko()).append(" | ").append(r.ratio()).append(" | ").append(r.perRound())
          .append(" | ").append(r.target()).append(" | ").append(r.verdict().text()).append(" |\n");
    }
    return sb.toString();
  }

  /** The issue's targets, each met or not met in this run. */
  public static String targetTable(Suite suite) {
    return Targets.table(Targets.judge(Targets.issue17(), rows(suite), suite.micro()));
  }

  /** The generated block of {@code docs/performance.md}, markers included. */
  public static String generatedBlock(Suite suite, String chartFile) {
    StringBuilder sb = new StringBuilder();
    sb.append(BEGIN).append("\n\n");
    sb.append("## Results\n\n");
    sb.append("Measured ").append(suite.finished().withZoneSameInstant(ZoneOffset.UTC)
        .format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'", Locale.ROOT)))
        .append(" by `").append(suite.command()).append("` (").append(suite.quick() ? "quick mode" : "full mode")
        .append(", ").append(suite.rounds()).append(" round(s), ")
        .append(minutes(suite.elapsed())).append("). Every figure is the median over the rounds; the ratio is"
            + " shardkit's median over Pekko's, from the same suite run; \"per round\" lists the ratio within each"
            + " round (both libraries run back to back in that round, alternating which goes first).\n\n");
    sb.append(table(rows(suite))).append("\n");
    for (Section s : suite.sections()) {
      if (!s.rounds().isEmpty()) {
        sb.append("- ").append(s.title()).append(": ").append(s.rounds()).append('\n');
      }
    }
    sb.append('\n');
    sb.append("![shardkit's advantage over Pekko's sharding per figure](").append(chartFile).append(")\n\n");
    sb.append("### Targets\n\n");
    sb.append("Every target of the issue, judged from this run's medians (a target whose figures the run did not"
        + " produce is not measured, never met):\n\n");
    sb.append(targetTable(suite)).append('\n');
    sb.append("### Machine\n\n");
    suite.machine().forEach((k, v) -> sb.append("- ").append(k).append(": ").append(v).append('\n'));
    sb.append("- load average (1, 5, 15 min) at the start: ").append(suite.loadBefore()).append("; at the end: ")
        .append(suite.loadAfter()).append('\n');
    sb.append("\n### How each workload runs\n\n");
    sb.append("Every run is a fresh JVM started by the suite, with the same actor-system configuration for both"
        + " libraries (`dev.shardkit.benchmarks.harness.Nodes`): the default dispatcher, Artery TCP on"
        + " 127.0.0.1, `serialize-messages = off` (local messages are never serialized, as in production),"
        + " Jackson CBOR for the workloads' messages, each library with its default extractor and"
        + " allocation strategy. The entity is the same trivial counter for both (`workloads.Counter`).\n\n");
    for (Section s : suite.sections()) {
      sb.append("**").append(s.title()).append(".** ").append(s.method()).append("\n\n");
      for (String f : s.failures()) {
        sb.append("- failed run: ").append(f.replace("\n", " ")).append('\n');
      }
      if (!s.failures().isEmpty()) {
        sb.append('\n');
      }
    }
    sb.append("### Micro-benchmarks (JMH)\n\n");
    if (suite.microError() != null) {
      sb.append("Not measured: ").append(suite.microError()).append("\n\n");
    } else if (suite.micro().isEmpty()) {
      sb.append("Not run in this suite run.\n\n");
    } else {
      sb.append("shardkit's pure parts, ").append(suite.microSettings())
          .append(" (average time per operation, ± the 99.9 % confidence interval):\n\n");
      sb.append("| benchmark | score | unit |\n|---|---:|---|\n");
      for (Micro m : suite.micro()) {
        sb.append("| ").append(m.benchmark()).append(" | ").append(m.score()).append(" | ").append(m.unit())
            .append(" |\n");
      }
      sb.append('\n');
    }
    sb.append(END).append('\n');
    return sb.toString();
  }

  /**
   * Puts the generated block into the document: between the markers if it has them, otherwise at
   * its end (a missing document is created with only the block).
   */
  public static void updateDocument(Path doc, String block) throws IOException {
    String text = Files.exists(doc) ? Files.readString(doc) : "# Performance\n\n";
    int b = text.indexOf(BEGIN);
    int e = text.indexOf(END);
    String updated;
    if (b >= 0 && e > b) {
      updated = text.substring(0, b) + block + text.substring(e + END.length()).replaceFirst("^\\n", "");
    } else {
      updated = text + (text.endsWith("\n") ? "\n" : "\n\n") + block;
    }
    Files.createDirectories(doc.toAbsolutePath().getParent());
    Files.writeString(doc, updated);
  }

  private static String minutes(Duration d) {
    return String.format(Locale.ROOT, "%d min %02d s", d.toMinutes(), d.toSecondsPart());
  }
}
