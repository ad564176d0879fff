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
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.pekko.actor.AddressFromURIString;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * Two JVMs: entities on one (role {@code host}), one sender thread on the other (a proxy-only
 * region), each message a Jackson-CBOR record that crosses Artery. The sender asks one entity every
 * {@code ask-every} messages and waits for the answer, so that it never outruns remoting (Artery
 * drops what overflows its outbound queue); both libraries are paced the same way.
 */
public final class RemoteThroughput implements Workload {
  private static final Duration ASK_TIMEOUT = Duration.ofSeconds(30);

  @Override
  public String id() {
    return "remote";
  }

  @Override
  public String title() {
    return "Remote routed throughput";
  }

  private static Map<String, String> params(Scale scale) {
    return Map.of("entities", Integer.toString(scale.pick(100, 1_000)),
        "messages", Integer.toString(scale.pick(20_000, 400_000)),
        "warmup", Integer.toString(scale.pick(10_000, 100_000)),
        "ask-every", "2000",
        "store", StoreModes.shardkitDefault());
  }

  @Override
  public String method(Scale scale) {
    Map<String, String> p = params(scale);
    return "Two JVMs on 127.0.0.1: " + p.get("entities") + " entities on the host node, one sender thread on"
        + " the other, through the library's `EntityRef` (a proxy-only region on the sender's node). Each message"
        + " is `Add(String, long)` serialized with Jackson CBOR. Pacing: after every " + p.get("ask-every")
        + " tells the sender asks one entity and waits for the answer. " + p.get("warmup") + " untimed messages"
        + " first, then " + p.get("messages") + " timed ones; the time runs until an ask to every entity has"
        + " been answered and the counts add up. Figure: thousand messages per second; messages missing from"
        + " the counts are reported as lost.";
  }

  @Override
  public List<RunSpec> plan(Scale scale) {
    return Results.alternate(id(), scale.rounds(), List.of("shardkit", "pekko"), params(scale));
  }

  @Override
  public Map<String, Double> run(RunSpec spec) throws Exception {
    return spec.params().getOrDefault("role", "sender").equals("host") ? host(spec) : sender(spec);
  }

  private Map<String, Double> host(RunSpec spec) throws Exception {
    ActorSystem<Void> system = Nodes.start(config(spec), List.of("host"), null);
    Subject.of(spec.variant()).start(system, Counter.Hook.NONE, Optional.of("host"));
    Nodes.awaitUp(system, 1, Duration.ofSeconds(30));
    System.out.println("ADDRESS " + Nodes.address(system));
    System.out.flush();
    // The sender closes our stdin when it is done; then this JVM halts without leaving the cluster,
    // as the sender's does (see Workload#run).
    while (System.in.read() != -1) {
      // keep reading
    }
    return Map.of();
  }

  private static String config(RunSpec spec) {
    return StoreModes.config("shardkit", spec.param("store"));
  }

  private Map<String, Double> sender(RunSpec spec) throws Exception {
    String logs = System.getProperty(ChildJvm.LOG_DIR_PROPERTY, ".");
    Path log = Path.of(logs, "remote-host-" + spec.variant() + "-" + spec.round() + ".log");
    List<String> jvm = new ArrayList<>(jvmOptions(spec));
    jvm.add("-D" + ChildJvm.LOG_DIR_PROPERTY + "=" + logs);
    // A recorded sender records its host too: that is where the entities' work is.
    Path hostJfr = Path.of(logs, "remote-host-" + spec.variant() + "-" + spec.round() + ".jfr").toAbsolutePath();
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
      Subject.Node node = Subject.of(spec.variant()).start(system, Counter.Hook.NONE, Optional.of("host"));
      List<Subject.Ref> refs = new ArrayList<>();
      for (int i = 0; i < entities; i++) {
        refs.add(node.ref("entity-" + i));
      }
      countAll(refs);
      blast(refs, warmup, askEvery);
      countAll(refs);
      long start = System.nanoTime();
      blast(refs, messages, askEvery);
      long counted = countAll(refs);
      long nanos = System.nanoTime() - start;
      Map<String, Double> out = new LinkedHashMap<>();
      out.put("kmps", messages / (nanos / 1e9) / 1e3);
      out.put("lost", (double) (warmup + messages - counted));
      return out;
    }
  }

  private static void blast(List<Subject.Ref> refs, int messages, int askEvery) throws Exception {
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

  @Override
  public List<Row> summarize(List<RunResult> results) {
    String w = title();
    return List.of(
        Row.compare(w, "`EntityRef.tell` to another node", "k msg/s", 1, Row.Better.HIGHER,
            Results.series(results, "shardkit", "kmps"), Results.series(results, "pekko", "kmps"), 1.3),
        Row.absolute(w, "messages lost", "", 0, Results.series(results, "shardkit", "lost"),
            Results.series(results, "pekko", "lost"), "0",
            Results.series(results, "shardkit", "lost").isEmpty() ? null
                : Results.series(results, "shardkit", "lost").values().stream().allMatch(v -> v == 0)));
  }
}
