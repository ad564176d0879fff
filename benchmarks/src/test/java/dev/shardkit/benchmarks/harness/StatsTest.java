package dev.shardkit.benchmarks.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

class StatsTest {
  @Test
  void median() {
    assertEquals(2.0, Stats.median(List.of(3.0, 1.0, 2.0)));
    assertEquals(2.5, Stats.median(List.of(4.0, 1.0, 2.0, 3.0)));
    assertThrows(IllegalArgumentException.class, () -> Stats.median(List.of()));
  }

  @Test
  void nearestRankPercentiles() {
    double[] hundred = new double[100];
    for (int i = 0; i < 100; i++) {
      hundred[99 - i] = i + 1;
    }
    assertEquals(50.0, Stats.percentile(hundred, 50));
    assertEquals(99.0, Stats.percentile(hundred, 99));
    assertEquals(100.0, Stats.percentile(hundred, 100));
    assertEquals(7.0, Stats.percentile(new double[] {7}, 99));
    assertThrows(IllegalArgumentException.class, () -> Stats.percentile(hundred, 0));
    assertThrows(IllegalArgumentException.class, () -> Stats.percentile(new double[0], 50));
  }
}
