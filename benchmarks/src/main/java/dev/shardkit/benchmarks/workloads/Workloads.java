package dev.shardkit.benchmarks.workloads;

import java.util.List;
import java.util.Set;

/** Every workload of the suite, in report order. */
public final class Workloads {
  private Workloads() {}

  public static List<Workload> all() {
    return List.of(new LocalThroughput(), new RemoteThroughput(), new FirstMessageLatency(), new Rebalance(),
        new LatencyDuringMoves(), new MemoryPerEntity(), new RememberEntitiesRecovery(),
        new UpFrontPlacement());
  }

  /**
   * The figures of a workload that swing between runs (throughput, by up to 3× on a shared
   * machine), for which the full suite adds rounds until they settle; empty for the others. Only the
   * figures with a target: the unpaced remote burst swings with what the transport drops, and
   * waiting for it to settle would spend rounds on a figure nobody judges.
   */
  public static Set<String> swinging(Workload w) {
    return switch (w.id()) {
      case "local" -> Set.of("entity_ref_mmps", "region_mmps");
      case "remote" -> Set.of("kmps");
      default -> Set.of();
    };
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
