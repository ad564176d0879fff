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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.function.BooleanSupplier;
import java.util.function.IntFunction;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Leave;

/**
 * Message latency (send to entity receive) on the three-node rebalance workload while shards move:
 * steady state first, then while a fourth node joins until the shards are balanced, then while
 * that node leaves gracefully until its shards have homes on the other three. Every message is
 * numbered, so a lost one is counted, not hidden. Four nodes in one JVM, one clock. Besides each
 * window's latencies, those of the messages sent to a shard while it moved ({@link ObservedMoves}),
 * since a move holds only a few of a window's messages.
 */
public final class LatencyDuringMoves implements Workload {
  /**
   * Pekko's rebalance settings for this workload: {@code rebalance} workload's limit, and rounds
   * every 2 s instead of 10 s, so that its join finishes within the window at all.
   */
  static final String PEKKO_TUNED = Rebalance.TUNED + "\npekko.cluster.sharding.rebalance-interval = 2 s";

  /** The figure of the lost-message row. */
  public static final String LOST = "messages lost while shards moved";

  /** Sender pauses between the join's end and the leave's start, so that the two do not overlap. */
  static final int SETTLE_PAUSES = 5;

  /** Rounds run at most: two of each library keep this workload near two minutes of suite time. */
  static final int MAX_ROUNDS = 2;

  @Override
  public String id() {
    return "moves";
  }

  @Override
  public String title() {
    return "Latency while shards move";
  }

  private static Map<String, String> params(Scale scale, String variant) {
    return Map.of("shards", Integer.toString(scale.pick(30, 300)),
        "pause-ms", "100",
        "warmup-s", Integer.toString(scale.pick(1, 2)),
        "steady-s", Integer.toString(scale.pick(1, 5)),
        "cap-s", Integer.toString(variant.equals("shardkit") ? scale.pick(10, 20) : scale.pick(15, 40)),
        "store", StoreModes.shardkitDefault());
  }

  @Override
  public String method(Scale scale) {
    Map<String, String> p = params(scale, "shardkit");
    return "The rebalance workload's three nodes in one JVM (a fresh JVM per run), " + p.get("shards") + " shards"
        + " with one entity each, all placed; a sender thread on each of the three tells every entity one numbered"
        + " message through `EntityRef`, then pauses " + p.get("pause-ms") + " ms, round after round. Each message's"
        + " latency runs from just before its tell to the entity counting it (one `System.nanoTime` clock), and"
        + " belongs to the window in which it was sent. After " + p.get("warmup-s") + " s of warm-up, the steady"
        + " window lasts " + p.get("steady-s") + " s; the join window runs from the fourth node's start until every"
        + " region's shard count differs by at most one; the leave window from that node's graceful `Leave` until"
        + " it is removed and the other three host every shard (each capped at " + p.get("cap-s") + " s for"
        + " shardkit, " + params(scale, "pekko").get("cap-s") + " s for Pekko; polled every 100 ms); the leave"
        + " starts " + SETTLE_PAUSES + " pauses after the join's end, so that the join's last moves are over. Then"
        + " every"
        + " sender asks every entity and the messages that never arrived are counted. *Messages to a moving"
        + " shard*, seen from outside the library by the same rule for both: each entity (one per shard) records"
        + " which node counted each message; a shard moved when its messages start being counted by another node."
        + " Its messages held by the move are those the new home counted that were sent before it counted its"
        + " first one (held by the hand-off, or on their way to the new home), and from each sender the first"
        + " message the new home counted (the sender's node may have had to learn the new home first). A move"
        + " belongs to the join or the leave by when it ended (the new home counted its first message): one"
        + " that ends within a pause of the `Leave` began, by the send of the latest message its old home"
        + " counted, before it. Their count, p50, p99 and max are reported per move kind; the target against Pekko is"
        + " judged on their p99. shardkit runs with its"
        + " defaults; Pekko with `rebalance-absolute-limit = 20` (as in the rebalance workload) and"
        + " `rebalance-interval = 2 s`, without which it does not balance within the window. "
        + Math.min(MAX_ROUNDS, scale.rounds()) + " round(s). Figures: milliseconds.";
  }

  @Override
  public List<RunSpec> plan(Scale scale) {
    List<RunSpec> plan = new ArrayList<>();
    for (RunSpec s : Results.alternate(id(), Math.min(MAX_ROUNDS, scale.rounds()), List.of("shardkit", "pekko"),
        Map.of())) {
      plan.add(new RunSpec(s.workload(), s.variant(), s.round(), params(scale, s.variant())));
    }
    return plan;
  }

