package dev.shardkit.benchmarks.harness;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * When a swinging figure (throughput) has had enough rounds: the suite adds rounds until, for every
 * figure, the largest same-round shardkit / Pekko ratio of the latest rounds (as many as were
 * configured) is at most {@link #MAX_SPREAD} times the smallest, with at least the configured
 * rounds and at most {@link #MAX_ROUNDS} (or the configured rounds, if more). The window slides
 * because a spread over every round run could only grow with each added round. A pure rule over
 * run results; the medians in the report still use every round.
 */
public final class RoundsUntilStable {
  private RoundsUntilStable() {}

  /** The largest allowed max / min of one figure's same-round ratios. */
  public static final double MAX_SPREAD = 1.15;

  /** Rounds the rule adds up to, unless more were configured. */
  public static final int MAX_ROUNDS = 5;

  /**
   * The spread of the figures over the latest {@code window} rounds: the largest, over the figures
   * (per value of the run parameter {@code mode}, where a workload has modes), of the largest
   * same-round ratio shardkit / Pekko over the smallest. 1.0 with fewer than two rounds that have a
   * ratio; ratios that are zero, negative or not finite (a run that counted nothing) are left out.
   *
   * @param figures the figure names that count; others are ignored
   * @param window how many of the latest rounds count
   */
  public static Spread spread(List<RunResult> results, Set<String> figures, int window) {
    int last = results.stream().mapToInt(r -> r.spec().round()).max().orElse(0);
    Map<String, Map<Integer, Double>> shardkit = new HashMap<>();
    Map<String, Map<Integer, Double>> pekko = new HashMap<>();
    for (RunResult r : results) {
      if (!r.succeeded() || r.spec().round() <= last - window) {
        continue;
      }
      Map<String, Map<Integer, Double>> side = switch (r.spec().variant()) {
        case "shardkit" -> shardkit;
        case "pekko" -> pekko;
        default -> null;
      };
      if (side == null) {
        continue;
      }
      String mode = r.spec().params().getOrDefault("mode", "");
      r.values().forEach((figure, v) -> {
        if (figures.contains(figure)) {
          side.computeIfAbsent(mode.isEmpty() ? figure : mode + "/" + figure, k -> new TreeMap<>())
              .put(r.spec().round(), v);
        }
      });
    }
    Spread widest = new Spread(1.0, "");
    for (var e : shardkit.entrySet()) {
      Map<Integer, Double> p = pekko.getOrDefault(e.getKey(), Map.of());
      double min = Double.POSITIVE_INFINITY;
      double max = 0;
      int rounds = 0;
      for (var round : e.getValue().entrySet()) {
        Double pk = p.get(round.getKey());
        double ratio = pk == null ? Double.NaN : round.getValue() / pk;
        if (ratio > 0 && Double.isFinite(ratio)) {
          min = Math.min(min, ratio);
          max = Math.max(max, ratio);
          rounds++;
        }
      }
      if (rounds >= 2 && max / min > widest.value()) {
        widest = new Spread(max / min, e.getKey());
      }
    }
    return widest;
  }

  /**
   * Whether to run another round.
   *
   * @param done rounds run so far
   * @param configured the rounds asked for (the minimum)
   * @throws IllegalArgumentException if {@code configured} is below 1
   */
  public static boolean another(int done, int configured, Spread spread) {
    if (configured < 1) {
      throw new IllegalArgumentException("configured rounds must be at least 1, got " + configured);
    }
    if (done < configured) {
      return true;
    }
    return done < Math.max(MAX_ROUNDS, configured) && spread.value() > MAX_SPREAD;
  }

  /**
   * Runs a workload round by round through {@code execute}: at least {@code scale.rounds()}, then,
   * while {@link #another} says so for the {@code swinging} figures, one more (none when there are
   * none), of the modes that produce those figures. Round n's runs are those of the workload's plan for n rounds that belong to round n, so
   * a plan for n rounds must be its plan for n - 1 and round n.
   *
   * @param plan the workload's plan at a scale
   */
  public static Rounds run(Function<Scale, List<RunSpec>> plan, Scale scale, Set<String> swinging,
      Function<RunSpec, RunResult> execute) {
    List<RunResult> results = new ArrayList<>();
    int rounds = 0;
    Spread spread = new Spread(1.0, "");
    while (rounds < scale.rounds() || !swinging.isEmpty() && another(rounds, scale.rounds(), spread)) {
      int round = ++rounds;
      // An added round runs only the modes that produce swinging figures (remote's paced mode, not
      // its bursts): the others have had their configured rounds.
      Set<String> modes = round <= scale.rounds() ? null : modesWith(results, swinging);
      for (RunSpec spec : plan.apply(new Scale(scale.quick(), round))) {
        if (spec.round() == round && (modes == null || modes.contains(spec.params().getOrDefault("mode", "")))) {
          results.add(execute.apply(spec));
        }
      }
      spread = spread(results, swinging, scale.rounds());
    }
    return new Rounds(List.copyOf(results), rounds, spread);
  }

  /** The values of the run parameter {@code mode} ("" for none) of the runs that produced a swinging figure. */
  private static Set<String> modesWith(List<RunResult> results, Set<String> swinging) {
    Set<String> modes = new HashSet<>();
    for (RunResult r : results) {
      if (r.values().keySet().stream().anyMatch(swinging::contains)) {
        modes.add(r.spec().params().getOrDefault("mode", ""));
      }
    }
    return modes;
  }

  /** What {@link #run} ran: every run's result, how many rounds, and the spread after the last. */
  public record Rounds(List<RunResult> results, int rounds, Spread spread) {}

  /**
   * The widest spread and the figure it belongs to.
   *
   * @param value max / min of the figure's same-round ratios in the latest rounds, at least 1
   * @param figure the figure (with its mode), empty when no figure had two rounds
   */
  public record Spread(double value, String figure) {
    /** For the report: rounds, spread, and whether it settled. */
    public String describe(int rounds) {
      return String.format(Locale.ROOT, "%d round(s); spread of the latest same-round ratios %.2f×%s (%s ≤ %.2f×)", rounds,
          value, figure.isEmpty() ? "" : " (" + figure + ")", value <= MAX_SPREAD ? "settled" : "not settled", MAX_SPREAD);
    }
  }
}
