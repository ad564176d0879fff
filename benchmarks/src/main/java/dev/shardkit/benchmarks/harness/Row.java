package dev.shardkit.benchmarks.harness;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * One line of the results table: a figure for shardkit and for Pekko (medians over the rounds),
 * their ratio, the per-round ratios, and the target.
 *
 * @param shardkitMedian NaN when no shardkit run produced the figure
 * @param pekkoMedian NaN when no Pekko run produced it
 * @param advantage how many times better shardkit is (above 1: better, whichever way the figure
 *     improves); NaN when the row compares nothing. The chart draws it.
 * @param targetAdvantage the advantage the target asks for, NaN without one
 */
public record Row(String workload, String figure, String shardkit, String pekko, String ratio, String perRound,
    String target, Verdict verdict, double shardkitMedian, double pekkoMedian, double advantage,
    double targetAdvantage) {

  /** Whether the row's target is met. */
  public enum Verdict {
    MET("met"), NOT_MET("**not met**"), NO_TARGET("—"), NO_DATA("no data");

    private final String text;

    Verdict(String text) {
      this.text = text;
    }

    public String text() {
      return text;
    }
  }

  /** Which way a figure improves. */
  public enum Better { HIGHER, LOWER }

  /** The same row with another verdict. */
  public Row withVerdict(Verdict v) {
    return new Row(workload, figure, shardkit, pekko, ratio, perRound, target, v, shardkitMedian, pekkoMedian,
        advantage, targetAdvantage);
  }

  /** True when both libraries produced the figure. */
  public boolean complete() {
    return !Double.isNaN(shardkitMedian) && !Double.isNaN(pekkoMedian);
  }

  /**
   * A comparison row: medians, the ratio shardkit / Pekko of the medians, and the ratio of each
   * round in which both ran.
   *
   * @param shardkit round → value
   * @param pekko round → value
   * @param targetRatio the bound on shardkit / Pekko (a minimum when higher is better, a maximum
   *     when lower is); NaN for none
   */
  public static Row compare(String workload, String figure, String unit, int decimals, Better better,
      Map<Integer, Double> shardkit, Map<Integer, Double> pekko, double targetRatio) {
    double sk = shardkit.isEmpty() ? Double.NaN : Stats.median(List.copyOf(shardkit.values()));
    double pk = pekko.isEmpty() ? Double.NaN : Stats.median(List.copyOf(pekko.values()));
    double ratio = sk / pk;
    List<String> rounds = new ArrayList<>();
    SortedMap<Integer, Double> sorted = new TreeMap<>(shardkit);
    sorted.forEach((round, v) -> {
      Double p = pekko.get(round);
      if (p != null) {
        rounds.add(ratioText(v / p));
      }
    });
    String target = Double.isNaN(targetRatio) ? "—"
        : (better == Better.HIGHER ? "≥ " : "≤ ") + ratioText(targetRatio);
    Verdict verdict;
    if (Double.isNaN(ratio)) {
      verdict = Verdict.NO_DATA;
    } else if (Double.isNaN(targetRatio)) {
      verdict = Verdict.NO_TARGET;
    } else {
      boolean met = better == Better.HIGHER ? ratio >= targetRatio : ratio <= targetRatio;
      verdict = met ? Verdict.MET : Verdict.NOT_MET;
    }
    double advantage = better == Better.HIGHER ? ratio : 1 / ratio;
    double targetAdvantage = Double.isNaN(targetRatio) ? Double.NaN
        : better == Better.HIGHER ? targetRatio : 1 / targetRatio;
    return new Row(workload, figure, value(sk, unit, decimals), value(pk, unit, decimals), ratioText(ratio),
        String.join(", ", rounds), target, verdict, sk, pk, advantage, targetAdvantage);
  }

  /**
   * A row whose figure has a target of its own for shardkit (not a ratio), such as a time limit
   * or a loss count; the ratio column shows shardkit / Pekko for information.
   *
   * @param met whether shardkit's median meets the target; null when there is no shardkit figure
   */
  public static Row absolute(String workload, String figure, String unit, int decimals,
      Map<Integer, Double> shardkit, Map<Integer, Double> pekko, String target, Boolean met) {
    double sk = shardkit.isEmpty() ? Double.NaN : Stats.median(List.copyOf(shardkit.values()));
    double pk = pekko.isEmpty() ? Double.NaN : Stats.median(List.copyOf(pekko.values()));
    Verdict verdict = Double.isNaN(sk) || met == null ? Verdict.NO_DATA : met ? Verdict.MET : Verdict.NOT_MET;
    // A ratio to zero (or of zero, as for lost messages) says nothing.
    String ratio = pk == 0 || sk == 0 || Double.isNaN(sk / pk) ? "—" : ratioText(sk / pk);
    return new Row(workload, figure, value(sk, unit, decimals), value(pk, unit, decimals), ratio, "",
        target, verdict, sk, pk, Double.NaN, Double.NaN);
  }

  /**
   * A figure only shardkit has (Pekko's sharding does nothing to compare it with): Pekko's column
   * and the ratio read "n/a".
   *
   * @param target the target in words, "—" for none
   * @param met whether every round's figure meets the target; null when there is no target
   */
  public static Row shardkitOnly(String workload, String figure, String unit, int decimals,
      Map<Integer, Double> shardkit, String target, Boolean met) {
    double sk = shardkit.isEmpty() ? Double.NaN : Stats.median(List.copyOf(shardkit.values()));
    Verdict verdict = Double.isNaN(sk) ? Verdict.NO_DATA : met == null ? Verdict.NO_TARGET
        : met ? Verdict.MET : Verdict.NOT_MET;
    return new Row(workload, figure, value(sk, unit, decimals), "n/a", "n/a", "", target, verdict, sk, Double.NaN,
        Double.NaN, Double.NaN);
  }

  /** A figure that is not a library's, such as the plain-tell ceiling: shown in both columns. */
  public static Row baseline(String workload, String figure, String unit, int decimals, Map<Integer, Double> values) {
    double v = values.isEmpty() ? Double.NaN : Stats.median(List.copyOf(values.values()));
    String text = value(v, unit, decimals) + " (same run)";
    return new Row(workload, figure, text, text, "—", "", "—", Double.isNaN(v) ? Verdict.NO_DATA : Verdict.NO_TARGET,
        v, v, Double.NaN, Double.NaN);
  }

  /** Formats a value with a unit; "n/a" for NaN, "∞" for infinity. */
  public static String value(double v, String unit, int decimals) {
    if (Double.isNaN(v)) {
      return "n/a";
    }
    if (Double.isInfinite(v)) {
      return "∞";
    }
    String number = String.format(Locale.ROOT, "%,." + decimals + "f", v).replace(',', ' ');
    return unit.isEmpty() ? number : number + " " + unit;
  }

  public static String ratioText(double r) {
    if (Double.isNaN(r)) {
      return "n/a";
    }
    return String.format(Locale.ROOT, r >= 10 ? "%.1f×" : "%.2f×", r);
  }
}
