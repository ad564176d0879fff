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
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * Remember-entities recovery: one node creates many remembered entities, its actor system stops,
 * and a new one in a new JVM, on the same port and the same store files, starts the entity type
 * again; how long from that region's start until every remembered entity is alive again, with no
 * message sent to any of them. Both libraries keep the remembered entities in Distributed Data made
 * durable in LMDB, each in its own store with its defaults (recovery strategy "all").
 *
 * <p>The run's own JVM is the node before the restart; the node after it is a child JVM, so that
 * nothing of the first incarnation (loaded classes, caches, a warm JIT) helps the second, as in a
 * real restart.
 *
 * <p>Two modes: {@code ddata} as above, and {@code persistence}, where both libraries keep their
 * coordinator state and their remembered entities in the same journal, pekko-persistence-jdbc on
 * one H2 database in a file of the run's folder (so the restarted JVM finds it), with one plugin
 * configuration ({@link StoreModes}).
 */
public final class RememberEntitiesRecovery implements Workload {
  /** LMDB through lmdbjava needs these on Java 17 and later, for both libraries. */
  /** The store modes, each measured with its own rows. */
  static final List<String> MODES = List.of("ddata", "persistence");
  static final List<String> LMDB_OPENS = List.of("--add-opens", "java.base/java.nio=ALL-UNNAMED",
      "--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED");

  @Override
  public String id() {
    return "recovery";
  }

  @Override
  public String title() {
    return "Remember-entities recovery";
  }

  private static Map<String, String> params(Scale scale, String mode) {
    return Map.of("entities", Integer.toString(scale.pick(2_000, 100_000)),
        "shards", Integer.toString(scale.pick(100, 1_000)),
        "batch", Integer.toString(scale.pick(1_000, 50_000)),
        "cap-s", Integer.toString(scale.pick(30, 60)),
        "stall-s", "10",
        "store", mode);
  }

  @Override
  public String method(Scale scale) {
    Map<String, String> p = params(scale, "ddata");
    return "One node, `-Xmx2g`. Both libraries run with remember-entities on, the remembered entities in"
        + " Distributed Data made durable in LMDB on the node's disk (Pekko: `remember-entities-store = ddata`"
        + " with `distributed-data.durable.lmdb.dir` in the run's folder; shardkit: sharding-ddata's"
        + " remember-entities store with `ddata.remember-entities.lmdb.dir` there), the coordinators on their"
        + " default ddata stores, recovery strategy \"all\" (the default of both), " + p.get("shards")
        + " shards. Before the restart, in the run's JVM: " + p.get("entities") + " entities are created by one"
        + " message each through the region actor, in batches of " + p.get("batch") + ", each awaited until"
        + " every entity of the batch has started (both libraries start a new remembered entity only once its"
        + " remember write is done, with LMDB writing through, so a started entity is on disk); then the actor"
        + " system terminates (a graceful leave; the store files stay). After it, in a new JVM on the same port"
        + " and the same store folder: the node joins itself, and the clock runs from the call that starts the"
        + " entity type until every remembered entity has run its setup (each entity's setup counts itself;"
        + " nothing is sent to them). A run stops waiting after " + p.get("cap-s") + " s, or after "
        + p.get("stall-s") + " s in which no entity started, and reports how many came back; if some did not, it"
        + " then sends one message to one entity of every shard and times, from there, until all are alive (a"
        + " second figure). Two rounds. In the `persistence` mode the same, but both libraries keep their coordinator"
        + " state and remembered entities in one journal, pekko-persistence-jdbc 1.1.1 on an H2 database in a file of"
        + " the run's folder, same plugin configuration for both (Pekko: `state-store-mode = persistence`,"
        + " `remember-entities-store = eventsourced`; shardkit: sharding-persistence's stores); the node before the"
        + " restart shuts the database down after its actor system terminated, so every write is in the file."
        + " Figures: seconds.";
  }

  @Override
  public List<RunSpec> plan(Scale scale) {
    // Two JVMs and a graceful stop of 100 000 entities make a run take about 30 s: two rounds, as for memory.
    List<RunSpec> plan = new ArrayList<>();
    for (String mode : MODES) {
      plan.addAll(Results.alternate(id(), Math.min(2, scale.rounds()), List.of("shardkit", "pekko"),
          params(scale, mode)));
    }
    return plan;
  }

