package dev.shardkit.benchmarks.micro;

import dev.shardkit.benchmarks.harness.ClassPath;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs the JMH benchmarks of this package (every class with a {@code @Benchmark} method in it: a
 * new benchmark needs no registration) in a JVM of their own (JMH forks further JVMs from it,
 * with the right class path, which it would not have under {@code mvn exec:java}).
 */
public final class MicroBenchmarks {
  private MicroBenchmarks() {}

  /** One benchmark's score. */
  public record Score(String benchmark, String mode, double score, double error, String unit) {}

  /** The settings {@code JmhLauncher} uses without options: one fork, 3 × 1 s warm-up, 5 × 1 s measurement. */
  public static final List<String> SHORT = List.of("-f", "1", "-wi", "3", "-w", "1s", "-i", "5", "-r", "1s");

  /**
   * The full suite's settings: one fork, 2 × 1 s warm-up, 3 × 1 s measurement (40 s in all instead
   * of {@link #SHORT}'s minute). These benchmarks warm up within the first second, and the report
   * gives the confidence interval, which says when three iterations were not enough.
   */
  public static final List<String> SUITE = List.of("-f", "1", "-wi", "2", "-w", "1s", "-i", "3", "-r", "1s");

  /** Settings for the quick mode: proves every benchmark runs, measures nothing. */
  public static final List<String> SMOKE = List.of("-f", "1", "-wi", "0", "-i", "1", "-r", "200ms");

  /**
   * Runs JMH with {@code options} over this package's benchmarks, its output going to this JVM's
   * stdout, and returns the scores.
   *
   * @throws IllegalStateException if JMH exits with an error
   */
  public static List<Score> run(List<String> options, Path workDir) throws IOException, InterruptedException {
    Files.createDirectories(workDir);
    Path csv = workDir.resolve("jmh.csv");
    Files.deleteIfExists(csv);
    List<String> command = new ArrayList<>(List.of(ClassPath.javaExecutable(), "-cp", ClassPath.current(),
        "org.openjdk.jmh.Main"));
    command.addAll(options);
    command.addAll(List.of("-rf", "csv", "-rff", csv.toString(), MicroBenchmarks.class.getPackageName() + "\\..*"));
    int code = new ProcessBuilder(command).inheritIO().start().waitFor();
    if (code != 0 || !Files.exists(csv)) {
      throw new IllegalStateException("JMH exited with code " + code + " (command: " + String.join(" ", command) + ")");
    }
    return parse(Files.readAllLines(csv));
  }

  /**
   * Reads JMH's CSV result file: a header, then one quoted row per benchmark and parameter set. A
   * benchmark with {@code @Param}s is named with their values ({@code Class.method [shards=10000]}),
   * so that each of its rows, and the targets judged on them, can be told apart.
   */
  static List<Score> parse(List<String> lines) {
    List<Score> scores = new ArrayList<>();
    List<String> header = lines.isEmpty() ? List.of() : csvFields(lines.get(0));
    for (String line : lines.subList(Math.min(1, lines.size()), lines.size())) {
      if (line.isBlank()) {
        continue;
      }
      List<String> f = csvFields(line);
      String name = f.get(0).substring(f.get(0).lastIndexOf('.', f.get(0).lastIndexOf('.') - 1) + 1);
      List<String> params = new ArrayList<>();
      for (int i = 7; i < Math.min(f.size(), header.size()); i++) {
        if (header.get(i).startsWith("Param: ") && !f.get(i).isEmpty()) {
          params.add(header.get(i).substring("Param: ".length()) + "=" + f.get(i));
        }
      }
      if (!params.isEmpty()) {
        name += " [" + String.join(", ", params) + "]";
      }
      double error = f.get(5).isEmpty() || f.get(5).equals("NaN") ? Double.NaN : Double.parseDouble(f.get(5));
      scores.add(new Score(name, f.get(1), Double.parseDouble(f.get(4)), error, f.get(6)));
    }
    return scores;
  }

  private static List<String> csvFields(String line) {
    List<String> fields = new ArrayList<>();
    StringBuilder cur = new StringBuilder();
    boolean quoted = false;
    for (char c : line.toCharArray()) {
      if (c == '"') {
        quoted = !quoted;
      } else if (c == ',' && !quoted) {
        fields.add(cur.toString());
        cur.setLength(0);
      } else {
        cur.append(c);
      }
    }
    fields.add(cur.toString());
    return fields;
  }
}
