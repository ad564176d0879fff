package dev.shardkit.sharding.internal.sim;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Runs the coordinator-only simulation ({@link CoordinatorOnlySim}) for as many seeds as fit in a
 * budget ({@code -Dsim.budget=30s} by default; {@code 2m}, {@code 500ms} work too), from a base
 * seed printed at the start ({@link SimSeeds#DEFAULT_BASE} unless {@code -Dsim.base=<n>} or
 * {@code -Dsim.base=random}), on {@code -Dsim.threads} threads
 * (2), and prints how many ran. With the default budget, as in CI, it runs on past the budget until
 * 1 000 seeds have run ({@code -Dsim.minSeeds} changes that): a slower simulation or machine takes
 * longer rather than checking less ({@link SimSeeds}). A
 * violated invariant fails the test with the seed, the invariant and the last steps.
 * {@code -Dsim.seed=<n>} replays one seed and prints its trace. The {@code sim-soak} profile runs
 * it alone for 30 minutes.
 */
class CoordinatorSimulationTest {

  /** Seeds that found bugs in the coordinator, run every time. */
  static final long[] REGRESSION_SEEDS = {
    // A home replaced within one batched write was announced at both homes (store outage, a
    // region's node leaves, the shard asked for again meanwhile): fixed in CoordinatorMachine.
    // Found before frozen coordinators could outlive their node: replay with -Dsim.zombies=false.
    1883050351553755202L,
  };

  /**
   * Seeds, with frozen coordinators thawing after their node was removed ({@code sim.zombies}),
   * in which a write is refused as superseded and the cluster still ends well, run every time.
   *
   * <p>1883050802096648258: the coordinator's node is frozen until it is downed and removed, a
   * successor takes over (term 3), and the store is a database outside the cluster. Thawed, the
   * old coordinator handles its backlog before it learns it was removed; its write is refused as
   * superseded. It used to load again at once, at term 4, and write its stale view (its own dead
   * region registered with its shards, the region of a node that joined meanwhile forgotten)
   * before it shut down; the successor, idle, wrote nothing and so did not learn it was
   * superseded, and the store kept homes at a dead region (I10). Fixed in CoordinatorMachine: a
   * superseded coordinator loads again only once its node's delivery gate is open.
   */
  static final long[] SUPERSEDED_SEEDS = {114, 209, 821, 1883050802096648258L};


  @Test
  void seedsWithinTheBudget() throws Exception {
    String one = System.getProperty("sim.seed");
    if (one != null && !one.isBlank()) {
      replay(Long.parseLong(one.trim()));
      return;
    }
    long budget = budgetNanos(System.getProperty("sim.budget", "30s"));
    long base = SimSeeds.base();
    int threads = Integer.getInteger("sim.threads", 2);
    long minSeeds = Long.getLong("sim.minSeeds", System.getProperty("sim.budget") == null ? 1000 : 0);
    System.out.println("Coordinator simulation: base seed " + base + ", budget " + budget / 1_000_000 + " ms, "
        + threads + " thread(s), at least " + minSeeds + " seeds");
    // The first seed pays for loading classes and the refs' actor system, outside the budget; it is
    // checked like the others, so the seeds run are exactly base, base + 1, ...
    CoordinatorOnlySim.Result first = CoordinatorOnlySim.run(base, false);
    if (first.violation() != null) {
      fail(report(first));
    }
    AtomicLong steps = new AtomicLong(first.steps());
    SimSeeds.Ran<CoordinatorOnlySim.Result> ran = SimSeeds.run(base + 1, budget, minSeeds - 1, threads,
        seed -> CoordinatorOnlySim.run(seed, false), r -> r.violation() != null, r -> steps.addAndGet(r.steps()));
    System.out.printf("Coordinator simulation: %d seeds in %.1f s (%d steps), seeds %d to %d%n", ran.seeds() + 1,
        ran.seconds(), steps.get(), base, ran.lastSeed());
    System.out.println("coordinator notices: " + CoordinatorOnlySim.noticeCounts());
    if (ran.failed() != null) {
      fail(report(ran.failed()));
    }
  }

  /**
   * Seeds that found bugs with frozen coordinators outliving their node ({@code sim.zombies}, the
   * default), run every time.
   *
   * <p>1883085820350823815: the coordinator's node is frozen while its first load keeps failing
   * (a store outage), and is downed and removed; a successor loads at term 2. Thawed, the old
   * coordinator's load retry fired and loaded at term 3, superseding the successor, and wrote its
   * stale view (shards homed at its own dead region); the successor, idle, did not notice (I10).
   * Fixed in CoordinatorMachine: every load, not only a reload after a refused write, waits for
   * the node's delivery gate to open.
   *
   * <p>73697: a write's reply was lost though the store held it (shard 15 moved); a later
   * decision moved the shard back, stored and decided agreed again, and the coordinator told a
   * region the old home while the store held the new one; a successor then moved the shard as
   * unused, and that region's belief stayed wrong (I10). Fixed in CoordinatorWrites: a shard named
   * by the write in flight is not settled.
   *
   * <p>451471: a region asked for shard 13 while a write placing it was retried through a store
   * outage; the region it was placed at was lost, and the shard, placed again with that region's
   * others, counted as unused again. The pending answer started it at its new home, and a region
   * that joined later got it without a hand-off, where it started too (I2). Fixed in Placement: a
   * shard once asked for or told of is never unused again.
   *
   * <p>12553: found once the gate keeper's machine was driven, a model error. A coordinator that
   * started on a frozen node waited for its gate, which looked open (the pause is found at thaw),
   * and the wake-up it was sent ran at thaw after the gate had closed: the coordinator, whose node
   * had been downed while it was frozen, loaded and took the store from its successor (I10).
   * The simulated gate now wakes a waiter only if it is still open when the waiter runs, as a
   * real gate's expired lease looks closed to whoever reads it after a pause.
   */
  static final long[] ZOMBIE_REGRESSION_SEEDS = {1883085820350823815L, 73697, 451471, 12553};

  @Test
  void regressionSeeds() {
    for (long seed : REGRESSION_SEEDS) {
      CoordinatorOnlySim.Result result = CoordinatorOnlySim.run(seed, false, false);
      if (result.violation() != null) {
        fail(report(result));
      }
    }
    for (long seed : ZOMBIE_REGRESSION_SEEDS) {
      CoordinatorOnlySim.Result result = CoordinatorOnlySim.run(seed, true, false);
      if (result.violation() != null) {
        fail(report(result));
      }
    }
  }

  @Test
  void supersededWritesLoadAgain() {
    for (long seed : SUPERSEDED_SEEDS) {
      CoordinatorOnlySim.Result result = CoordinatorOnlySim.run(seed, true, false);
      if (result.violation() != null) {
        fail(report(result));
      }
      assertTrue(result.superseded() > 0, "seed " + seed + " no longer has a write refused as superseded: "
          + "the models changed; pick another seed with -Dsim.zombies=true");
    }
  }

  private static void replay(long seed) {
    CoordinatorOnlySim.Result result = CoordinatorOnlySim.run(seed, true);
    System.out.println("seed " + seed + ": " + result.scenario() + "\n" + result.steps() + " steps, "
        + result.simulatedMs() + " ms simulated, trace hash " + Long.toHexString(result.hash()));
    if (result.violation() != null) {
      fail(report(result));
    }
  }

  static String report(CoordinatorOnlySim.Result result) {
    return "seed " + result.scenario().seed() + " broke " + result.violation().invariant() + "\n"
        + result.violation().getMessage() + "\nscenario: " + result.scenario() + "\nat " + result.simulatedMs()
        + " ms simulated, step " + result.steps() + "; the last steps:\n" + result.trace()
        + "replay: mvn -pl sharding-core test -Dtest=CoordinatorSimulationTest -Dsim.seed=" + result.scenario().seed()
        + (Boolean.parseBoolean(System.getProperty("sim.zombies", "true")) ? "" : " -Dsim.zombies=false");
  }

  static long budgetNanos(String text) {
    String t = text.trim().toLowerCase();
    if (t.endsWith("ms")) {
      return Long.parseLong(t.substring(0, t.length() - 2)) * 1_000_000L;
    } else if (t.endsWith("s")) {
      return Long.parseLong(t.substring(0, t.length() - 1)) * 1_000_000_000L;
    } else if (t.endsWith("m")) {
      return Long.parseLong(t.substring(0, t.length() - 1)) * 60_000_000_000L;
    }
    return Long.parseLong(t) * 1_000_000_000L;
  }
}
