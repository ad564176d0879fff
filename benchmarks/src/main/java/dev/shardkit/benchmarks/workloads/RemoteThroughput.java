package dev.shardkit.benchmarks.workloads;

import dev.shardkit.benchmarks.harness.ChildJvm;
import dev.shardkit.benchmarks.harness.JfrSummary;
import dev.shardkit.benchmarks.harness.Nodes;
import dev.shardkit.benchmarks.harness.Results;
import dev.shardkit.benchmarks.harness.Row;
import dev.shardkit.benchmarks.harness.RunMain;
import dev.shardkit.benchmarks.harness.RunResult;
import dev.shardkit.benchmarks.harness.RunSpec;
import dev.shardkit.benchmarks.harness.Scale;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.LongAdder;
import org.apache.pekko.actor.AddressFromURIString;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * Two JVMs: entities on one (role {@code host}), one sender thread on the other (a proxy-only
 * region), each message a Jackson-CBOR record that crosses Artery. Two ways to send:
 *
 * <ul>
 *   <li><b>Paced</b>: the sender asks one entity every {@code ask-every} messages and waits for the
 *       answer. This once kept shardkit's caller-thread shortcut from overrunning Artery's outbound
 *       queue, which drops the excess silently; shardkit's remote delivery now has flow control and
 *       does not need it, so the row measures a sender that waits for an answer now and then.
 *   <li><b>Unpaced burst</b>: {@code burst} tells as fast as the sender's thread can, no ask in
 *       between; then the sender waits until the host's count settles, and reports what arrived,
 *       what the libraries dropped with a warning, and what was lost silently.
 * </ul>
 *
 * <p>Mode {@code defaults} runs the paced row, then a burst, on both libraries' defaults; mode
 * {@code large-buffer} runs a burst alone with {@code buffer-size} above it. The host answers
 * the sender's questions (its count, its drops) over its stdin and stdout.
 */
public final class RemoteThroughput implements Workload {
  private static final Duration ASK_TIMEOUT = Duration.ofSeconds(30);
  /** How long the host's count must stand still before a burst counts as settled short of its size. */
  private static final Duration QUIET = Duration.ofSeconds(5);
  /** How often the sender reads the drops while it waits for a burst to settle. */
  private static final long DROPS_EVERY_NANOS = Duration.ofMillis(200).toNanos();
  static final String DEFAULTS = "defaults";
  static final String LARGE_BUFFER = "large-buffer";
  private static final String LARGE_BUFFER_SIZE = "1000000";

  /** The rows the quick test reads: shardkit must lose nothing silently, and nothing at all with the large buffer. */
  public static final String BURST_LOST_SILENTLY = "unpaced burst, defaults: messages lost silently";
  public static final String LARGE_BURST_LOST = "unpaced burst, buffer-size above it: messages lost";

  @Override
  public String id() {
    return "remote";
  }

  @Override
  public String title() {
    return "Remote routed throughput";
  }

  private static Map<String, String> params(Scale scale, String mode) {
    return Map.of("entities", Integer.toString(scale.pick(100, 1_000)),
        "messages", Integer.toString(scale.pick(20_000, 400_000)),
        "warmup", Integer.toString(scale.pick(10_000, 100_000)),
        "ask-every", "2000",
        // Above the default buffer-size (100 000) in both scales, so that the quick mode, too, sends
        // more than shardkit holds for one destination.
        "burst", Integer.toString(scale.pick(150_000, 400_000)),
        "mode", mode,
        "buffer-size", mode.equals(LARGE_BUFFER) ? LARGE_BUFFER_SIZE : "default",
        "store", StoreModes.shardkitDefault());
  }

