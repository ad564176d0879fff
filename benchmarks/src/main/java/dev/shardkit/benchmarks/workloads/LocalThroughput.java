package dev.shardkit.benchmarks.workloads;

import dev.shardkit.benchmarks.harness.Nodes;
import dev.shardkit.benchmarks.harness.Results;
import dev.shardkit.benchmarks.harness.Row;
import dev.shardkit.benchmarks.harness.RunResult;
import dev.shardkit.benchmarks.harness.RunSpec;
import dev.shardkit.benchmarks.harness.Scale;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.IntConsumer;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * One node, many entities with known shard homes, one sender thread telling round-robin: through
 * the library's {@code EntityRef}, through its region actor (an envelope), and — the ceiling — by
 * plain {@code ActorRef.tell} to actors spawned directly.
 */
public final class LocalThroughput implements Workload {
  static final Counter.Add MESSAGE = new Counter.Add("local", 0);

  @Override
  public String id() {
    return "local";
  }

  @Override
  public String title() {
    return "Local routed throughput";
  }

  private static Map<String, String> params(Scale scale) {
    return Map.of("entities", Integer.toString(scale.pick(1_000, 10_000)),
        "shards", Integer.toString(scale.pick(100, 1_000)),
        "messages", Integer.toString(scale.pick(100_000, 2_000_000)),
        "warmup", Integer.toString(scale.pick(20_000, 500_000)),
        "store", StoreModes.shardkitDefault());
  }

  @Override
  public String method(Scale scale) {
    Map<String, String> p = params(scale);
    return "One node (one JVM per run, `-Xmx2g`). " + p.get("entities") + " entities in " + p.get("shards")
        + " shards, all created and warm (every shard's home known) before timing. One thread sends "
        + p.get("messages") + " `Add` messages round-robin over the entities (after " + p.get("warmup")
        + " untimed ones), first through the library's `EntityRef.tell`, then through its region actor"
        + " (`ShardingEnvelope`); the time runs until every entity has counted its share. The baseline"
        + " sends the same to the same kind of actor spawned directly (" + perParent(p) + " per parent), by"
        + " `ActorRef.tell`. Figures: million messages per second.";
  }

  private static int perParent(Map<String, String> p) {
    return Integer.parseInt(p.get("entities")) / Integer.parseInt(p.get("shards"));
  }

  @Override
  public List<RunSpec> plan(Scale scale) {
    return Results.alternate(id(), scale.rounds(), List.of("shardkit", "pekko", "plain"), params(scale));
  }

