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
import dev.shardkit.sharding.ClusterSharding;
import dev.shardkit.sharding.Entity;
import dev.shardkit.sharding.EntityTypeKey;
import dev.shardkit.sharding.ShardingSettings;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.DoublePredicate;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.AddressFromURIString;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Join;

/**
 * shardkit's coordinator placing every shard up front, with the persistence store, over regions on
 * distinct nodes (the allocation strategy sees the regions of one node as one): how long from the
 * moment it could place (the last region's registration stored) until the placement is stored and
 * until every region knows every home, how many store writes hold the placement, and whether any
 * node warns of heartbeat gaps meanwhile. shardkit only: Pekko's sharding places no shard before its
 * first message.
 *
 * <p>The coordinator's node runs in the run's JVM; the other nodes, several small actor systems per
 * JVM, in child JVMs (role {@code regions}). Two entity types run on the same nodes, one after the
 * other: one with {@code tell-up-front-homes = on} (regions learn every home: the judged figures),
 * one with the defaults (only stored). The regions of both start first; each coordinator starts
 * when the oldest node starts its type, so it settles once every region has registered, and the
 * figures are the placement's, not the cluster's formation.
 */
public final class UpFrontPlacement implements Workload {
  private static final Duration WAIT = Duration.ofSeconds(90);
  private static final Duration POLL = Duration.ofMillis(20);
  /** A stall shows as a heartbeat warning when the late heartbeat arrives: the window stays open this long after. */
  private static final Duration HEARTBEAT_GRACE = Duration.ofSeconds(2);
  static final String TOLD_TYPE = "UpFrontTold";
  static final String DEFAULT_TYPE = "UpFrontDefault";

  /** The row the target table judges the time on. */
  static final String TOLD_FIGURE = "seconds from the last registration stored until every region knows every home";

  @Override
  public String id() {
    return "up-front";
  }

  @Override
  public String title() {
    return "Placing shards up front";
  }

  @Override
  public boolean shardkitOnly() {
    return true;
  }

  private static Map<String, String> params(Scale scale) {
    return Map.of("shards", Integer.toString(scale.pick(1_000, 100_000)),
        // The coordinator's node and the child JVMs' nodes, each with a region.
        "regions", Integer.toString(scale.pick(3, 25)),
        "jvms", "1");
  }

  @Override
  public String method(Scale scale) {
    Map<String, String> p = params(scale);
    int regions = Integer.parseInt(p.get("regions"));
    int jvms = Integer.parseInt(p.get("jvms"));
    return "shardkit only (Pekko's sharding places a shard when its first message needs it). " + regions
        + " nodes, each with a region of the entity type, on distinct addresses (the allocation strategy sees the"
        + " regions of one node as one): the oldest, which runs the coordinator, in the run's JVM, and "
        + (regions - 1) + " more in " + jvms + " child JVM(s), as many actor systems with small dispatchers"
        + " (2 threads for the default and internal dispatchers, 1 for remoting's, one inbound lane), all on"
        + " 127.0.0.1. The issue's row names 100 regions; " + regions + " is what fits: on this 2-core machine"
        + " 100 actor systems did not form a cluster (3 minutes of 2 to 5 s heartbeat gaps, unreachable members,"
        + " 13 of 100 Up, with other builds running). "
        + Row.value(Double.parseDouble(p.get("shards")), "", 0) + " shards (`number-of-shards`), persistence store"
        + " (sharding-persistence on pekko-persistence-jdbc, in-memory H2), `place-all-shards-at-start = on`"
        + " (the default). The regions start first; the coordinator starts when the oldest node starts the type,"
        + " so it settles (places) only once every region has registered, and the figures are the placement's"
        + " alone: the clock starts when the last registration is stored (the coordinator decides the"
        + " placement at once) and runs until the placement is stored (the store confirms the write) and until"
        + " every region knows every home (each region's `HomesTold` telemetry event for each `ShardHomes` message"
        + " it takes, in every JVM; homes in other regions it learned plus those placed in it add up to every"
        + " shard). Two entity types run one after the other on the same nodes: one with `tell-up-front-homes ="
        + " on` (regions are told every home: the time, the write count and the heartbeat warnings are judged on"
        + " it) and one with the defaults (`off`: only stored). Store writes: the coordinator's writes that hold"
        + " homes, from its start until every region knew every home (a provider around sharding-persistence's"
        + " store records each). Heartbeat warnings: every `WARN` line about heartbeats (the failure detector's"
        + " \"heartbeat interval is growing too large\", the cluster's \"Scheduled sending of heartbeat was"
        + " delayed\") on any node, from the told type's start until " + HEARTBEAT_GRACE.toSeconds() + " s after"
        + " its regions all knew their homes; those of the whole run (the cluster's formation included) are"
        + " shown too. Figures: seconds; counts.";
  }