  @Override
  public String method(Scale scale) {
    Map<String, String> p = params(scale, DEFAULTS);
    String burst = Row.value(Double.parseDouble(p.get("burst")), "", 0);
    return "Two JVMs on 127.0.0.1: " + p.get("entities") + " entities on the host node, one sender thread on"
        + " the other, through the library's `EntityRef` (a proxy-only region on the sender's node). Each message"
        + " is `Add(String, long)` serialized with Jackson CBOR. First " + p.get("warmup") + " untimed messages,"
        + " paced as below. *Paced*: " + p.get("messages") + " timed messages; after every " + p.get("ask-every")
        + " tells the sender asks one entity and waits for the answer; the time runs until an ask to every entity"
        + " has been answered and the counts add up; messages missing from the counts are reported as lost. The"
        + " pacing once kept shardkit's routing shortcut from overrunning Artery's outbound queue (which drops the"
        + " excess silently); shardkit's remote delivery has flow control now and does not need it, so this row"
        + " measures a sender that waits for an answer now and then. *Unpaced burst*: the sender tells " + burst
        + " messages as fast as its thread can, with no ask in between, then waits until the host's count (all"
        + " entities count into one counter) has reached what was sent less what was dropped (with a warning, or"
        + " by Artery), or has not moved for " + QUIET.toSeconds() + " s; the time runs from the first tell to the"
        + " last change of the count, and the figure is messages counted per second. The burst runs once with"
        + " both libraries' defaults, after the paced row in the same JVMs (`buffer-size` 100 000: shardkit holds"
        + " at most that many messages per destination and drops what comes beyond to dead letters, counted and"
        + " warned; Pekko's proxy region forwards from its unbounded mailbox), and, in the first round only, once in"
        + " fresh JVMs with `shardkit.sharding.buffer-size` and `pekko.cluster.sharding.buffer-size` at "
        + Row.value(Double.parseDouble(LARGE_BUFFER_SIZE), "", 0) + ", above the burst. *Dropped with a"
        + " warning*, summed over both nodes: for shardkit `ShardRegionState.droppedMessages()`; for Pekko, which"
        + " counts no drops, the `Add` messages its sharding sent to dead letters (its region when its buffer is"
        + " full, which it warns about once per episode; its shard when an entity's buffer is full, logged at"
        + " debug level), seen by a dead-letter subscriber. *Lost silently*: sent − counted − dropped with a"
        + " warning. It includes what Artery dropped because its outbound queue (3 072 by default) was full:"
        + " Pekko 1.7.0 publishes each such drop as a `Dropped` event and a dead letter, logs it at debug level"
        + " (and among the first 10 dead letters at info level), and neither warns nor counts. The Artery row"
        + " counts those `Dropped` events on both nodes, whatever the message (shardkit's are batches and"
        + " acknowledgements, which it sends again). Figures: thousand messages per second; messages.";
  }

  @Override
  public List<RunSpec> plan(Scale scale) {
    List<RunSpec> plan = new ArrayList<>();
    plan.addAll(Results.alternate(id(), scale.rounds(), List.of("shardkit", "pekko"), params(scale, DEFAULTS)));
    // The large buffer checks losses, not a rate: a loss shows in one round as well as in three,
    // and each round of it costs two fresh JVMs and half a minute of the suite.
    plan.addAll(Results.alternate(id(), 1, List.of("shardkit", "pekko"), params(scale, LARGE_BUFFER)));
    return plan;
  }

  @Override
  public Map<String, Double> run(RunSpec spec) throws Exception {
    return spec.params().getOrDefault("role", "sender").equals("host") ? host(spec) : sender(spec);
  }

  private Map<String, Double> host(RunSpec spec) throws Exception {
    ActorSystem<Void> system = Nodes.start(config(spec), List.of("host"), null);
    DeadLetterTally tally = DeadLetterTally.get(system);
    LongAdder counted = new LongAdder();
    Subject.Node node = Subject.of(spec.variant()).start(system, (entityId, add, count) -> counted.increment(),
        Optional.of("host"));
    Nodes.awaitUp(system, 1, Duration.ofSeconds(30));
    System.out.println("ADDRESS " + Nodes.address(system));
    System.out.flush();
    // Answers the sender until it closes our stdin; then this JVM halts without leaving the cluster,
    // as the sender's does (see Workload#run).
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    for (String line = in.readLine(); line != null; line = in.readLine()) {
      switch (line) {
        case "count" -> System.out.println("COUNT " + counted.sum());
        case "drops" -> System.out.println("DROPS " + node.droppedMessages(ASK_TIMEOUT).toCompletableFuture().get()
            + " " + tally.artery() + " " + tally.arteryDroppedAdds());
        default -> System.out.println("UNKNOWN " + line);
      }
      System.out.flush();
    }
    return Map.of();
  }

  private static String config(RunSpec spec) {
    String buffer = spec.param("buffer-size");
    return StoreModes.config("shardkit", spec.param("store")) + (buffer.equals("default") ? ""
        : "shardkit.sharding.buffer-size = " + buffer + "\npekko.cluster.sharding.buffer-size = " + buffer + "\n");
  }

