package dev.shardkit.benchmarks;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The suite's command line.
 *
 * @param only workload ids to run (plus {@code micro} for JMH); empty runs all
 * @param docs where to write {@code performance.md} and its chart; empty writes nothing
 * @param work where each run's log goes
 * @param jfr record every run with JDK Flight Recorder and summarize where the time went
 */
public record SuiteOptions(boolean quick, int rounds, Set<String> only, Optional<Path> docs, Path work, boolean jfr) {

  public static final String USAGE = """
      BenchmarkSuite [--quick] [--rounds N] [--only ID,ID...] [--docs DIR | --no-docs] [--work DIR] [--jfr]
        --quick      small sizes, one round, JMH only as a smoke test; writes no docs unless --docs is given
        --rounds N   rounds of every workload (default 3; 1 with --quick); in the full mode the
                     throughput workloads (local, remote) add rounds, up to 5, until the
                     same-round ratios of their latest N rounds agree within 1.15×; moves
                     runs at most 2
        --only       run only these: local, remote, first-message, rebalance, moves, memory,
                     recovery, micro
        --docs DIR   write DIR/performance.md (generated block) and DIR/performance.png
                     (default in the full mode without --only: the repository's docs/)
        --no-docs    write nothing
        --work DIR   logs of every run (default: benchmarks/target/bench-runs)
        --jfr        record every run with JDK Flight Recorder (settings=profile): DIR/<run>.jfr, and
                     DIR/<run>.jfr.txt with the hottest methods per thread kind
      """;

  /**
   * @throws IllegalArgumentException naming the bad option
   */
  public static SuiteOptions parse(List<String> args, Path repositoryRoot) {
    boolean quick = false;
    Integer rounds = null;
    Set<String> only = new LinkedHashSet<>();
    Path docs = null;
    boolean noDocs = false;
    boolean jfr = false;
    Path work = repositoryRoot.resolve("benchmarks/target/bench-runs");
    List<String> a = new ArrayList<>();
    for (String arg : args) {
      int eq = arg.indexOf('=');
      if (arg.startsWith("--") && eq > 0) {
        a.add(arg.substring(0, eq));
        a.add(arg.substring(eq + 1));
      } else if (!arg.isBlank()) {
        a.add(arg);
      }
    }
    for (int i = 0; i < a.size(); i++) {
      String opt = a.get(i);
      switch (opt) {
        case "--quick" -> quick = true;
        case "--no-docs" -> noDocs = true;
        case "--jfr" -> jfr = true;
        case "--rounds" -> {
          String v = value(a, ++i, opt);
          try {
            rounds = Integer.parseInt(v);
          } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--rounds needs a whole number, got [" + v + "]");
          }
          if (rounds < 1) {
            throw new IllegalArgumentException("--rounds must be at least 1, got " + rounds);
          }
        }
        case "--only" -> {
          for (String id : value(a, ++i, opt).split(",")) {
            if (!id.isBlank()) {
              only.add(id.trim());
            }
          }
        }
        case "--docs" -> docs = Path.of(value(a, ++i, opt));
        case "--work" -> work = Path.of(value(a, ++i, opt));
        default -> throw new IllegalArgumentException("unknown option [" + opt + "]\n" + USAGE);
      }
    }
    // Only a full run of everything may replace the published figures.
    if (docs == null && !quick && !noDocs && only.isEmpty()) {
      docs = repositoryRoot.resolve("docs");
    }
    if (noDocs) {
      docs = null;
    }
    return new SuiteOptions(quick, rounds != null ? rounds : quick ? 1 : 3, only, Optional.ofNullable(docs), work,
        jfr);
  }

  private static String value(List<String> args, int i, String option) {
    if (i >= args.size() || args.get(i).startsWith("--")) {
      throw new IllegalArgumentException(option + " needs a value\n" + USAGE);
    }
    return args.get(i);
  }

  public boolean runs(String id) {
    return only.isEmpty() || only.contains(id);
  }
}