  @Override
  public List<RunSpec> plan(Scale scale) {
    return Results.alternate(id(), scale.rounds(), List.of("shardkit"), params(scale));
  }

  @Override
  public List<String> jvmOptions(RunSpec spec) {
    return List.of("-Xms512m", "-Xmx2g");
  }

  @Override
  public Map<String, Double> run(RunSpec spec) throws Exception {
    return spec.params().getOrDefault("role", "coordinator").equals("regions") ? regions(spec) : coordinator(spec);
  }

  private static String config(RunSpec spec) {
    return StoreModes.config("shardkit", "persistence") + RecordedStoreWrites.CONFIG + UpFrontTelemetry.CONFIG;
  }

  /** Small dispatchers: dozens of actor systems share a JVM, and the machine has two cores. */
  private static final String SMALL_NODE = """
      pekko.actor.default-dispatcher.fork-join-executor { parallelism-min = 2, parallelism-max = 2 }
      pekko.actor.internal-dispatcher.fork-join-executor { parallelism-min = 2, parallelism-max = 2 }
      pekko.remote.artery.advanced.inbound-lanes = 1
      pekko.remote.default-remote-dispatcher.fork-join-executor { parallelism-min = 1, parallelism-max = 1 }
      """;

  private static ActorSystem<Void> startType(ActorSystem<Void> node, String typeName, boolean tell, int shards) {
    EntityTypeKey<Counter.Command> key = EntityTypeKey.create(Counter.Command.class, typeName);
    ClusterSharding.get(node).start(Entity.of(key, ctx -> Counter.create(ctx.entityId(), Counter.Hook.NONE))
        .withSettings(ShardingSettings.create(node).withNumberOfShards(shards).withTellUpFrontHomes(tell)));
    return node;
  }

  /**
   * A child JVM: several region nodes, started while the coordinator's JVM starts its own and
   * joined when it says where; then answers its questions over stdin and stdout.
   */
  private Map<String, Double> regions(RunSpec spec) throws Exception {
    UpFrontLogWatch watch = UpFrontLogWatch.install();
    int shards = spec.intParam("shards");
    List<ActorSystem<Void>> nodes = new ArrayList<>();
    for (int i = 0; i < spec.intParam("systems"); i++) {
      nodes.add(ActorSystem.create(Behaviors.empty(), Nodes.SYSTEM_NAME, Nodes.config(config(spec) + SMALL_NODE,
          List.of())));
    }
    System.out.println("STARTED");
    System.out.flush();
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    for (String line = in.readLine(); line != null; line = in.readLine()) {
      String[] words = line.split(" ");
      switch (words[0]) {
        case "join" -> {
          Address seed = AddressFromURIString.parse(words[1]);
          nodes.forEach(n -> Cluster.get(n).manager().tell(new Join(seed)));
          for (ActorSystem<Void> n : nodes) {
            Nodes.await(WAIT, () -> Cluster.get(n).selfMember().status() == MemberStatus.up(), n.address() + " is Up");
            startType(n, TOLD_TYPE, true, shards);
            startType(n, DEFAULT_TYPE, false, shards);
          }
          System.out.println("READY");
        }
        case "known" -> System.out.println("KNOWN " + UpFrontTelemetry.known(regionName(words[1]), shards).line());
        case "heartbeats" -> System.out.println("HEARTBEATS "
            + watch.heartbeatWarnings(Long.parseLong(words[1]), Long.parseLong(words[2])));
        default -> System.out.println("UNKNOWN " + line);
      }
      System.out.flush();
    }
    return Map.of();
  }

  private static String regionName(String typeName) {
    return "shardkit-region-" + typeName;
  }