  private Map<String, Double> sender(RunSpec spec) throws Exception {
    String logs = System.getProperty(ChildJvm.LOG_DIR_PROPERTY, ".");
    String name = "remote-host-" + spec.variant() + "-" + spec.round() + "-" + spec.param("mode");
    Path log = Path.of(logs, name + ".log");
    List<String> jvm = new ArrayList<>(jvmOptions(spec));
    jvm.add("-D" + ChildJvm.LOG_DIR_PROPERTY + "=" + logs);
    // A recorded sender records its host too: that is where the entities' work is.
    Path hostJfr = Path.of(logs, name + ".jfr").toAbsolutePath();
    boolean recorded = jdk.jfr.FlightRecorder.isInitialized()
        && !jdk.jfr.FlightRecorder.getFlightRecorder().getRecordings().isEmpty();
    if (recorded) {
      jvm.add("-XX:StartFlightRecording=settings=profile,filename=" + hostJfr);
    }
    try {
      return sender(spec, jvm, log);
    } finally {
      if (recorded) {
        JfrSummary.writeBeside(hostJfr, 30);
      }
    }
  }

  private Map<String, Double> sender(RunSpec spec, List<String> jvm, Path log) throws Exception {
    int entities = spec.intParam("entities");
    int messages = spec.intParam("messages");
    int warmup = spec.intParam("warmup");
    int askEvery = spec.intParam("ask-every");
    try (ChildJvm host = ChildJvm.start(RunMain.class.getName(), jvm,
        spec.with("role", "host").toArgs(), log)) {
      String address = host.awaitLine(Duration.ofSeconds(90), "ADDRESS ").substring("ADDRESS ".length());
      ActorSystem<Void> system = Nodes.start(config(spec), List.of(), AddressFromURIString.parse(address));
      Nodes.awaitUp(system, 2, Duration.ofSeconds(60));
      Sides sides = new Sides(host, Subject.of(spec.variant()).start(system, Counter.Hook.NONE, Optional.of("host")),
          DeadLetterTally.get(system));
      List<Subject.Ref> refs = new ArrayList<>();
      for (int i = 0; i < entities; i++) {
        refs.add(sides.sender().ref("entity-" + i));
      }
      countAll(refs);
      paced(refs, warmup, askEvery);
      countAll(refs);
      Map<String, Double> out = new LinkedHashMap<>();
      if (spec.param("mode").equals(DEFAULTS)) {
        long start = System.nanoTime();
        paced(refs, messages, askEvery);
        long counted = countAll(refs);
        long nanos = System.nanoTime() - start;
        out.put("kmps", messages / (nanos / 1e9) / 1e3);
        out.put("lost", (double) (warmup + messages - counted));
      }
      out.putAll(burst(sides, refs, spec.intParam("burst")));
      return out;
    }
  }

  private static void paced(List<Subject.Ref> refs, int messages, int askEvery) throws Exception {
    int n = refs.size();
    for (int i = 0; i < messages; i++) {
      Subject.Ref ref = refs.get(i % n);
      ref.tell(new Counter.Add("sender", i));
      if ((i + 1) % askEvery == 0) {
        ref.get(ASK_TIMEOUT).toCompletableFuture().get();
      }
    }
  }

  /** Asks every entity for its count; each answer comes after everything sent to it before. */
  private static long countAll(List<Subject.Ref> refs) throws Exception {
    List<CompletableFuture<Counter.Count>> asks = new ArrayList<>();
    for (Subject.Ref ref : refs) {
      asks.add(ref.get(ASK_TIMEOUT).toCompletableFuture());
    }
    long total = 0;
    for (var a : asks) {
      total += a.get().count();
    }
    return total;
  }

  /**
   * Tells {@code messages} messages round-robin with no pause, then waits until the host's count
   * has reached what was sent less what was dropped (with a warning, or by Artery: those never
   * arrive), or has not moved for {@link #QUIET}.
   */
  private static Map<String, Double> burst(Sides sides, List<Subject.Ref> refs, int messages) throws Exception {
    long countedBefore = sides.hostCount();
    Drops before = sides.drops();
    int n = refs.size();
    long start = System.nanoTime();
    for (int i = 0; i < messages; i++) {
      refs.get(i % n).tell(new Counter.Add("burst", i));
    }
    long handedOver = System.nanoTime();
    long counted = 0;
    long accountedFor = 0;
    long lastChange = start;
    long nextDrops = 0;
    while (true) {
      long c = sides.hostCount() - countedBefore;
      long now = System.nanoTime();
      if (c != counted) {
        counted = c;
        lastChange = now;
      }
      if (now >= nextDrops) {
        Drops d = sides.drops();
        accountedFor = d.library() - before.library() + d.arteryAdds() - before.arteryAdds();
        nextDrops = now + DROPS_EVERY_NANOS;
      }
      if (counted + accountedFor >= messages || now - lastChange > QUIET.toNanos()) {
        break;
      }
      Thread.sleep(5);
    }
    Drops after = sides.drops();
    long warned = after.library() - before.library();
    Map<String, Double> out = new LinkedHashMap<>();
    out.put("burst_kmps", counted == 0 ? 0 : counted / ((lastChange - start) / 1e9) / 1e3);
    out.put("burst_send_s", (handedOver - start) / 1e9);
    out.put("burst_counted", (double) counted);
    out.put("burst_warned", (double) warned);
    out.put("burst_lost", (double) (messages - counted));
    out.put("burst_lost_silently", (double) (messages - counted - warned));
    out.put("burst_artery", (double) (after.artery() - before.artery()));
    out.put("burst_artery_adds", (double) (after.arteryAdds() - before.arteryAdds()));
    return out;
  }

