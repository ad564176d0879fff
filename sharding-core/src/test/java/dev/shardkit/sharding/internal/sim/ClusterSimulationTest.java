package dev.shardkit.sharding.internal.sim;

import static org.junit.jupiter.api.Assertions.fail;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;
import java.util.StringJoiner;
import org.junit.jupiter.api.Test;

/**
 * Runs the whole-cluster simulation ({@link ClusterSim}) for as many seeds as fit in a budget
 * ({@code -Dsim.budget=30s} by default), at least {@code -Dsim.minSeeds} of them (50), from a base
 * seed printed at the start ({@code -Dsim.base=<n>} fixes it), and prints how many ran. A violated
 * invariant fails the test with the seed, the invariant, the scenario as one line and the last
 * steps, then the scenario shrunk to the actions that still break it ({@link SimShrinker}) with its
 * own last steps. {@code -Dsim.seed=<n>} replays one seed and prints its trace ({@code
 * -Dsim.keep=<indices>} keeps only those of its actions, as a shrunk report says); {@code -Dsim.faults} picks
 * the fault kinds ({@code none}, or a comma-separated list of {@link SimScenario.Kind}s; the
 * default is every kind this simulation models so far).
 */
class ClusterSimulationTest {

  /** The fault kinds the simulation models so far. */
  static final Set<SimScenario.Kind> MODELLED = EnumSet.of(SimScenario.Kind.CRASH, SimScenario.Kind.FREEZE,
      SimScenario.Kind.PARTITION, SimScenario.Kind.LEAVE, SimScenario.Kind.JOIN, SimScenario.Kind.STORE_OUTAGE);

  /** {@code -Dsim.family=freezeOldest}: the freeze-oldest family (plan §5) instead of the seeds' own actions. */
  static final boolean FREEZE_OLDEST = "freezeOldest".equals(System.getProperty("sim.family"));

  /**
   * Seeds that found bugs, run every time: 1085 (I5) and 7196 (I3), a region that joined during
   * another's removal margin and was told that region's homes (fixed in CoordinatorMachine); run
   * with their joins ({@link ClusterSim#JOINS_WITH_FAILURES}).
   */
  static final long[] REGRESSION_SEEDS = {1085, 7196};

  @Test
  void seedsWithinTheBudget() {
    Set<SimScenario.Kind> kinds = kinds();
    String one = System.getProperty("sim.seed");
    if (one != null && !one.isBlank()) {
      SimScenario scenario = ClusterSim.scenario(Long.parseLong(one.trim()), kinds, FREEZE_OLDEST,
          ClusterSim.JOINS_WITH_FAILURES);
      String keep = System.getProperty("sim.keep");
      if (keep != null && !keep.isBlank()) {
        scenario = SimShrinker.keeping(scenario, SimShrinker.parseKeep(keep));
      }
      ClusterSim.Outcome outcome = ClusterSim.run(scenario, Boolean.getBoolean("sim.dump"));
      System.out.println(outcome.result().scenario() + "\n" + counts(outcome));
      check(scenario, outcome, replayFlags(kinds));
      return;
    }
    for (long seed : REGRESSION_SEEDS) {
      // Their scenarios keep their joins, whatever -Dsim.joinsWithFailures says.
      check(ClusterSim.scenario(seed, MODELLED, false, true), " -Dsim.joinsWithFailures=true");
    }
    long budget = CoordinatorSimulationTest.budgetNanos(System.getProperty("sim.budget", "30s"));
    long base = Long.getLong("sim.base", System.nanoTime() ^ System.currentTimeMillis() << 20);
    long minSeeds = Long.getLong("sim.minSeeds", 50);
    System.out.println("Cluster simulation: base seed " + base + ", budget " + budget / 1_000_000 + " ms, "
        + (FREEZE_OLDEST ? "the freeze-oldest family" : "faults " + kinds));
    long started = System.nanoTime();
    long seeds = 0;
    long messages = 0;
    long lost = 0;
    long lostFromOthers = 0;
    long dropped = 0;
    long withLoss = 0;
    while (System.nanoTime() - started < budget || seeds < minSeeds) {
      long t0 = System.nanoTime();
      SimScenario scenario = ClusterSim.scenario(base + seeds, kinds, FREEZE_OLDEST, ClusterSim.JOINS_WITH_FAILURES);
      ClusterSim.Outcome outcome = ClusterSim.run(scenario, false);
      if (System.nanoTime() - t0 > 2_000_000_000L) {
        System.out.println("slow seed " + (base + seeds) + ": " + (System.nanoTime() - t0) / 1_000_000 + " ms, "
            + outcome.result().steps() + " steps, " + outcome.result().scenario().actions());
      }
      seeds++;
      messages += outcome.sent();
      lost += outcome.lost();
      lostFromOthers += outcome.lostFromOthers();
      dropped += outcome.dropped();
      if (outcome.lost() + outcome.dropped() > 0) {
        withLoss++;
      }
      check(scenario, outcome, replayFlags(kinds));
    }
    double seconds = (System.nanoTime() - started) / 1e9;
    System.out.println(String.format(Locale.ROOT, "Cluster simulation: %d seeds in %.1f s (%.1f seeds/s), %d messages, "
        + "%d lost (%d with a node other than their sender's) and %d dropped in %d seeds", seeds, seconds,
        seeds / seconds, messages, lost, lostFromOthers, dropped, withLoss));
  }

