package dev.shardkit.benchmarks.harness;

/**
 * How big a suite run is.
 *
 * @param quick the short mode (CI): small sizes, one round, figures without meaning as numbers
 * @param rounds how many times each variant runs, alternating with the others
 */
public record Scale(boolean quick, int rounds) {
  public Scale {
    if (rounds < 1) {
      throw new IllegalArgumentException("rounds must be at least 1, got " + rounds);
    }
  }

  /** {@code full} in the full mode, {@code quickValue} in the quick one. */
  public int pick(int quickValue, int full) {
    return quick ? quickValue : full;
  }
}