  @Override
  public List<String> jvmOptions(RunSpec spec) {
    List<String> options = new ArrayList<>(List.of("-Xms1g", "-Xmx2g"));
    options.addAll(LMDB_OPENS);
    return options;
  }

  @Override
  public Duration timeout(RunSpec spec) {
    // Creation, the restart's own JVM and the recovery cap.
    return Duration.ofSeconds(spec.intParam("cap-s") + 300);
  }

  @Override
  public Map<String, Double> run(RunSpec spec) throws Exception {
    return spec.params().getOrDefault("phase", "create").equals("restart") ? restart(spec) : createThenRestart(spec);
  }

  /** The node before the restart, then the restarted node in a child JVM. */
  private Map<String, Double> createThenRestart(RunSpec spec) throws Exception {
    String logs = System.getProperty(ChildJvm.LOG_DIR_PROPERTY, ".");
    String name = "recovery-" + spec.param("store") + "-" + spec.variant() + "-" + spec.round();
    Path store = Path.of(logs, name + "-store").toAbsolutePath();
    deleteTree(store);
    Files.createDirectories(store);
    RunSpec fixed = spec.with("port", Integer.toString(freePort())).with("dir", store.toString());
    try {
      double createSeconds = create(fixed);
      Map<String, Double> out = new LinkedHashMap<>();
      out.put("create_s", createSeconds);
      out.putAll(restartInChild(fixed, Path.of(logs), name));
      return out;
    } finally {
      deleteTree(store);
    }
  }

  /** Creates the entities, waits until they are stored, stops the node; returns the creation time. */
  private static double create(RunSpec spec) throws Exception {
    int entities = spec.intParam("entities");
    int batch = spec.intParam("batch");
    ActorSystem<Void> system = Nodes.start(config(spec), List.of(), null);
    try {
      Nodes.awaitUp(system, 1, Duration.ofSeconds(30));
      StoreModes.prepare(system, spec.param("store"));
      Starts starts = new Starts(entities);
      Subject.Node node = Subject.of(spec.variant()).startRemembering(system, starts);
      long start = System.nanoTime();
      for (int from = 0; from < entities; from += batch) {
        int to = Math.min(entities, from + batch);
        for (int i = from; i < to; i++) {
          node.tellViaRegion(entityId(i), LocalThroughput.MESSAGE);
        }
        Nodes.await(Duration.ofMinutes(2), () -> starts.entities() >= to, to + " remembered entities have started");
      }
      return (System.nanoTime() - start) / 1e9;
    } finally {
      Nodes.terminate(List.of(system));
      shutDownDatabase(spec);
    }
  }

  /**
   * Closes the H2 database of the persistence mode in this JVM: its last writes reach the file and
   * the file is free for the restarted node's JVM (this one keeps running meanwhile).
   */
  private static void shutDownDatabase(RunSpec spec) throws SQLException {
    if (!spec.param("store").equals("persistence")) {
      return;
    }
    try (Connection c = DriverManager.getConnection(databaseUrl(spec), "bench", "bench");
        Statement s = c.createStatement()) {
      s.execute("SHUTDOWN");
    }
  }

  private static String databaseUrl(RunSpec spec) {
    return "jdbc:h2:file:" + Path.of(spec.param("dir"), "h2", "bench") + ";DATABASE_TO_UPPER=false";
  }

  private Map<String, Double> restartInChild(RunSpec spec, Path logs, String name) throws Exception {
    Path log = logs.resolve(name + "-restart.log");
    List<String> jvm = new ArrayList<>(jvmOptions(spec));
    jvm.add("-D" + ChildJvm.LOG_DIR_PROPERTY + "=" + logs);
    // A recorded run records the restarted node too: that is where the recovery happens.
    Path jfr = logs.resolve(name + "-restart.jfr").toAbsolutePath();
    boolean recorded = jdk.jfr.FlightRecorder.isInitialized()
        && !jdk.jfr.FlightRecorder.getFlightRecorder().getRecordings().isEmpty();
    if (recorded) {
      jvm.add("-XX:StartFlightRecording=settings=profile,filename=" + jfr);
    }
    try (ChildJvm child = ChildJvm.start(RunMain.class.getName(), jvm, spec.with("phase", "restart").toArgs(), log)) {
      // Start-up, then at most two waits (by themselves, after one message per shard).
      String line = child.awaitLine(Duration.ofSeconds(2L * spec.intParam("cap-s") + 90), "RESULT", "ERROR");
      if (line.startsWith("ERROR")) {
        throw new IllegalStateException("the restarted node failed: " + line.substring("ERROR".length()).trim()
            + " (log: " + log + ")");
      }
      return RunResult.parseResultLine(line);
    } finally {
      if (recorded) {
        JfrSummary.writeBeside(jfr, 30);
      }
    }
  }

