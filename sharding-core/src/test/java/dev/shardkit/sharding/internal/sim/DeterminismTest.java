package dev.shardkit.sharding.internal.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A seed replays alike: the same scenario, the same steps, the same inputs and effects (compared
 * by a hash of their printed values, step by step), twice in this JVM and once in another one.
 */
class DeterminismTest {

  @Test
  void eachSeedRunsTwiceAlike() {
    for (long seed = 1; seed <= 20; seed++) {
      CoordinatorOnlySim.Result first = CoordinatorOnlySim.run(seed, false, true);
      CoordinatorOnlySim.Result second = CoordinatorOnlySim.run(seed, false, true);
      assertEquals(first.steps(), second.steps(), "steps of seed " + seed);
      assertEquals(first.hash(), second.hash(), "trace hash of seed " + seed);
    }
  }

  @Test
  void eachClusterSeedRunsTwiceAlike() {
    for (long seed = 1; seed <= 5; seed++) {
      ClusterSim.Outcome first = ClusterSim.run(seed, ClusterSimulationTest.MODELLED, true);
      ClusterSim.Outcome second = ClusterSim.run(seed, ClusterSimulationTest.MODELLED, true);
      assertEquals(first.result().steps(), second.result().steps(), "steps of cluster seed " + seed);
      assertEquals(first.result().hash(), second.result().hash(), "trace hash of cluster seed " + seed);
    }
  }

  @Test
  void anotherJvmRunsTheSeedsAlike() throws Exception {
    List<String> here = new ArrayList<>();
    for (long seed = 1; seed <= 10; seed++) {
      here.add(seed + " " + CoordinatorOnlySim.run(seed, false, true).hash());
      if (seed <= 3) {
        here.add("c" + seed + " " + ClusterSim.run(seed, ClusterSimulationTest.MODELLED, true).result().hash());
      }
    }
    Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp", System.getProperty("java.class.path"), SimHashes.class.getName(), "1", "10")
        .redirectError(ProcessBuilder.Redirect.DISCARD).start();
    List<String> there = new ArrayList<>();
    try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(),
        StandardCharsets.UTF_8))) {
      for (String line = out.readLine(); line != null; line = out.readLine()) {
        if (line.matches("c?\\d+ -?\\d+")) {
          there.add(line);
        }
      }
    }
    child.waitFor(120, TimeUnit.SECONDS);
    assertEquals(here, there, "trace hashes of seeds 1..10 (and cluster seeds 1..3) in this JVM and in another one");
  }
}
