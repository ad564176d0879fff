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
    RoundsUntilStable.Spread s = RoundsUntilStable.spread(results, FIGURES, 3);
    assertEquals(1.5, s.value(), 1e-9);
    assertEquals("mmps", s.figure());
    assertEquals(1.25, RoundsUntilStable.spread(results, FIGURES, 2).value(), 1e-9, "only the latest two rounds");
  }

  @Test
  void eachModeIsItsOwnFigureAndOtherFiguresDoNotCount() {
    List<RunResult> results = new ArrayList<>();
    // Each mode is steady by itself; mixing them (2× against 1×) would look like a 2× spread.
    results.addAll(round(1, "a", 2.0, 1.0));
    results.addAll(round(2, "a", 4.0, 2.0));
    results.addAll(round(1, "b", 1.0, 1.0));
    results.addAll(round(2, "b", 1.1, 1.0));
    RoundsUntilStable.Spread s = RoundsUntilStable.spread(results, FIGURES, 2);
    assertEquals(1.1, s.value(), 1e-9);
    assertEquals("b/mmps", s.figure());
  }

  @Test
  void failedRunsAndZeroFiguresAreLeftOutAndOneRoundHasNoSpread() {
    List<RunResult> results = new ArrayList<>(round(1, "", 2.0, 1.0));
    results.addAll(round(2, "", 0.0, 1.0));
    results.add(RunResult.failed(new RunSpec("local", "shardkit", 3, Map.of()), "boom"));
    assertEquals(1.0, RoundsUntilStable.spread(results, FIGURES, 3).value());
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

  /** Runs the rule over a workload whose round r has shardkit / Pekko = ratios[r - 1]. */
  private static RoundsUntilStable.Rounds runWith(int configured, Set<String> swinging, double... ratios) {
    return RoundsUntilStable.run(scale -> Results.alternate("local", scale.rounds(), List.of("shardkit", "pekko"),
        Map.of()), new Scale(false, configured), swinging, spec -> RunResult.ok(spec, Map.of("mmps",
            spec.variant().equals("pekko") ? 1.0 : ratios[spec.round() - 1])));
  }

  @Test
  void runStopsAtTheFirstRoundWhoseRatiosAgree() {
    RoundsUntilStable.Rounds r = runWith(3, FIGURES, 1.0, 1.5, 1.2, 1.3, 1.25, 9.0, 9.0);
    // The latest three are 1.5× apart after three rounds, 1.25× after four; five is the limit.
    assertEquals(5, r.rounds());
    assertEquals(10, r.results().size(), "each round runs both libraries once");
    RoundsUntilStable.Rounds settled = runWith(3, FIGURES, 2.0, 2.1, 2.2, 9.0);
    assertEquals(3, settled.rounds());
    assertEquals(1.1, settled.spread().value(), 1e-9);
    assertTrue(settled.spread().describe(3).contains("3 round(s)"));
  }

  @Test
  void runWithoutSwingingFiguresRunsTheConfiguredRoundsOnly() {
    assertEquals(3, runWith(3, Set.of(), 1.0, 3.0, 1.0, 9.0, 9.0).rounds());
    assertEquals(4, runWith(3, FIGURES, 1.5, 1.0, 1.1, 1.12, 9.0).rounds(),
        "after the fourth round the latest three agree within 1.12×");
  }

  @Test
  void addedRoundsRunOnlyTheModesWithSwingingFigures() {
    List<RunSpec> ran = new ArrayList<>();
    RoundsUntilStable.Rounds r = RoundsUntilStable.run(scale -> {
      List<RunSpec> plan = new ArrayList<>();
      for (String mode : List.of("paced", "burst")) {
        plan.addAll(Results.alternate("remote", scale.rounds(), List.of("shardkit", "pekko"), Map.of("mode", mode)));
      }
      return plan;
    }, new Scale(false, 3), FIGURES, spec -> {
      ran.add(spec);
      boolean paced = spec.param("mode").equals("paced");
      // The paced ratio swings between 1× and 2× every round; the burst has no swinging figure.
      double shardkit = spec.round() % 2 == 0 ? 2.0 : 1.0;
      return RunResult.ok(spec, paced ? Map.of("mmps", spec.variant().equals("pekko") ? 1.0 : shardkit)
          : Map.of("burst", 5.0));
    });
    assertEquals(5, r.rounds());
    assertEquals(12 + 4, ran.size(), "three full rounds of both modes, then two of the paced mode only");
    assertTrue(ran.stream().filter(s -> s.round() > 3).allMatch(s -> s.param("mode").equals("paced")), ran.toString());
  }
}