  /** The node after the restart (in its own JVM): starts the type and times the recovery. */
  private static Map<String, Double> restart(RunSpec spec) throws Exception {
    int entities = spec.intParam("entities");
    ActorSystem<Void> system = Nodes.start(config(spec), List.of(), null);
    Nodes.awaitUp(system, 1, Duration.ofSeconds(30));
    StoreModes.prepare(system, spec.param("store"));
    Starts starts = new Starts(entities);
    long start = System.nanoTime();
    Subject.Node node = Subject.of(spec.variant()).startRemembering(system, starts);
    boolean all = awaitAll(starts, start, spec);
    Map<String, Double> out = new LinkedHashMap<>();
    // Without every entity back there is no recovery time; the count says how far it got.
    out.put("recovery_s", all ? (starts.completedAt() - start) / 1e9 : Double.NaN);
    out.put("recovered", (double) starts.entities());
    out.put("expected", (double) entities);
    out.put("starts", (double) starts.starts());
    if (!all) {
      // What a shard does once it runs, apart from whether it was started by itself: one message
      // to one entity per shard starts every shard, which should then start all it remembers.
      long nudge = System.nanoTime();
      Map<String, String> onePerShard = new LinkedHashMap<>();
      for (int i = 0; i < entities; i++) {
        onePerShard.putIfAbsent(node.shardId(entityId(i)), entityId(i));
      }
      onePerShard.values().forEach(id -> node.tellViaRegion(id, LocalThroughput.MESSAGE));
      boolean afterNudge = awaitAll(starts, nudge, spec);
      out.put("nudged_s", afterNudge ? (starts.completedAt() - nudge) / 1e9 : Double.NaN);
      out.put("nudged_recovered", (double) starts.entities());
    }
    // No shutdown: the JVM halts once the figures are printed (see Workload#run).
    return out;
  }

  /**
   * Waits until every expected entity has started, the cap has passed since {@code since}, or no
   * entity has started for the stall time.
   */
  private static boolean awaitAll(Starts starts, long since, RunSpec spec) throws InterruptedException {
    long cap = Duration.ofSeconds(spec.intParam("cap-s")).toNanos();
    long stall = Duration.ofSeconds(spec.intParam("stall-s")).toNanos();
    int seen = starts.entities();
    long lastProgress = System.nanoTime();
    while (!starts.awaitAll(Duration.ofMillis(100))) {
      long now = System.nanoTime();
      int n = starts.entities();
      if (n != seen) {
        seen = n;
        lastProgress = now;
      }
      if (now - since > cap || now - lastProgress > stall) {
        return false;
      }
    }
    return true;
  }

  /** The same node configuration before and after the restart: fixed port, fixed store folder. */
  private static String config(RunSpec spec) {
    String dir = spec.param("dir");
    String shards = spec.param("shards");
    String mode = spec.param("store");
    boolean persistence = mode.equals("persistence");
    String common = "pekko.remote.artery.canonical.port = " + spec.param("port") + "\n"
        + "shardkit.sharding.number-of-shards = " + shards + "\n"
        + "pekko.cluster.sharding.number-of-shards = " + shards + "\n"
        + "pekko.cluster.sharding.remember-entities = on\n"
        // The coordinators' ddata stores keep nothing on disk, but Pekko's remembered shards do.
        + "shardkit.sharding.ddata.remember-entities.lmdb.dir = " + quoted(Path.of(dir, "shardkit-lmdb")) + "\n"
        + "pekko.cluster.sharding.distributed-data.durable.lmdb.dir = " + quoted(Path.of(dir, "pekko-lmdb")) + "\n";
    if (!persistence) {
      return common + StoreModes.config("shardkit", StoreModes.shardkitDefault()) + "\n"
          + "shardkit.sharding.remember-entities-store = ddata\n"
          + "pekko.cluster.sharding.remember-entities-store = ddata\n";
    }
    return common + StoreModes.config("shardkit", "persistence") + StoreModes.config("pekko", "persistence")
        + "shardkit.sharding.remember-entities-store = persistence\n"
        + "pekko.cluster.sharding.remember-entities-store = eventsourced\n"
        // A file, not memory: the restarted node runs in another JVM.
        + "pekko-persistence-jdbc.shared-databases.bench.db.url = " + quoted(databaseUrl(spec)) + "\n";
  }

