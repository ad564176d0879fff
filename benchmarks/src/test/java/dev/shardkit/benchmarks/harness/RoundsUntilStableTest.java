package dev.shardkit.benchmarks.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RoundsUntilStableTest {
  private static final Set<String> FIGURES = Set.of("mmps");

  /** shardkit and Pekko runs of one round, with the given figure values. */
  private static List<RunResult> round(int round, String mode, double shardkit, double pekko) {
    Map<String, String> params = mode.isEmpty() ? Map.of() : Map.of("mode", mode);
    return List.of(RunResult.ok(new RunSpec("local", "shardkit", round, params), Map.of("mmps", shardkit, "lost", 7.0)),
        RunResult.ok(new RunSpec("local", "pekko", round, params), Map.of("mmps", pekko, "lost", 1.0)));
  }

  @Test
  void spreadIsTheLargestSameRoundRatioOverTheSmallest() {
    List<RunResult> results = new ArrayList<>();
    results.addAll(round(1, "", 3.0, 1.0));
    results.addAll(round(2, "", 2.0, 1.0));
    results.addAll(round(3, "", 5.0, 2.0));
    RoundsUntilStable.Spread s = RoundsUntilStable.spread(results, FIGURES);
    assertEquals(1.5, s.value(), 1e-9);
    assertEquals("mmps", s.figure());
  }

  @Test
  void eachModeIsItsOwnFigureAndOtherFiguresDoNotCount() {
    List<RunResult> results = new ArrayList<>();
    // Each mode is steady by itself; mixing them (2× against 1×) would look like a 2× spread.
    results.addAll(round(1, "a", 2.0, 1.0));
    results.addAll(round(2, "a", 4.0, 2.0));
    results.addAll(round(1, "b", 1.0, 1.0));
    results.addAll(round(2, "b", 1.1, 1.0));
    RoundsUntilStable.Spread s = RoundsUntilStable.spread(results, FIGURES);
    assertEquals(1.1, s.value(), 1e-9);
    assertEquals("b/mmps", s.figure());
  }

  @Test
  void failedRunsAndZeroFiguresAreLeftOutAndOneRoundHasNoSpread() {
    List<RunResult> results = new ArrayList<>(round(1, "", 2.0, 1.0));
    results.addAll(round(2, "", 0.0, 1.0));
    results.add(RunResult.failed(new RunSpec("local", "shardkit", 3, Map.of()), "boom"));
    assertEquals(1.0, RoundsUntilStable.spread(results, FIGURES).value());
  }

  @Test
  void runsAtLeastTheConfiguredRounds() {
    RoundsUntilStable.Spread settled = new RoundsUntilStable.Spread(1.0, "");
    assertTrue(RoundsUntilStable.another(2, 3, settled));
    assertFalse(RoundsUntilStable.another(3, 3, settled));
  }

  @Test
  void addsRoundsWhileTheSpreadIsAbove115UpToFive() {
    RoundsUntilStable.Spread wide = new RoundsUntilStable.Spread(1.16, "mmps");
    RoundsUntilStable.Spread edge = new RoundsUntilStable.Spread(1.15, "mmps");
    assertTrue(RoundsUntilStable.another(3, 3, wide));
    assertTrue(RoundsUntilStable.another(4, 3, wide));
    assertFalse(RoundsUntilStable.another(5, 3, wide), "five rounds at most");
    assertFalse(RoundsUntilStable.another(3, 3, edge), "1.15× is settled");
  }

  @Test
  void moreConfiguredRoundsThanFiveAreAllRun() {
    RoundsUntilStable.Spread settled = new RoundsUntilStable.Spread(1.0, "");
    assertTrue(RoundsUntilStable.another(6, 7, settled));
    assertFalse(RoundsUntilStable.another(7, 7, new RoundsUntilStable.Spread(2.0, "mmps")));
  }

  @Test
  void rejectsConfiguredRoundsBelowOne() {
    assertThrows(IllegalArgumentException.class,
        () -> RoundsUntilStable.another(0, 0, new RoundsUntilStable.Spread(1.0, "")));
  }
}