  private Map<String, Double> coordinator(RunSpec spec) throws Exception {
    long runStart = WallClock.micros();
    UpFrontLogWatch watch = UpFrontLogWatch.install();
    int shards = spec.intParam("shards");
    int regions = spec.intParam("regions");
    int jvms = spec.intParam("jvms");
    String logs = System.getProperty(ChildJvm.LOG_DIR_PROPERTY, ".");
    // A recorded run records its region nodes too: that is where the homes are taken in.
    boolean recorded = jdk.jfr.FlightRecorder.isInitialized()
        && !jdk.jfr.FlightRecorder.getFlightRecorder().getRecordings().isEmpty();
    List<Path> recordings = new ArrayList<>();
    List<ChildJvm> children = new ArrayList<>();
    try {
      // The child JVMs start their nodes while this one starts the oldest.
      int others = regions - 1;
      for (int j = 0; j < jvms; j++) {
        // The others spread as evenly as they go.
        int systems = others / jvms + (j < others % jvms ? 1 : 0);
        RunSpec child = spec.with("role", "regions").with("systems", Integer.toString(systems));
        String name = "up-front-regions-" + spec.round() + "-" + j;
        List<String> jvm = new ArrayList<>(List.of("-Xms512m", "-Xmx3g", "-Xss512k",
            "-D" + ChildJvm.LOG_DIR_PROPERTY + "=" + logs));
        if (recorded) {
          recordings.add(Path.of(logs, name + ".jfr").toAbsolutePath());
          jvm.add("-XX:StartFlightRecording=settings=profile,filename=" + recordings.get(recordings.size() - 1));
        }
        children.add(ChildJvm.start(RunMain.class.getName(), jvm, child.toArgs(), Path.of(logs, name + ".log")));
      }
      ActorSystem<Void> oldest = Nodes.start(config(spec), List.of(), null);
      Nodes.awaitUp(oldest, 1, WAIT);
      StoreModes.prepare(oldest, "persistence");
      for (ChildJvm c : children) {
        c.awaitLine(WAIT, "STARTED");
        c.request("join " + Nodes.address(oldest), "READY", WAIT.multipliedBy(2));
      }
      Nodes.awaitUp(oldest, regions, WAIT);
      double formation = (WallClock.micros() - runStart) / 1e6;

      Map<String, Double> out = new LinkedHashMap<>();
      long toldStart = WallClock.micros();
      startType(oldest, TOLD_TYPE, true, shards);
      long allKnow = awaitEveryRegionKnows(children, regions, shards);
      Placed told = Placed.of(TOLD_TYPE, shards, regions, allKnow);
      out.put("told_known_s", (allKnow - told.settledMicros()) / 1e6);
      out.put("told_decided_s", (told.placement().startMicros() - told.settledMicros()) / 1e6);
      out.put("told_stored_s", (told.placement().endMicros() - told.settledMicros()) / 1e6);
      out.put("told_writes", (double) told.writesWithHomes());
      Thread.sleep(HEARTBEAT_GRACE.toMillis());
      out.put("heartbeat_warnings", (double) heartbeatWarnings(watch, children, toldStart, WallClock.micros()));

      startType(oldest, DEFAULT_TYPE, false, shards);
      Nodes.await(WAIT, () -> RecordedStoreWrites.of(DEFAULT_TYPE).stream()
          .anyMatch(w -> w.homes() > 0 && w.endMicros() > 0), "the default type's placement is stored");
      Placed untold = Placed.of(DEFAULT_TYPE, shards, regions, WallClock.micros());
      out.put("default_stored_s", (untold.placement().endMicros() - untold.settledMicros()) / 1e6);
      out.put("default_writes", (double) untold.writesWithHomes());
      out.put("formation_s", formation);
      out.put("heartbeat_warnings_run", (double) heartbeatWarnings(watch, children, runStart, WallClock.micros()));
      return out;
    } finally {
      children.forEach(ChildJvm::close);
      for (Path r : recordings) {
        JfrSummary.writeBeside(r, 30);
      }
    }
  }

  /**
   * Waits until every region of the told type knows every home, and returns when the last came
   * to know them.
   */
  private static long awaitEveryRegionKnows(List<ChildJvm> children, int regions, int shards)
      throws Exception {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (true) {
      UpFrontTelemetry.Known here = UpFrontTelemetry.known(regionName(TOLD_TYPE), shards);
      int knowing = here.regions();
      long last = here.lastMicros();
      for (ChildJvm c : children) {
        UpFrontTelemetry.Known there = UpFrontTelemetry.Known.parse(c.request("known " + TOLD_TYPE, "KNOWN ", WAIT));
        knowing += there.regions();
        last = Math.max(last, there.lastMicros());
      }
      if (knowing >= regions) {
        return last;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("after " + WAIT + " only " + knowing + " of " + regions
            + " regions know the homes of all " + shards + " shards");
      }
      Thread.sleep(POLL.toMillis());
    }
  }

