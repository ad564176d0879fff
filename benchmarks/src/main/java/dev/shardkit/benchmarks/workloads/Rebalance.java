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
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * A fourth node joins a three-node cluster whose shards all have homes, while every old node sends
 * steady traffic to every entity; how long from the new node's Up until the shards are balanced,
 * and whether any message was lost meanwhile. Four nodes in one JVM.
 */
public final class Rebalance implements Workload {
  static final String TUNED = "pekko.cluster.sharding.least-shard-allocation-strategy.rebalance-absolute-limit = 20";

  @Override
  public String id() {
    return "rebalance";
  }

  @Override
  public String title() {
    return "Rebalance when a node joins";
  }

  private static Map<String, String> params(Scale scale, String variant) {
    int cap = switch (variant) {
      // Pekko rebalances every 10 s: the quick mode only checks that its runs produce figures.
      case "shardkit" -> scale.pick(10, 60);
      case "pekko-tuned" -> scale.pick(5, 90);
      // Pekko's defaults move a few shards per 10 s rebalance round and never balance in minutes;
      // 25 s (two of its rounds) is enough to show that, and the row says how far it got.
      default -> scale.pick(5, 25);
    };
    return Map.of("shards", Integer.toString(scale.pick(30, 300)),
        "pause-ms", "100",
        "cap-s", Integer.toString(cap),
        "store", StoreModes.shardkitDefault());
  }

  @Override
  public String method(Scale scale) {
    Map<String, String> p = params(scale, "shardkit");
    return "Three nodes in one JVM (a fresh JVM per run), " + p.get("shards") + " shards with one entity each,"
        + " all placed. Each of the three nodes runs a sender thread that tells every entity one numbered"
        + " message through `EntityRef`, then pauses " + p.get("pause-ms") + " ms, round after round. A fourth"
        + " node starts the entity type and joins. The clock runs from the moment the oldest node sees the"
        + " fourth Up until every region's shard count (as the library reports it) differs from every other's by"
        + " at most one and they add up to all shards; polled every 100 ms. Runs stop waiting after "
        + params(scale, "shardkit").get("cap-s") + " s (shardkit), " + params(scale, "pekko-tuned").get("cap-s")
        + " s (Pekko tuned), " + params(scale, "pekko").get("cap-s") + " s (Pekko defaults). Then the traffic"
        + " stops, every sender asks every entity (which comes after everything that sender sent it) and the"
        + " messages that never arrived are counted. Pekko runs with its defaults (`rebalance-interval = 10 s`,"
        + " the old least-shard algorithm) and tuned (`rebalance-absolute-limit = 20`); shardkit with its"
        + " defaults. Each Pekko variant runs once (its rebalance rounds are 10 s apart, so its time varies in steps of"
        + " that size), shardkit every round.";
  }

  @Override
  public List<RunSpec> plan(Scale scale) {
    // Pekko's runs take 35 to 45 s each (its rebalance rounds are 10 s apart, so its time comes in
    // steps of about 10 s and varies little between runs): each Pekko variant runs once, in round 1,
    // Pekko tuned before shardkit and Pekko's defaults after it; shardkit runs every round.
    List<RunSpec> plan = new ArrayList<>();
    plan.add(new RunSpec(id(), "pekko-tuned", 1, params(scale, "pekko-tuned")));
    for (int round = 1; round <= scale.rounds(); round++) {
      plan.add(new RunSpec(id(), "shardkit", round, params(scale, "shardkit")));
    }
    plan.add(new RunSpec(id(), "pekko", 1, params(scale, "pekko")));
    return plan;
  }

  @Override
  public Duration timeout(RunSpec spec) {
    return Duration.ofSeconds(spec.intParam("cap-s") + 180);
  }