  private static String quoted(Path p) {
    return quoted(p.toString());
  }

  private static String quoted(String p) {
    return "\"" + p.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }

  static String entityId(int i) {
    return "entity-" + i;
  }

  /** A port free now on the loopback address, for both incarnations of the node. */
  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  private static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(dir)) {
      for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }

  @Override
  public List<Row> summarize(List<RunResult> results) {
    List<Row> rows = new ArrayList<>();
    for (String mode : MODES) {
      List<RunResult> inMode = Results.where(results, "store", mode);
      if (!inMode.isEmpty()) {
        rows.addAll(summarize(title() + ", " + mode, inMode, mode.equals("ddata") ? 1.0 : Double.NaN));
      }
    }
    return rows;
  }

  /** @param createTarget the creation row's target ratio; NaN for none */
  private static List<Row> summarize(String w, List<RunResult> results, double createTarget) {
    List<Row> rows = new ArrayList<>();
    int expected = results.stream().mapToInt(r -> r.spec().intParam("entities")).findFirst().orElse(0);
    String count = Row.value(expected, "", 0);
    Map<Integer, Double> skBack = Results.series(results, "shardkit", "recovered");
    Map<Integer, Double> pkBack = Results.series(results, "pekko", "recovered");
    Row time = Row.compare(w, "seconds from the region's start until all " + count + " are alive", "s", 2,
        Row.Better.LOWER, Results.series(results, "shardkit", "recovery_s"),
        Results.series(results, "pekko", "recovery_s"), 0.5);
    boolean skShort = skBack.values().stream().anyMatch(v -> v < expected);
    // A run that did not bring every entity back has no time, and fails the target.
    rows.add(new Row(w, time.figure(), recoveredText(results, "shardkit", time.shardkit(), expected),
        recoveredText(results, "pekko", time.pekko(), expected), time.ratio(), time.perRound(), time.target(),
        time.verdict(), time.shardkitMedian(), time.pekkoMedian(), time.advantage(), time.targetAdvantage())
        .withVerdict(skShort ? Row.Verdict.NOT_MET : time.verdict()));
    rows.add(Row.absolute(w, "entities alive again by themselves (of " + count + ")", "", 0, skBack, pkBack, "all",
        skBack.isEmpty() ? null : !skShort));
    Map<Integer, Double> skNudged = Results.series(results, "shardkit", "nudged_s");
    Map<Integer, Double> pkNudged = Results.series(results, "pekko", "nudged_s");
    if (!skNudged.isEmpty() || !pkNudged.isEmpty()) {
      rows.add(Row.absolute(w, "where they did not: seconds until all are alive after one message per shard", "s",
          2, skNudged, pkNudged, "—", null).withVerdict(Row.Verdict.NO_TARGET));
    }
    rows.add(Row.compare(w, "seconds to create the " + count + " remembered entities (before the restart)", "s",
        2, Row.Better.LOWER, Results.series(results, "shardkit", "create_s"),
        Results.series(results, "pekko", "create_s"), createTarget));
    return rows;
  }

  /** A median time, or how far the runs got when some did not bring every entity back. */
  private static String recoveredText(List<RunResult> results, String variant, String median, int expected) {
    List<String> parts = new ArrayList<>();
    int complete = 0;
    for (RunResult r : results) {
      if (!r.succeeded() || !r.spec().variant().equals(variant)) {
        continue;
      }
      double back = r.values().getOrDefault("recovered", Double.NaN);
      if (back < expected) {
        parts.add(String.format(Locale.ROOT, "%s of %s back (round %d)", Row.value(back, "", 0),
            Row.value(expected, "", 0), r.spec().round()));
      } else {
        complete++;
      }
    }
    if (parts.isEmpty()) {
      return median;
    }
    return String.join("; ", parts) + (complete > 0 ? "; others: " + median : "");
  }
}
