package dev.shardkit.benchmarks.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

class RowTest {
  @Test
  void higherIsBetterComparesMediansAndEachRound() {
    Row r = Row.compare("w", "tell", "M msg/s", 2, Row.Better.HIGHER, Map.of(1, 0.6, 2, 0.8, 3, 0.7),
        Map.of(1, 0.2, 2, 0.4, 3, 0.3), 2.5);
    assertEquals(0.7, r.shardkitMedian(), 1e-9);
    assertEquals(0.3, r.pekkoMedian(), 1e-9);
    assertEquals("2.33×", r.ratio());
    assertEquals("3.00×, 2.00×, 2.33×", r.perRound());
    assertEquals(Row.Verdict.NOT_MET, r.verdict());
    assertEquals("0.70 M msg/s", r.shardkit());
    assertTrue(r.complete());
  }

  @Test
  void lowerIsBetterTurnsTheAdvantageAround() {
    Row r = Row.compare("w", "p50", "ms", 1, Row.Better.LOWER, Map.of(1, 3.0), Map.of(1, 12.0), 1.0 / 3);
    assertEquals(Row.Verdict.MET, r.verdict());
    assertEquals(4.0, r.advantage(), 1e-9);
    assertEquals(3.0, r.targetAdvantage(), 1e-9);
    assertEquals("≤ 0.33×", r.target());
  }

  @Test
  void aMissingSideIsNoData() {
    Row r = Row.compare("w", "p50", "ms", 1, Row.Better.LOWER, Map.of(1, 3.0), Map.of(), 1.0 / 3);
    assertEquals(Row.Verdict.NO_DATA, r.verdict());
    assertEquals("n/a", r.pekko());
    assertFalse(r.complete());
  }

  @Test
  void absoluteTargets() {
    Row lost = Row.absolute("w", "lost", "", 0, Map.of(1, 0.0), Map.of(1, 3.0), "0", true);
    assertEquals(Row.Verdict.MET, lost.verdict());
    assertEquals("0", lost.shardkit());
    assertEquals("3", lost.pekko());
    assertEquals("1 338 B", Row.value(1338, "B", 0));
  }
}