  @Override
  public Map<String, Double> run(RunSpec spec) throws Exception {
    int shards = spec.intParam("shards");
    long pause = spec.longParam("pause-ms");
    Duration cap = Duration.ofSeconds(spec.intParam("cap-s"));
    String library = spec.variant().startsWith("pekko") ? "pekko" : "shardkit";
    String config = "shardkit.sharding.number-of-shards = " + shards + "\n"
        + "pekko.cluster.sharding.number-of-shards = " + shards + "\n"
        + StoreModes.config("shardkit", spec.param("store")) + "\n"
        + (spec.variant().equals("pekko-tuned") ? TUNED : "");
    Subject subject = Subject.of(library);
    Ledger ledger = new Ledger();
    List<ActorSystem<Void>> systems = new ArrayList<>();
    List<Subject.Node> nodes = new ArrayList<>();
    List<Thread> senders = new ArrayList<>();
    int[] rounds = new int[3];
    boolean[] running = {true};
    try {
      for (int i = 0; i < 3; i++) {
        systems.add(Nodes.start(config, List.of(), i == 0 ? null : Nodes.address(systems.get(0))));
        Nodes.awaitUp(systems.get(0), i + 1, Duration.ofSeconds(30));
        nodes.add(subject.start(systems.get(i), ledger, Optional.empty()));
      }
      List<String> ids = onePerShard(nodes.get(0), shards);
      List<CompletableFuture<Counter.Count>> first = new ArrayList<>();
      for (String id : ids) {
        first.add(nodes.get(0).ref(id).get(Duration.ofSeconds(60)).toCompletableFuture());
      }
      CompletableFuture.allOf(first.toArray(CompletableFuture[]::new)).get(90, TimeUnit.SECONDS);
      Nodes.await(Duration.ofSeconds(60), () -> total(shardCounts(nodes)) == shards, "all shards are placed");

      for (int s = 0; s < 3; s++) {
        Subject.Node node = nodes.get(s);
        List<Subject.Ref> refs = ids.stream().map(node::ref).toList();
        String name = "node" + s;
        int index = s;
        Thread t = new Thread(() -> {
          int seq = 0;
          while (running[0]) {
            seq++;
            for (Subject.Ref ref : refs) {
              ref.tell(new Counter.Add(name, seq));
            }
            synchronized (rounds) {
              rounds[index] = seq;
            }
            try {
              Thread.sleep(pause);
            } catch (InterruptedException e) {
              return;
            }
          }
        }, "traffic-" + name);
        senders.add(t);
        t.start();
      }

      systems.add(Nodes.start(config, List.of(), Nodes.address(systems.get(0))));
      nodes.add(subject.start(systems.get(3), ledger, Optional.empty()));
      Nodes.await(Duration.ofSeconds(60), () -> Nodes.upCount(systems.get(0)) == 4, "the fourth node is Up");
      long up = System.nanoTime();
      long deadline = up + cap.toNanos();
      double balancedAfter = Double.NaN;
      List<Integer> counts = List.of();
      while (System.nanoTime() < deadline) {
        counts = shardCounts(nodes);
        if (total(counts) == shards && counts.stream().mapToInt(Integer::intValue).max().getAsInt()
            - counts.stream().mapToInt(Integer::intValue).min().getAsInt() <= 1) {
          balancedAfter = (System.nanoTime() - up) / 1e9;
          break;
        }
        Thread.sleep(100);
      }
      int movedToNew = counts.isEmpty() ? 0 : Math.max(0, counts.get(3));

      running[0] = false;
      for (Thread t : senders) {
        t.join();
      }
      long lost = 0;
      for (int s = 0; s < 3; s++) {
        List<CompletableFuture<Counter.Count>> flush = new ArrayList<>();
        for (String id : ids) {
          flush.add(nodes.get(s).ref(id).get(Duration.ofSeconds(60)).toCompletableFuture());
        }
        CompletableFuture.allOf(flush.toArray(CompletableFuture[]::new)).get(120, TimeUnit.SECONDS);
        int sent;
        synchronized (rounds) {
          sent = rounds[s];
        }
        for (String id : ids) {
          lost += ledger.missing(id, "node" + s, sent);
        }
      }
      Map<String, Double> out = new LinkedHashMap<>();
      out.put("balanced", Double.isNaN(balancedAfter) ? 0.0 : 1.0);
      out.put("balanced_s", Double.isNaN(balancedAfter) ? (double) cap.toSeconds() : balancedAfter);
      out.put("moved_to_new", (double) movedToNew);
      out.put("shards_per_node", (double) shards / 4);
      out.put("lost", (double) lost);
      out.put("duplicates", (double) ledger.duplicates());
      return out;
    } finally {
      // The senders must not outlive a failed run's figures; the nodes need no shutdown (see Workload#run).
      running[0] = false;
    }
  }