  @Override
  public Duration timeout(RunSpec spec) {
    return Duration.ofSeconds(2L * spec.intParam("cap-s") + 180);
  }

  @Override
  public Map<String, Double> run(RunSpec spec) throws Exception {
    int shards = spec.intParam("shards");
    long pause = spec.longParam("pause-ms");
    long warmup = TimeUnit.SECONDS.toNanos(spec.intParam("warmup-s"));
    long steady = TimeUnit.SECONDS.toNanos(spec.intParam("steady-s"));
    Duration cap = Duration.ofSeconds(spec.intParam("cap-s"));
    String config = "shardkit.sharding.number-of-shards = " + shards + "\n"
        + "pekko.cluster.sharding.number-of-shards = " + shards + "\n"
        + StoreModes.config("shardkit", spec.param("store")) + "\n"
        + (spec.variant().equals("pekko") ? PEKKO_TUNED : "");
    Subject subject = Subject.of(spec.variant());
    List<ActorSystem<Void>> systems = new ArrayList<>();
    List<Subject.Node> nodes = new ArrayList<>();
    List<Thread> senders = new ArrayList<>();
    boolean[] running = {true};
    try {
      Ledger ledger = new Ledger();
      // Entities are placed before the log exists: the log is built from their ids.
      LatencyLog[] log = new LatencyLog[1];
      IntFunction<Counter.Hook> hookOfNode = node -> (entityId, add, count) -> {
        ledger.added(entityId, add, count);
        LatencyLog l = log[0];
        if (l != null) {
          l.added(node, entityId, add);
        }
      };
      for (int i = 0; i < 3; i++) {
        systems.add(Nodes.start(config, List.of(), i == 0 ? null : Nodes.address(systems.get(0))));
        Nodes.awaitUp(systems.get(0), i + 1, Duration.ofSeconds(30));
        nodes.add(subject.start(systems.get(i), hookOfNode.apply(i), Optional.empty()));
      }
      List<String> ids = Rebalance.onePerShard(nodes.get(0), shards);
      askAll(nodes.get(0), ids);
      Nodes.await(Duration.ofSeconds(60), () -> Rebalance.total(Rebalance.shardCounts(nodes)) == shards,
          "all shards are placed");

      Map<String, Integer> entityIndex = new HashMap<>();
      ids.forEach(id -> entityIndex.put(id, entityIndex.size()));
      long budgetNanos = warmup + steady + 2 * cap.toNanos() + TimeUnit.SECONDS.toNanos(60);
      LatencyLog latencies = new LatencyLog(Map.of("node0", 0, "node1", 1, "node2", 2), entityIndex,
          (int) (budgetNanos / TimeUnit.MILLISECONDS.toNanos(pause)) + 1);
      log[0] = latencies;
      AtomicIntegerArray sent = new AtomicIntegerArray(3);
      for (int s = 0; s < 3; s++) {
        List<Subject.Ref> refs = ids.stream().map(nodes.get(s)::ref).toList();
        int index = s;
        Thread t = new Thread(() -> send(latencies, refs, index, pause, sent, running), "traffic-node" + s);
        senders.add(t);
        t.start();
      }

      long steadyFrom = System.nanoTime() + warmup;
      long steadyTo = steadyFrom + steady;
      Thread.sleep(TimeUnit.NANOSECONDS.toMillis(steadyTo - System.nanoTime()));

      long joinFrom = System.nanoTime();
      systems.add(Nodes.start(config, List.of(), Nodes.address(systems.get(0))));
      nodes.add(subject.start(systems.get(3), hookOfNode.apply(3), Optional.empty()));
      double joined = until(cap, () -> balanced(Rebalance.shardCounts(nodes), shards));
      long joinTo = System.nanoTime();
      // Each sender's first message to a shard's new home can leave up to a pause after the move;
      // without a gap, the leave's hand-offs would start under the join's last moves and delay
      // their messages (seen in a trace: a burst from one sender held 72 ms on the leaving node).
      Thread.sleep(SETTLE_PAUSES * pause);

      long leaveFrom = System.nanoTime();
      Cluster.get(systems.get(0)).manager().tell(Leave.create(Nodes.address(systems.get(3))));
      List<Subject.Node> staying = nodes.subList(0, 3);
      double left = until(cap, () -> members(systems.get(0)) == 3 && Rebalance.total(Rebalance.shardCounts(staying)) == shards);
      long leaveTo = System.nanoTime();

      running[0] = false;
      for (Thread t : senders) {
        t.join();
      }
      long lost = 0;
      for (int s = 0; s < 3; s++) {
        askAll(nodes.get(s), ids);
        for (String id : ids) {
          lost += ledger.missing(id, "node" + s, sent.get(s));
        }
      }
      Map<String, Double> out = new LinkedHashMap<>();
      LatencyLog.Window st = latencies.window(steadyFrom, steadyTo, "in the steady window");
      out.put("steady_p50_ms", st.p50Ms());
      out.put("steady_p99_ms", st.p99Ms());
      out.put("steady_max_ms", st.maxMs());
      LatencyLog.Window join = latencies.window(joinFrom, joinTo, "while the fourth node joined");
      out.put("join_p99_ms", join.p99Ms());
      out.put("join_max_ms", join.maxMs());
      out.put("join_s", Double.isNaN(joined) ? cap.toSeconds() : joined);
      out.put("join_balanced", Double.isNaN(joined) ? 0.0 : 1.0);
      LatencyLog.Window leave = latencies.window(leaveFrom, leaveTo, "while the fourth node left");
      out.put("leave_p99_ms", leave.p99Ms());
      out.put("leave_max_ms", leave.maxMs());
      // A move belongs to the part of the run in which it ended: a join's last moves end in the
      // pauses before the leave starts, and a hand-off quicker than a sender's pause ends after the
      // Leave though the latest message its old home counted was sent before it.
      moving(out, "join", latencies.moving(joinFrom, leaveFrom));
      moving(out, "leave", latencies.moving(leaveFrom, Long.MAX_VALUE));
      out.put("leave_s", Double.isNaN(left) ? cap.toSeconds() : left);
      out.put("leave_handed_off", Double.isNaN(left) ? 0.0 : 1.0);
      out.put("lost", (double) lost);
      out.put("duplicates", (double) ledger.duplicates());
      return out;
    } finally {
      // The senders must not outlive a failed run's figures; the nodes need no shutdown (see Workload#run).
      running[0] = false;
    }
  }

