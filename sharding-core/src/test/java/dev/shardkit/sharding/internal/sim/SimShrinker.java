package dev.shardkit.sharding.internal.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;

/**
 * Shortens a failing cluster-simulation scenario: takes its actions out one at a time and keeps
 * each removal after which the same seed still breaks the same invariant, until no single action
 * can go. What is left is usually the one or two faults that make the bug, so the printed trace
 * is about them. The seed stays the same (traffic, timings and the models' draws come from it), so
 * a shrunk scenario replays exactly with {@code -Dsim.seed=<seed> -Dsim.keep=<indices>}.
 */
final class SimShrinker {

  /** The smallest scenario found, the indices of its actions in the original, and its outcome. */
  record Shrunk(SimScenario scenario, List<Integer> kept, ClusterSim.Outcome outcome, int runs) {
    /** The {@code -Dsim.keep} value that replays it. */
    String keep() {
      StringJoiner j = new StringJoiner(",");
      kept.forEach(i -> j.add(Integer.toString(i)));
      return kept.isEmpty() ? "none" : j.toString();
    }
  }

  private SimShrinker() {}

  /**
   * @param failing a scenario whose run broke {@code invariant}
   * @param freezeOldest whether it ran with the freeze-oldest family's settings
   * @param maxRuns how many more runs shrinking may take (each is a whole simulated run)
   */
  static Shrunk shrink(SimScenario failing, boolean freezeOldest, ClusterSim.Outcome failed, int maxRuns) {
    String invariant = failed.violation().invariant();
    List<Integer> kept = new ArrayList<>();
    for (int i = 0; i < failing.actions().size(); i++) {
      kept.add(i);
    }
    ClusterSim.Outcome best = failed;
    int runs = 0;
    boolean removed = true;
    while (removed && runs < maxRuns) {
      removed = false;
      for (int k = kept.size() - 1; k >= 0 && runs < maxRuns; k--) {
        List<Integer> fewer = new ArrayList<>(kept);
        fewer.remove(k);
        ClusterSim.Outcome outcome = ClusterSim.run(keeping(failing, fewer), freezeOldest, failed.model(), false);
        runs++;
        if (outcome.violation() != null && outcome.violation().invariant().equals(invariant)) {
          kept = fewer;
          best = outcome;
          removed = true;
        }
      }
    }
    return new Shrunk(keeping(failing, kept), List.copyOf(kept), best, runs);
  }

  /** The scenario with only the actions at {@code indices} (in their order). */
  static SimScenario keeping(SimScenario scenario, List<Integer> indices) {
    List<SimScenario.Action> actions = new ArrayList<>();
    for (int i : indices) {
      actions.add(scenario.actions().get(i));
    }
    return scenario.withActions(actions);
  }

  /** Parses {@code -Dsim.keep}: {@code none}, or comma-separated action indices. */
  static List<Integer> parseKeep(String keep) {
    List<Integer> indices = new ArrayList<>();
    if (!keep.trim().equals("none")) {
      for (String part : keep.split(",")) {
        indices.add(Integer.parseInt(part.trim()));
      }
    }
    return indices;
  }
}