  /** One entity id for each shard, by the library's own extractor. */
  static List<String> onePerShard(Subject.Node node, int shards) {
    Map<String, String> byShard = new HashMap<>();
    for (int n = 0; byShard.size() < shards; n++) {
      if (n > shards * 1000) {
        throw new IllegalStateException("could not find an entity id for every one of " + shards + " shards");
      }
      String id = "r-" + n;
      byShard.putIfAbsent(node.shardId(id), id);
    }
    return List.copyOf(byShard.values());
  }

  /** Each node's number of hosted shards; -1 for a node that did not answer in time. */
  static List<Integer> shardCounts(List<Subject.Node> nodes) {
    List<CompletableFuture<Set<String>>> asks = new ArrayList<>();
    for (Subject.Node n : nodes) {
      asks.add(n.localShards(Duration.ofSeconds(2)).toCompletableFuture());
    }
    List<Integer> counts = new ArrayList<>();
    for (var a : asks) {
      try {
        counts.add(a.get(5, TimeUnit.SECONDS).size());
      } catch (Exception e) {
        counts.add(-1);
      }
    }
    return counts;
  }

  static int total(List<Integer> counts) {
    return counts.contains(-1) ? -1 : counts.stream().mapToInt(Integer::intValue).sum();
  }

  @Override
  public List<Row> summarize(List<RunResult> results) {
    String w = title();
    Map<Integer, Double> sk = Results.series(results, "shardkit", "balanced_s");
    List<Row> rows = new ArrayList<>();
    for (String pekko : List.of("pekko", "pekko-tuned")) {
      Map<Integer, Double> pk = Results.series(results, pekko, "balanced_s");
      String label = pekko.equals("pekko") ? "Pekko defaults" : "Pekko tuned";
      double skMedian = sk.isEmpty() ? Double.NaN : Stats.median(List.copyOf(sk.values()));
      Row base = Row.compare(w, "seconds from Up to balanced (vs " + label + ")", "s", 1, Row.Better.LOWER, sk, pk,
          Double.NaN);
      boolean skAll = allBalanced(results, "shardkit");
      boolean met = skAll && skMedian <= 5.0;
      rows.add(new Row(w, base.figure(), balancedText(results, "shardkit", base.shardkit()),
          balancedText(results, pekko, base.pekko()),
          // A Pekko run that stopped before balance took longer than it shows.
          allBalanced(results, pekko) ? base.ratio() : "< " + base.ratio(), base.perRound(), "shardkit ≤ 5 s",
          sk.isEmpty() ? Row.Verdict.NO_DATA : met ? Row.Verdict.MET : Row.Verdict.NOT_MET, base.shardkitMedian(),
          base.pekkoMedian(), base.advantage(), Double.NaN));
    }
    Map<Integer, Double> skLost = Results.series(results, "shardkit", "lost");
    for (String pekko : List.of("pekko", "pekko-tuned")) {
      String label = pekko.equals("pekko") ? "Pekko defaults" : "Pekko tuned";
      rows.add(Row.absolute(w, "messages lost (vs " + label + ")", "", 0, skLost,
          Results.series(results, pekko, "lost"), "0",
          skLost.isEmpty() ? null : skLost.values().stream().allMatch(v -> v == 0)));
    }
    return rows;
  }

  private static boolean allBalanced(List<RunResult> results, String variant) {
    return Results.series(results, variant, "balanced").values().stream().allMatch(v -> v == 1.0);
  }

  /** A median time, or how far the runs got when some stopped before balance. */
  private static String balancedText(List<RunResult> results, String variant, String median) {
    Map<Integer, Double> balanced = Results.series(results, variant, "balanced");
    if (balanced.isEmpty() || allBalanced(results, variant)) {
      return median;
    }
    Map<Integer, Double> moved = Results.series(results, variant, "moved_to_new");
    Map<Integer, Double> cap = Results.series(results, variant, "balanced_s");
    List<String> parts = new ArrayList<>();
    balanced.forEach((round, b) -> {
      if (b == 0.0) {
        parts.add(String.format(java.util.Locale.ROOT, "not balanced in %.0f s (new node got %.0f of %.0f)",
            cap.get(round), moved.get(round), Results.series(results, variant, "shards_per_node").get(round)));
      }
    });
    return String.join("; ", parts) + (parts.size() < balanced.size() ? "; others: " + median : "");
  }
}
