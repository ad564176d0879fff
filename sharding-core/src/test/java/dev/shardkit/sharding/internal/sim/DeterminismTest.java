package dev.shardkit.sharding.internal.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/**
 * A seed replays alike: the same scenario, the same steps, the same inputs and effects (compared
 * by a hash of their printed values, step by step).
 */
class DeterminismTest {

  @Test
  void eachSeedRunsTwiceAlike() {
    for (long seed = 1; seed <= 20; seed++) {
      CoordinatorOnlySim.Result first = CoordinatorOnlySim.run(seed, true);
      CoordinatorOnlySim.Result second = CoordinatorOnlySim.run(seed, true);
      assertEquals(first.steps(), second.steps(), "steps of seed " + seed);
      assertEquals(first.hash(), second.hash(), "trace hash of seed " + seed);
    }
  }
}
