package dev.shardkit.benchmarks.workloads;

import java.util.List;

/** Every workload of the suite, in report order. */
public final class Workloads {
  private Workloads() {}

  public static List<Workload> all() {
    return List.of(new LocalThroughput(), new RemoteThroughput(), new FirstMessageLatency(), new Rebalance(),
        new MemoryPerEntity(), new RememberEntitiesRecovery());
  }

  /**
   * @throws IllegalArgumentException for an unknown id, naming the known ones
   */
  public static Workload byId(String id) {
    return all().stream().filter(w -> w.id().equals(id)).findFirst().orElseThrow(() ->
        new IllegalArgumentException("no workload [" + id + "]; known: "
            + all().stream().map(Workload::id).toList()));
  }
}