  private static long heartbeatWarnings(UpFrontLogWatch watch, List<ChildJvm> children, long from, long to)
      throws Exception {
    long warnings = watch.heartbeatWarnings(from, to);
    for (ChildJvm c : children) {
      warnings += Long.parseLong(c.request("heartbeats " + from + " " + to, "HEARTBEATS ", WAIT).trim());
    }
    return warnings;
  }

  /**
   * A type's placement up front, from its coordinator's store writes.
   *
   * @param settledMicros when the write before the placement completed: the last registration,
   *     after which the coordinator had every region and placed
   * @param writesWithHomes the writes holding homes until {@code untilMicros}
   */
  private record Placed(RecordedStoreWrites.Write placement, long settledMicros, int writesWithHomes) {
    /**
     * @throws IllegalStateException if the coordinator placed before every region had registered,
     *     or placed fewer than every shard in its first write: then this run did not measure the row
     */
    static Placed of(String typeName, int shards, int regions, long untilMicros) {
      List<RecordedStoreWrites.Write> writes = RecordedStoreWrites.of(typeName);
      int first = -1;
      for (int i = 0; i < writes.size() && first < 0; i++) {
        if (writes.get(i).homes() > 0) {
          first = i;
        }
      }
      if (first < 1) {
        throw new IllegalStateException(typeName + ": no placement after a registration among " + writes);
      }
      RecordedStoreWrites.Write placement = writes.get(first);
      if (placement.regions() != regions || placement.homes() != shards || placement.endMicros() == 0) {
        throw new IllegalStateException(typeName + ": the first write with homes placed " + placement.homes()
            + " of " + shards + " shards over " + placement.regions() + " of " + regions + " regions ("
            + (placement.endMicros() == 0 ? "not stored" : "stored") + "): the coordinator did not place every"
            + " shard over every region at once");
      }
      int withHomes = (int) writes.stream()
          .filter(w -> w.homes() > 0 && w.startMicros() <= untilMicros).count();
      return new Placed(placement, writes.get(first - 1).endMicros(), withHomes);
    }
  }

  @Override
  public List<Row> summarize(List<RunResult> results) {
    String w = title();
    return List.of(
        judged(w, TOLD_FIGURE + " (`tell-up-front-homes = on`)", "s", 3, Results.series(results, "shardkit",
            "told_known_s"), "≤ 1 s", v -> v <= 1.0),
        information(w, "of which deciding (until the write is asked for)", "s", results, "told_decided_s"),
        information(w, "of which until stored", "s", results, "told_stored_s"),
        information(w, "seconds from the last registration stored until stored, defaults (`tell-up-front-homes ="
            + " off`)", "s", results, "default_stored_s"),
        judged(w, "store writes holding the homes placed up front (either type)", "", 0,
            Results.derived(results, "shardkit", v -> Math.max(v.getOrDefault("told_writes", Double.NaN),
                v.getOrDefault("default_writes", Double.NaN))), "1", v -> v == 1),
        judged(w, "heartbeat warnings while placing, every node", "", 0,
            Results.series(results, "shardkit", "heartbeat_warnings"), "0", v -> v == 0),
        information(w, "heartbeat warnings during the whole run (the cluster's formation included)", "", results,
            "heartbeat_warnings_run"),
        information(w, "seconds until every node was Up (not part of the placement)", "s", results, "formation_s"));
  }

  /** A row judged on every round's figure. */
  private static Row judged(String workload, String figure, String unit, int decimals, Map<Integer, Double> values,
      String target, DoublePredicate met) {
    return Row.shardkitOnly(workload, figure, unit, decimals, values, target,
        values.isEmpty() ? null : values.values().stream().allMatch(met::test));
  }

  /** A row shown without a target: seconds with three decimals, counts with none. */
  private static Row information(String workload, String figure, String unit, List<RunResult> results, String key) {
    return Row.shardkitOnly(workload, figure, unit, unit.isEmpty() ? 0 : 3, Results.series(results, "shardkit", key),
        "—", null);
  }
}
