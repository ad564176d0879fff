package dev.shardkit.benchmarks.workloads;

import dev.shardkit.benchmarks.harness.Nodes;
import dev.shardkit.benchmarks.harness.Results;
import dev.shardkit.benchmarks.harness.Row;
import dev.shardkit.benchmarks.harness.RunResult;
import dev.shardkit.benchmarks.harness.RunSpec;
import dev.shardkit.benchmarks.harness.Scale;
import dev.shardkit.benchmarks.harness.Stats;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * The first message to an entity of a shard that no message has reached yet, asked from a node that
 * does not run the coordinator: the region asks the coordinator for the shard's home, which the
 * coordinator allocates then (writing to its store) unless it placed every shard ahead (shardkit's
 * default), and the message travels on to the home, which starts the entity, which answers. Three
 * nodes in one JVM; one ask at a time. Each run's log ends with the samples' stages
 * ({@link FirstMessageStages}).
 */
public final class FirstMessageLatency implements Workload {
  static final List<String> MODES = List.of("ddata", "persistence");

  @Override
  public String id() {
    return "first-message";
  }

  @Override
  public String title() {
    return "First message to a new shard";
  }

  /** shardkit with {@code tell-up-front-homes = off}: regions ask the coordinator for each home. */
  private static final String ASKED = "shardkit-asked";

  private static Map<String, String> params(Scale scale, String mode) {
    return Map.of("samples", Integer.toString(scale.pick(20, 150)),
        "discard", Integer.toString(scale.pick(5, 15)),
        "shards", "1000",
        "mode", mode,
        "shardkit-mode", StoreModes.shardkitHas(mode) ? mode : "memory");
  }

  @Override
  public String method(Scale scale) {
    Map<String, String> p = params(scale, "ddata");
    return "Three nodes in one JVM (a fresh JVM per run), the oldest running the coordinator, " + p.get("shards")
        + " shards. From the youngest node, one `EntityRef.ask` at a time to an entity of a shard that no message"
        + " has reached yet (each sample a new shard), until the answer comes back. Each library runs with its"
        + " defaults: Pekko places such a shard when the first message asks for it (a store write on the way);"
        + " shardkit (`place-all-shards-at-start = on`) placed every shard in one write when its coordinator"
        + " settled and told every region all those homes in one message (`tell-up-front-homes = on`), so a"
        + " first message goes straight to its home. shardkit also runs a second time with"
        + " `tell-up-front-homes = off` (rows \"homes asked for\", no target): the asking region asks the"
        + " coordinator for the stored home first. The first " + p.get("discard")
        + " samples warm the code up and are not counted; " + p.get("samples") + " are. Each library keeps"
        + " its coordinator state in the mode named; in `persistence` both use pekko-persistence-jdbc on one"
        + " in-memory H2 database (same plugin configuration for both). A row that names another store for"
        + " shardkit ran before shardkit's store for that mode was on the class path. Figures: milliseconds.";
  }

  @Override
  public List<RunSpec> plan(Scale scale) {
    List<RunSpec> plan = new ArrayList<>();
    for (String mode : MODES) {
      plan.addAll(Results.alternate(id(), scale.rounds(), List.of("shardkit", ASKED, "pekko"), params(scale, mode)));
    }
    return plan;
  }

  @Override
  public Map<String, Double> run(RunSpec spec) throws Exception {
    int samples = spec.intParam("samples");
    int discard = spec.intParam("discard");
    String library = spec.variant().equals(ASKED) ? "shardkit" : spec.variant();
    String mode = library.equals("shardkit") ? spec.param("shardkit-mode") : spec.param("mode");
    String config = "shardkit.sharding.number-of-shards = " + spec.param("shards") + "\n"
        + (spec.variant().equals(ASKED) ? "shardkit.sharding.tell-up-front-homes = off\n" : "")
        + "pekko.cluster.sharding.number-of-shards = " + spec.param("shards") + "\n"
        + StoreModes.config(library, mode);
    List<ActorSystem<Void>> nodes = new ArrayList<>();
    nodes.add(Nodes.start(config, List.of(), null));
    Nodes.awaitUp(nodes.get(0), 1, Duration.ofSeconds(30));
    StoreModes.prepare(nodes.get(0), mode);
    for (int i = 1; i < 3; i++) {
      nodes.add(Nodes.start(config, List.of(), Nodes.address(nodes.get(0))));
      Nodes.awaitUp(nodes.get(0), i + 1, Duration.ofSeconds(30));
    }
    for (ActorSystem<Void> n : nodes) {
      Nodes.awaitUp(n, 3, Duration.ofSeconds(30));
    }
    Subject subject = Subject.of(library);
    Subject.Node sender = null;
    FirstMessageStages stages = new FirstMessageStages();
    for (ActorSystem<Void> n : nodes) {
      // The last node started is the asker.
      sender = subject.start(n, stages.hook(n == nodes.get(nodes.size() - 1)), Optional.empty());
    }
    Set<String> usedShards = new HashSet<>();
    int next = 0;
    double[] millis = new double[samples];
    for (int s = -discard; s < samples; s++) {
      String id;
      do {
        id = "first-" + next++;
      } while (!usedShards.add(sender.shardId(id)));
      Subject.Ref ref = sender.ref(id);
      long start = System.nanoTime();
      Counter.Count c = ref.get(Duration.ofSeconds(30)).toCompletableFuture().get();
      long nanos = System.nanoTime() - start;
      if (!c.entityId().equals(id)) {
        throw new IllegalStateException("asked " + id + ", answered by " + c.entityId());
      }
      if (s >= 0) {
        millis[s] = nanos / 1e6;
        stages.sample(id, start, start + nanos);
      }
    }
    // The run's log: where the time of the percentiles below went.
    System.err.print(stages.summary());
    Map<String, Double> out = new LinkedHashMap<>();
    out.put("p50_ms", Stats.percentile(millis, 50));
    out.put("p90_ms", Stats.percentile(millis, 90));
    out.put("p99_ms", Stats.percentile(millis, 99));
    return out;
  }

  @Override
  public List<Row> summarize(List<RunResult> results) {
    List<Row> rows = new ArrayList<>();
    for (String mode : MODES) {
      List<RunResult> inMode = Results.where(results, "mode", mode);
      String skMode = inMode.stream().map(r -> r.spec().params().get("shardkit-mode")).findFirst().orElse(mode);
      // Until shardkit's store for the mode is on the class path, it runs on another; say so.
      String caveat = skMode.equals(mode) ? "" : " (shardkit: " + skMode + " store)";
      for (String[] p : new String[][] {{"p50_ms", "p50", "0.3333"}, {"p90_ms", "p90", ""}, {"p99_ms", "p99", "0.3333"}}) {
        double target = p[2].isEmpty() ? Double.NaN : Double.parseDouble(p[2]);
        rows.add(Row.compare(title() + ", " + mode, p[1] + " latency" + caveat, "ms", 1, Row.Better.LOWER,
            Results.series(inMode, "shardkit", p[0]), Results.series(inMode, "pekko", p[0]), target));
        rows.add(Row.compare(title() + ", " + mode, p[1] + " latency, homes asked for" + caveat, "ms", 1,
            Row.Better.LOWER, Results.series(inMode, ASKED, p[0]), Results.series(inMode, "pekko", p[0]),
            Double.NaN));
      }
    }
    return rows;
  }
}
