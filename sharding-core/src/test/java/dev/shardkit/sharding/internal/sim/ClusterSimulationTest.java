package dev.shardkit.sharding.internal.sim;

import static org.junit.jupiter.api.Assertions.fail;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Runs the whole-cluster simulation ({@link ClusterSim}) for as many seeds as fit in a budget
 * ({@code -Dsim.budget=30s} by default), at least {@code -Dsim.minSeeds} of them (50), from a base
 * seed printed at the start ({@code -Dsim.base=<n>} fixes it), and prints how many ran. A violated
 * invariant fails the test with the seed, the invariant, the scenario as one line and the last
 * steps. {@code -Dsim.seed=<n>} replays one seed and prints its trace; {@code -Dsim.faults} picks
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
   * with their joins ({@link ClusterSim#JOINS_WITH_FAILURES}); 1340 (I7 before its exception for a
   * node confirmed back: a node frozen 4.9 s was confirmed by a majority and the regions' links,
   * released what they held, and was downed half a second later on the leader's older view; one
   * message sent after the confirmation was lost unacknowledged).
   */
  static final long[] REGRESSION_SEEDS = {1085, 7196, 1340};

  /**
   * Freeze-oldest seeds that found bugs, run every time in that family: 454, 691, 899, 1380 and
   * 1411 (I7; the 5 of seeds 1-1477 that failed), the loss the soak test measured. In seed 454 the
   * coordinator's node, frozen 5.4 s, was seen reachable again by one
   * region (its view had every observer's new record) while the leader's older view still had it
   * unreachable and downed it; that region released what it had held for the node's shards into
   * its link at once, the node's gate (no majority had confirmed it yet) refused the batches, and
   * when the node was removed the link closed with them unacknowledged. Fixed: a node seen
   * reachable again is returning, and what is held for it goes on only once a link to it had a
   * batch sent after its return acknowledged (HeldNodes, RegionMachine, LinkMachine's probe).
   */
  static final long[] FREEZE_OLDEST_REGRESSION_SEEDS = {454, 691, 899, 1380, 1411};

  @Test
  void seedsWithinTheBudget() {
    Set<SimScenario.Kind> kinds = kinds();
    String one = System.getProperty("sim.seed");
    if (one != null && !one.isBlank()) {
      ClusterSim.Outcome outcome = ClusterSim.run(Long.parseLong(one.trim()), kinds, FREEZE_OLDEST, Boolean.getBoolean("sim.dump"));
      System.out.println(outcome.result().scenario() + "\n" + counts(outcome));
      if (outcome.violation() != null) {
        fail(report(outcome));
      }
      return;
    }
    for (long seed : REGRESSION_SEEDS) {
      // Their scenarios keep their joins, whatever -Dsim.joinsWithFailures says.
      check(ClusterSim.run(seed, MODELLED, false, true, false));
    }
    for (long seed : FREEZE_OLDEST_REGRESSION_SEEDS) {
      check(ClusterSim.run(seed, MODELLED, true, false));
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
    long lostAfterConfirmation = 0;
    long seedsLostAfterConfirmation = 0;
    long dropped = 0;
    long withLoss = 0;
    while (System.nanoTime() - started < budget || seeds < minSeeds) {
      long t0 = System.nanoTime();
      ClusterSim.Outcome outcome = ClusterSim.run(base + seeds, kinds, FREEZE_OLDEST, false);
      if (System.nanoTime() - t0 > 2_000_000_000L) {
        System.out.println("slow seed " + (base + seeds) + ": " + (System.nanoTime() - t0) / 1_000_000 + " ms, "
            + outcome.result().steps() + " steps, " + outcome.result().scenario().actions());
      }
      seeds++;
      messages += outcome.sent();
      lost += outcome.lost();
      lostFromOthers += outcome.lostFromOthers();
      lostAfterConfirmation += outcome.lostAfterConfirmation();
      if (outcome.lostAfterConfirmation() > 0) {
        seedsLostAfterConfirmation++;
      }
      dropped += outcome.dropped();
      if (outcome.lost() + outcome.dropped() > 0) {
        withLoss++;
      }
      check(outcome);
    }
    double seconds = (System.nanoTime() - started) / 1e9;
    System.out.println(String.format(Locale.ROOT, "Cluster simulation: %d seeds in %.1f s (%.1f seeds/s), %d messages, "
        + "%d lost (%d with a node other than their sender's; %d in %d seeds sent after the sender had the node "
        + "confirmed back, and then it was downed) and %d dropped in %d seeds", seeds, seconds,
        seeds / seconds, messages, lost, lostFromOthers, lostAfterConfirmation, seedsLostAfterConfirmation, dropped,
        withLoss));
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

  private static void check(ClusterSim.Outcome outcome) {
    if (outcome.violation() != null) {
      fail(report(outcome));
    }
  }

  private static String counts(ClusterSim.Outcome o) {
    return o.sent() + " sent, " + o.processed() + " processed, " + o.dropped() + " dropped, " + o.lost() + " lost ("
        + o.lostFromOthers() + " with a node other than their sender's, " + o.lostAfterConfirmation()
        + " sent after the sender had the node confirmed back) "
        + o.reasons() + "; " + o.result().steps() + " steps, " + o.result().simulatedMs() + " ms simulated";
  }

  private static String report(ClusterSim.Outcome o) {
    CoordinatorOnlySim.Result r = o.result();
    return "seed " + r.scenario().seed() + " violates " + r.violation().invariant() + "\n  " + r.violation().getMessage()
        + "\n  scenario: " + r.scenario() + "\n  " + counts(o) + "\n  replay: mvn -pl sharding-core test "
        + "-Dtest=ClusterSimulationTest -Dsim.seed=" + r.scenario().seed() + "\n" + r.trace();
  }
}