  /** A move kind's figures; without a move seen, only their count (0), so its rows say "no data", not 0 ms. */
  private static void moving(Map<String, Double> out, String move, LatencyLog.Moving moving) {
    out.put(move + "_moves", (double) moving.moves());
    moving.window().ifPresent(w -> {
      out.put(move + "_moving_messages", (double) w.messages());
      out.put(move + "_moving_p50_ms", w.p50Ms());
      out.put(move + "_moving_p99_ms", w.p99Ms());
      out.put(move + "_moving_max_ms", w.maxMs());
    });
  }

  /** One sender's loop: a stamped message to every entity, then a pause, until stopped or out of capacity. */
  private static void send(LatencyLog log, List<Subject.Ref> refs, int sender, long pause, AtomicIntegerArray sent,
      boolean[] running) {
    String name = "node" + sender;
    for (int seq = 1; running[0] && seq <= log.capacity(); seq++) {
      for (int e = 0; e < refs.size(); e++) {
        log.sending(sender, e, seq);
        refs.get(e).tell(new Counter.Add(name, seq));
      }
      sent.set(sender, seq);
      try {
        Thread.sleep(pause);
      } catch (InterruptedException ex) {
        return;
      }
    }
  }

  /** Asks every entity once from {@code node}: the answer comes after everything that node sent it. */
  private static void askAll(Subject.Node node, List<String> ids) throws Exception {
    List<CompletableFuture<Counter.Count>> asks = new ArrayList<>();
    for (String id : ids) {
      asks.add(node.ref(id).get(Duration.ofSeconds(60)).toCompletableFuture());
    }
    CompletableFuture.allOf(asks.toArray(CompletableFuture[]::new)).get(120, TimeUnit.SECONDS);
  }

  /** Members {@code system} knows of, whatever their status: a removed one is no longer among them. */
  private static int members(ActorSystem<?> system) {
    int n = 0;
    for (var m : Cluster.get(system).state().getMembers()) {
      n++;
    }
    return n;
  }