  private static Set<SimScenario.Kind> kinds() {
    String faults = System.getProperty("sim.faults");
    if (faults == null || faults.isBlank()) {
      return MODELLED;
    }
    Set<SimScenario.Kind> kinds = EnumSet.noneOf(SimScenario.Kind.class);
    if (!faults.trim().equals("none")) {
      for (String k : faults.split(",")) {
        kinds.add(SimScenario.Kind.valueOf(k.trim().toUpperCase(Locale.ROOT)));
      }
    }
    return kinds;
  }

  private static void check(SimScenario scenario, String flags) {
    check(scenario, ClusterSim.run(scenario, false), flags);
  }

  /** A violation fails the test with the scenario shrunk to the actions that still break the same invariant. */
  private static void check(SimScenario scenario, ClusterSim.Outcome outcome, String flags) {
    if (outcome.violation() != null) {
      SimShrinker.Shrunk shrunk = SimShrinker.shrink(scenario, outcome, Integer.getInteger("sim.shrinkRuns", 60));
      fail(report(outcome, flags) + "\nshrunk in " + shrunk.runs() + " runs to " + shrunk.scenario().actions().size()
          + " of " + scenario.actions().size() + " actions, still "
          + shrunk.outcome().violation().getMessage() + "\n  replay: mvn -pl sharding-core test "
          + "-Dtest=ClusterSimulationTest -Dsim.seed=" + scenario.seed() + flags + " -Dsim.keep=" + shrunk.keep()
          + "\n" + shrunk.outcome().result().trace());
    }
  }

  /** The flags that give a replay the same fault kinds and family as this run. */
  private static String replayFlags(Set<SimScenario.Kind> kinds) {
    StringBuilder flags = new StringBuilder();
    if (FREEZE_OLDEST) {
      flags.append(" -Dsim.family=freezeOldest");
    }
    if (!kinds.equals(MODELLED)) {
      StringJoiner names = new StringJoiner(",");
      kinds.forEach(k -> names.add(k.name().toLowerCase(Locale.ROOT)));
      flags.append(" -Dsim.faults=").append(kinds.isEmpty() ? "none" : names.toString());
    }
    if (ClusterSim.JOINS_WITH_FAILURES) {
      flags.append(" -Dsim.joinsWithFailures=true");
    }
    return flags.toString();
  }

  private static String counts(ClusterSim.Outcome o) {
    return o.sent() + " sent, " + o.processed() + " processed, " + o.dropped() + " dropped, " + o.lost() + " lost ("
        + o.lostFromOthers() + " with a node other than their sender's) "
        + o.reasons() + "; " + o.result().steps() + " steps, " + o.result().simulatedMs() + " ms simulated";
  }

  private static String report(ClusterSim.Outcome o, String flags) {
    CoordinatorOnlySim.Result r = o.result();
    return "seed " + r.scenario().seed() + " violates " + r.violation().invariant() + "\n  " + r.violation().getMessage()
        + "\n  scenario: " + r.scenario() + "\n  " + counts(o) + "\n  replay: mvn -pl sharding-core test "
        + "-Dtest=ClusterSimulationTest -Dsim.seed=" + r.scenario().seed() + flags + "\n" + r.trace();
  }
}
