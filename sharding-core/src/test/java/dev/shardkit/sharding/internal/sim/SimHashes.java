package dev.shardkit.sharding.internal.sim;

/**
 * Prints the trace hash of each seed in a range, one {@code seed hash} a line: run in another JVM
 * by {@link DeterminismTest}, whose hashes must be the same (a JVM salts the iteration order of
 * {@code Set.of} and {@code Map.of} differently, so a machine or model iterating one would differ).
 */
final class SimHashes {
  private SimHashes() {}

  public static void main(String[] args) {
    long from = Long.parseLong(args[0]);
    long to = Long.parseLong(args[1]);
    for (long seed = from; seed <= to; seed++) {
      CoordinatorOnlySim.Result result = CoordinatorOnlySim.run(seed, false, true);
      System.out.println(seed + " " + result.hash());
      if (seed <= from + 2) {
        System.out.println("c" + seed + " " + ClusterSim.run(seed, ClusterSimulationTest.MODELLED, true).result().hash());
      }
    }
    System.exit(0);
  }
}
