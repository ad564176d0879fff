package dev.shardkit.benchmarks.harness;

import java.util.Arrays;
import java.util.List;

/** Order statistics over samples. */
public final class Stats {
  private Stats() {}

  /**
   * The median (the mean of the middle two for an even count).
   *
   * @throws IllegalArgumentException if there are no samples
   */
  public static double median(List<Double> samples) {
    if (samples.isEmpty()) {
      throw new IllegalArgumentException("median of no samples");
    }
    double[] s = samples.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    int mid = s.length / 2;
    return s.length % 2 == 1 ? s[mid] : (s[mid - 1] + s[mid]) / 2.0;
  }

  /**
   * The {@code p}-th percentile by the nearest-rank method: the smallest sample at or above which
   * lie at least {@code p} percent of the samples.
   *
   * @throws IllegalArgumentException if there are no samples or {@code p} is outside (0, 100]
   */
  public static double percentile(double[] samples, double p) {
    if (samples.length == 0) {
      throw new IllegalArgumentException("percentile of no samples");
    }
    if (!(p > 0 && p <= 100)) {
      throw new IllegalArgumentException("percentile must be in (0, 100], got " + p);
    }
    double[] s = samples.clone();
    Arrays.sort(s);
    int rank = (int) Math.ceil(p / 100.0 * s.length);
    return s[Math.max(0, rank - 1)];
  }
}