  @Override
  public Map<String, Double> run(RunSpec spec) throws Exception {
    int entities = spec.intParam("entities");
    int shards = spec.intParam("shards");
    int messages = spec.intParam("messages");
    int warmup = spec.intParam("warmup");
    String config = "shardkit.sharding.number-of-shards = " + shards + "\n"
        + "pekko.cluster.sharding.number-of-shards = " + shards + "\n"
        + StoreModes.config("shardkit", spec.param("store"));
    ActorSystem<Void> system = Nodes.start(config, List.of(), null);
    Nodes.awaitUp(system, 1, Duration.ofSeconds(30));
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < entities; i++) {
      ids.add("entity-" + i);
    }
    Phase phase = new Phase();
    Map<String, Double> out = new LinkedHashMap<>();
    if (spec.variant().equals("plain")) {
      List<ActorRef<Counter.Command>> refs = PlainActors.spawn(system, ids, Math.max(1, entities / shards), phase);
      ActorRef<Counter.Command>[] arr = refs.toArray(ActorRef[]::new);
      Sender s = new Sender(phase, entities);
      s.round(i -> arr[i].tell(MESSAGE), 1, "creation");
      s.round(i -> arr[i].tell(MESSAGE), warmup / entities, "warm-up");
      out.put("tell_mmps", s.timed(i -> arr[i].tell(MESSAGE), messages / entities));
    } else {
      Subject.Node node = Subject.of(spec.variant()).start(system, phase, Optional.empty());
      Subject.Ref[] refs = ids.stream().map(node::ref).toArray(Subject.Ref[]::new);
      String[] idArr = ids.toArray(String[]::new);
      IntConsumer viaRef = i -> refs[i].tell(MESSAGE);
      IntConsumer viaRegion = i -> node.tellViaRegion(idArr[i], MESSAGE);
      Sender s = new Sender(phase, entities);
      s.round(viaRef, 1, "creation");
      s.round(viaRef, warmup / entities / 2, "warm-up (EntityRef)");
      s.round(viaRegion, warmup / entities / 2, "warm-up (region)");
      out.put("entity_ref_mmps", s.timed(viaRef, messages / entities));
      out.put("region_mmps", s.timed(viaRegion, messages / entities));
    }
    return out;
  }

  /** Sends rounds of one message per entity and waits until every entity has counted them. */
  private static final class Sender {
    private final Phase phase;
    private final int entities;
    private long expected;

    Sender(Phase phase, int entities) {
      this.phase = phase;
      this.entities = entities;
    }

    void round(IntConsumer send, int perEntity, String what) throws InterruptedException {
      if (perEntity <= 0) {
        return;
      }
      expected += perEntity;
      phase.expect(entities, expected);
      for (int r = 0; r < perEntity; r++) {
        for (int e = 0; e < entities; e++) {
          send.accept(e);
        }
      }
      phase.await(Duration.ofMinutes(3), what);
    }

    /** @return million messages per second */
    double timed(IntConsumer send, int perEntity) throws InterruptedException {
      long start = System.nanoTime();
      round(send, perEntity, "timed messages");
      long nanos = System.nanoTime() - start;
      return (double) perEntity * entities / nanos * 1e3;
    }
  }

  @Override
  public List<Row> summarize(List<RunResult> results) {
    String w = title();
    List<Row> rows = new ArrayList<>();
    rows.add(Row.compare(w, "`EntityRef.tell`", "M msg/s", 3, Row.Better.HIGHER,
        Results.series(results, "shardkit", "entity_ref_mmps"), Results.series(results, "pekko", "entity_ref_mmps"),
        3.0));
    rows.add(Row.compare(w, "region tell (envelope)", "M msg/s", 3, Row.Better.HIGHER,
        Results.series(results, "shardkit", "region_mmps"), Results.series(results, "pekko", "region_mmps"), 2.5));
    Map<Integer, Double> plain = Results.series(results, "plain", "tell_mmps");
    rows.add(Row.baseline(w, "plain `ActorRef.tell` (ceiling)", "M msg/s", 3, plain));
    for (String[] f : new String[][] {{"entity_ref_mmps", "`EntityRef.tell`"}, {"region_mmps", "region tell"}}) {
      Map<Integer, Double> sk = fractionOfPlain(results, "shardkit", f[0], plain);
      Map<Integer, Double> pk = fractionOfPlain(results, "pekko", f[0], plain);
      double skMedian = sk.isEmpty() ? Double.NaN : dev.shardkit.benchmarks.harness.Stats.median(List.copyOf(sk.values()));
      rows.add(Row.absolute(w, f[1] + " as % of plain tell", "%", 0, sk, pk, "shardkit ≥ 60 %",
          Double.isNaN(skMedian) ? null : skMedian >= 60));
    }
    return rows;
  }

  /** Per round: a variant's figure as a percentage of the plain-tell figure of the same round. */
  private static Map<Integer, Double> fractionOfPlain(List<RunResult> results, String variant, String figure,
      Map<Integer, Double> plain) {
    Map<Integer, Double> out = new java.util.TreeMap<>();
    Results.series(results, variant, figure).forEach((round, v) -> {
      Double p = plain.get(round);
      if (p != null) {
        out.put(round, 100 * v / p);
      }
    });
    return out;
  }
}