  private static boolean balanced(List<Integer> counts, int shards) {
    return Rebalance.total(counts) == shards && counts.stream().mapToInt(Integer::intValue).max().getAsInt()
        - counts.stream().mapToInt(Integer::intValue).min().getAsInt() <= 1;
  }

  /** Seconds until {@code done} holds, polled every 100 ms; NaN if it did not within {@code cap}. */
  private static double until(Duration cap, BooleanSupplier done) throws InterruptedException {
    long start = System.nanoTime();
    while (System.nanoTime() - start < cap.toNanos()) {
      if (done.getAsBoolean()) {
        return (System.nanoTime() - start) / 1e9;
      }
      Thread.sleep(100);
    }
    return Double.NaN;
  }

  @Override
  public List<Row> summarize(List<RunResult> results) {
    String w = title();
    List<Row> rows = new ArrayList<>();
    rows.add(Row.compare(w, "steady-state p99", "ms", 1, Row.Better.LOWER,
        Results.series(results, "shardkit", "steady_p99_ms"), Results.series(results, "pekko", "steady_p99_ms"),
        Double.NaN));
    for (String move : List.of("join", "leave")) {
      String during = move.equals("join") ? "during a join" : "during a graceful leave";
      Map<Integer, Double> sk = Results.series(results, "shardkit", move + "_p99_ms");
      // The target against Pekko is judged on the moving shards' messages below: a window's p99 is
      // mostly that of the shards that did not move.
      rows.add(Row.compare(w, "p99 " + during, "ms", 1, Row.Better.LOWER, sk,
          Results.series(results, "pekko", move + "_p99_ms"), Double.NaN));
      Map<Integer, Double> skOverSteady = Results.derived(results, "shardkit",
          v -> v.getOrDefault(move + "_p99_ms", Double.NaN) / v.getOrDefault("steady_p99_ms", Double.NaN));
      Map<Integer, Double> pkOverSteady = Results.derived(results, "pekko",
          v -> v.getOrDefault(move + "_p99_ms", Double.NaN) / v.getOrDefault("steady_p99_ms", Double.NaN));
      rows.add(Row.absolute(w, "p99 " + during + " / steady-state p99", "×", 2, skOverSteady, pkOverSteady,
          "shardkit ≤ 2×", skOverSteady.isEmpty() ? null : Stats.median(List.copyOf(skOverSteady.values())) <= 2));
      rows.add(Row.compare(w, "max " + during, "ms", 1, Row.Better.LOWER,
          Results.series(results, "shardkit", move + "_max_ms"), Results.series(results, "pekko", move + "_max_ms"),
          Double.NaN));
      for (String figure : List.of("p50", "p99", "max")) {
        rows.add(Row.compare(w, figure + " of messages to a moving shard, " + during, "ms", 1, Row.Better.LOWER,
            Results.series(results, "shardkit", move + "_moving_" + figure + "_ms"),
            Results.series(results, "pekko", move + "_moving_" + figure + "_ms"),
            figure.equals("p99") ? 0.25 : Double.NaN));
      }
      rows.add(Row.absolute(w, "messages sent to a moving shard, " + during, "", 0,
          Results.series(results, "shardkit", move + "_moving_messages"),
          Results.series(results, "pekko", move + "_moving_messages"), "—", null).withVerdict(Row.Verdict.NO_TARGET));
      rows.add(Row.absolute(w, "shards seen moving, " + during, "", 0,
          Results.series(results, "shardkit", move + "_moves"),
          Results.series(results, "pekko", move + "_moves"), "—", null).withVerdict(Row.Verdict.NO_TARGET));
      String finished = move.equals("join") ? "join_balanced" : "leave_handed_off";
      rows.add(Row.absolute(w, "seconds " + during + (move.equals("join") ? " until balanced" : " until handed off")
          + " (runs that did not finish count as the cap)", "s", 1, Results.series(results, "shardkit", move + "_s"),
          Results.series(results, "pekko", move + "_s"), "—", null).withVerdict(
              Results.series(results, "shardkit", finished).isEmpty() ? Row.Verdict.NO_DATA : Row.Verdict.NO_TARGET));
    }
    Map<Integer, Double> skLost = Results.series(results, "shardkit", "lost");
    rows.add(Row.absolute(w, LOST, "", 0, skLost, Results.series(results, "pekko", "lost"), "0",
        skLost.isEmpty() ? null : skLost.values().stream().allMatch(v -> v == 0)));
    return rows;
  }
}
