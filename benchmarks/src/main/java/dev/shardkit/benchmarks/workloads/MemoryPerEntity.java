package dev.shardkit.benchmarks.workloads;

import dev.shardkit.benchmarks.harness.Nodes;
import dev.shardkit.benchmarks.harness.Results;
import dev.shardkit.benchmarks.harness.Row;
import dev.shardkit.benchmarks.harness.RunResult;
import dev.shardkit.benchmarks.harness.RunSpec;
import dev.shardkit.benchmarks.harness.Scale;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * Retained heap per idle entity: a JVM per variant creates many entities (one message each),
 * then the heap is measured after full collections and compared with the heap before. The floor
 * is the same entity actor spawned directly, so what a library adds is its figure minus the floor.
 */
public final class MemoryPerEntity implements Workload {

  @Override
  public String id() {
    return "memory";
  }

  @Override
  public String title() {
    return "Memory per idle entity";
  }

  private static Map<String, String> params(Scale scale) {
    // A million entities, as the target is stated; one round (see plan) keeps the suite short.
    return Map.of("entities", Integer.toString(scale.pick(20_000, 1_000_000)),
        "shards", "1000",
        "batch", "10000",
        "store", StoreModes.shardkitDefault());
  }

  @Override
  public String method(Scale scale) {
    Map<String, String> p = params(scale);
    return "One node per JVM (`-Xmx4g`, G1), one JVM per variant and round. The entity ids are made first; then"
        + " the heap is measured after full collections (the sum of the heap pools' usage after the last"
        + " collection), " + p.get("entities") + " entities are created in " + p.get("shards") + " shards by one"
        + " message each (in batches of " + p.get("batch") + ", each batch awaited, through the region"
        + " actor), and the heap is measured again the same way. Figure: the difference divided by the"
        + " number of entities. The floor spawns the same `Counter` actors directly under parents of "
        + (Integer.parseInt(p.get("entities")) / Integer.parseInt(p.get("shards"))) + " children each."
        + " Pekko runs with its defaults, which include idle-entity passivation after 120 s (its bookkeeping"
        + " is part of the figure; creation finishes well before entities would passivate).";
  }

  @Override
  public List<RunSpec> plan(Scale scale) {
    // One round: a heap figure is not a timing, and rounds agree to well under 1 % (bookkeeping
    // 0.31x and 0.31x, per entity within a few bytes), while a round at a million entities takes
    // about three minutes.
    return Results.alternate(id(), 1, List.of("shardkit", "pekko", "floor"), params(scale));
  }

  @Override
  public List<String> jvmOptions(RunSpec spec) {
    return List.of("-Xms1g", "-Xmx4g", "-XX:+UseG1GC");
  }

  @Override
  public Map<String, Double> run(RunSpec spec) throws Exception {
    int entities = spec.intParam("entities");
    int shards = spec.intParam("shards");
    int batch = spec.intParam("batch");
    String config = "shardkit.sharding.number-of-shards = " + shards + "\n"
        + "pekko.cluster.sharding.number-of-shards = " + shards + "\n"
        + StoreModes.config("shardkit", spec.param("store"));
    ActorSystem<Void> system = Nodes.start(config, List.of(), null);
    Nodes.awaitUp(system, 1, Duration.ofSeconds(30));
    String[] ids = new String[entities];
    for (int i = 0; i < entities; i++) {
      ids[i] = "entity-" + i;
    }
    Phase phase = new Phase();
    Subject.Node node = spec.variant().equals("floor") ? null
        : Subject.of(spec.variant()).start(system, phase, Optional.empty());
    boolean histogram = Boolean.parseBoolean(spec.params().getOrDefault("histogram", "false"));
    HeapHistogram histBefore = histogram ? HeapHistogram.take() : null;
    long before = retainedHeap();
    long start = System.nanoTime();
    if (node == null) {
      phase.expect(entities, 1);
      var refs = PlainActors.spawn(system, List.of(ids), Math.max(1, entities / shards), phase);
      for (var ref : refs) {
        ref.tell(LocalThroughput.MESSAGE);
      }
      phase.await(Duration.ofMinutes(5), "every plain actor");
      refs = null;
    } else {
      for (int from = 0; from < entities; from += batch) {
        int to = Math.min(entities, from + batch);
        phase.expect(to - from, 1);
        for (int i = from; i < to; i++) {
          node.tellViaRegion(ids[i], LocalThroughput.MESSAGE);
        }
        phase.await(Duration.ofMinutes(2), "entities " + from + ".." + to);
      }
    }
    double createSeconds = (System.nanoTime() - start) / 1e9;
    long after = retainedHeap();
    if (histogram) {
      System.err.println("Heap growth by class, " + spec.variant() + ", " + entities + " entities:\n"
          + HeapHistogram.take().growthSince(histBefore, entities, 30));
    }
    Map<String, Double> out = new LinkedHashMap<>();
    out.put("bytes_per_entity", (double) (after - before) / entities);
    out.put("create_s", createSeconds);
    // Keeps the ids reachable until after the second measurement, so they count in neither.
    out.put("ids", (double) ids.length);
    return out;
  }

  /** The heap in use right after full collections: what is reachable. */
  static long retainedHeap() throws InterruptedException {
    long used = 0;
    for (int i = 0; i < 3; i++) {
      System.gc();
      Thread.sleep(100);
    }
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == MemoryType.HEAP && pool.getCollectionUsage() != null) {
        used += pool.getCollectionUsage().getUsed();
      }
    }
    return used;
  }

  @Override
  public List<Row> summarize(List<RunResult> results) {
    String w = title();
    Map<Integer, Double> floor = Results.series(results, "floor", "bytes_per_entity");
    List<Row> rows = new ArrayList<>();
    rows.add(Row.compare(w, "retained heap per entity", "B", 0, Row.Better.LOWER,
        Results.series(results, "shardkit", "bytes_per_entity"), Results.series(results, "pekko", "bytes_per_entity"),
        Double.NaN));
    rows.add(Row.baseline(w, "floor: the same actor spawned directly", "B", 0, floor));
    rows.add(Row.compare(w, "sharding's bookkeeping (above the floor)", "B", 0, Row.Better.LOWER,
        aboveFloor(results, "shardkit", floor), aboveFloor(results, "pekko", floor), 1.0 / 3));
    return rows;
  }

  private static Map<Integer, Double> aboveFloor(List<RunResult> results, String variant, Map<Integer, Double> floor) {
    Map<Integer, Double> out = new TreeMap<>();
    Results.series(results, variant, "bytes_per_entity").forEach((round, v) -> {
      Double f = floor.get(round);
      if (f != null) {
        out.put(round, v - f);
      }
    });
    return out;
  }
}