  /**
   * Drops on both nodes since they started.
   *
   * @param library what the library dropped with a warning ({@link Subject.Node#droppedMessages})
   * @param artery remote sends Artery dropped ({@link DeadLetterTally#artery})
   * @param arteryAdds of those, the workload's messages ({@link DeadLetterTally#arteryDroppedAdds})
   */
  private record Drops(long library, long artery, long arteryAdds) {}

  /** The sender's node, and the host in its own JVM, asked over its stdin. */
  private record Sides(ChildJvm host, Subject.Node sender, DeadLetterTally senderTally) {
    long hostCount() throws InterruptedException {
      return Long.parseLong(host.request("count", "COUNT ", ASK_TIMEOUT).trim());
    }

    Drops drops() throws Exception {
      String[] h = host.request("drops", "DROPS ", ASK_TIMEOUT).trim().split(" ");
      return new Drops(sender.droppedMessages(ASK_TIMEOUT).toCompletableFuture().get() + Long.parseLong(h[0]),
          senderTally.artery() + Long.parseLong(h[1]), senderTally.arteryDroppedAdds() + Long.parseLong(h[2]));
    }
  }

  @Override
  public List<Row> summarize(List<RunResult> results) {
    String w = title();
    List<RunResult> defaults = Results.where(results, "mode", DEFAULTS);
    List<RunResult> large = Results.where(results, "mode", LARGE_BUFFER);
    return List.of(
        Row.compare(w, "`EntityRef.tell` to another node, paced (an ask every 2 000)", "k msg/s", 1,
            Row.Better.HIGHER, Results.series(defaults, "shardkit", "kmps"), Results.series(defaults, "pekko", "kmps"),
            1.3),
        lossRow(w, "messages lost, paced", defaults, "lost", "0"),
        Row.compare(w, "unpaced burst, defaults: messages counted per second", "k msg/s", 1, Row.Better.HIGHER,
            Results.series(defaults, "shardkit", "burst_kmps"), Results.series(defaults, "pekko", "burst_kmps"),
            Double.NaN),
        lossRow(w, BURST_LOST_SILENTLY, defaults, "burst_lost_silently", "0"),
        information(w, "unpaced burst, defaults: messages dropped with a warning", defaults, "burst_warned"),
        information(w, "unpaced burst, defaults: remote sends Artery dropped (its outbound queue was full)",
            defaults, "burst_artery"),
        Row.compare(w, "unpaced burst, buffer-size above it: messages counted per second", "k msg/s", 1,
            Row.Better.HIGHER, Results.series(large, "shardkit", "burst_kmps"),
            Results.series(large, "pekko", "burst_kmps"), Double.NaN),
        lossRow(w, LARGE_BURST_LOST, large, "burst_lost", "0"));
  }

  /** A count of lost messages whose target for shardkit is none in every round. */
  private static Row lossRow(String workload, String figure, List<RunResult> results, String key, String target) {
    Map<Integer, Double> sk = Results.series(results, "shardkit", key);
    return Row.absolute(workload, figure, "", 0, sk, Results.series(results, "pekko", key), target,
        sk.isEmpty() ? null : sk.values().stream().allMatch(v -> v == 0));
  }

  /** A count shown for both libraries, with no target. */
  private static Row information(String workload, String figure, List<RunResult> results, String key) {
    Map<Integer, Double> sk = Results.series(results, "shardkit", key);
    return Row.absolute(workload, figure, "", 0, sk, Results.series(results, "pekko", key), "—", null)
        .withVerdict(sk.isEmpty() ? Row.Verdict.NO_DATA : Row.Verdict.NO_TARGET);
  }
}
