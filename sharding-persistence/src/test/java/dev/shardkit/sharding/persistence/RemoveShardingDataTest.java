package dev.shardkit.sharding.persistence;

import static dev.shardkit.sharding.testsupport.persistence.StoreTestSupport.await;
import static dev.shardkit.sharding.testsupport.persistence.StoreTestSupport.storeAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.shardkit.sharding.ClusterSharding;
import dev.shardkit.sharding.Entity;
import dev.shardkit.sharding.EntityTypeKey;
import dev.shardkit.sharding.ShardingSettings;
import dev.shardkit.sharding.testsupport.persistence.EmbeddedPostgresServer;
import dev.shardkit.sharding.testsupport.persistence.StoreTestSupport;
import dev.shardkit.sharding.spi.CoordinatorEvent;
import dev.shardkit.sharding.spi.CoordinatorEvent.RegionRegistered;
import dev.shardkit.sharding.spi.CoordinatorEvent.ShardHomeAllocated;
import dev.shardkit.sharding.spi.CoordinatorState;
import dev.shardkit.sharding.spi.CoordinatorStateStore;
import dev.shardkit.sharding.spi.RememberEntitiesStore;
import dev.shardkit.sharding.testsupport.Recorder;
import dev.shardkit.sharding.testsupport.Recorder.Command;
import dev.shardkit.sharding.testsupport.Recorder.Msg;
import dev.shardkit.sharding.testkit.TestCluster;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The command-line tool against a real PostgreSQL: it deletes nothing without {@code --force}
 * and says why; with it, the named types' coordinators start empty and their shards remember no
 * entity, while other types keep theirs, also a type whose name starts with a named one. It
 * refuses while a coordinator of a named type wrote within the quiet period (a running cluster,
 * or one stopped just now), naming the last write's time and node and deleting nothing, unless
 * told {@code --even-if-live}; once the quiet period has passed it deletes.
 */
class RemoveShardingDataTest {
  /**
   * Small batches, so the data includes snapshots and the tool must delete those too. Only the
   * test that deletes with --force names Alpha (and Gamma, never stored); the others check that
   * Beta is untouched.
   */
  static final String SNAPSHOTS = "shardkit.sharding.persistence { snapshot-after = 3, "
      + "remember-entities.snapshot-after = 3 }\n";
  /** Alpha's shards; "b|1" holds the separator of type and shard, and still belongs to Alpha. */
  static final List<String> ALPHA_SHARDS = List.of("1", "2", "b|1");
  /**
   * Starts with "Alpha-": a prefix of "shardkit-entities-Alpha-" would take its shard 1 for
   * Alpha's shard "b-1". The tool must leave it alone.
   */
  static final String CLASHING = "Alpha-b";
  /**
   * The quiet period of the tool in these tests, short so that the tests that delete wait it out
   * after the systems that wrote have stopped.
   */
  static final Duration QUIET = Duration.ofSeconds(2);
  /**
   * Lowered from 15 s with the quiet period, which must be more than twice it: a running
   * coordinator then writes a keep-alive well within the quiet period.
   */
  static final String KEEP_ALIVES = "shardkit.sharding.persistence.keep-alive-interval = 500ms\n";
  static EmbeddedPostgresServer postgres;
  static Config config;

  @BeforeAll
  static void start() throws Exception {
    postgres = EmbeddedPostgresServer.start();
    config = StoreTestSupport.config(SNAPSHOTS + postgres.storeConfig()
        + "shardkit.sharding.persistence.remove-sharding-data.quiet-period = " + QUIET.toMillis() + "ms\n"
        + KEEP_ALIVES);
    ActorSystem<Void> cluster = StoreTestSupport.system("BeforeTheTool", SNAPSHOTS + postgres.storeConfig());
    try {
      for (String type : List.of("Alpha", "Beta")) {
        ActorRef<Object> region = cluster.systemActorOf(Behaviors.empty(), "region-" + type, Props.empty());
        List<CoordinatorEvent> events = new ArrayList<>();
        events.add(new RegionRegistered(region));
        for (int shard = 0; shard < 7; shard++) {
          events.add(new ShardHomeAllocated(Integer.toString(shard), region));
        }
        CoordinatorStateStore store = store(cluster, type);
        storeAll(store, CoordinatorState.empty(), events.toArray(CoordinatorEvent[]::new));
        store.close();
      }
      for (String shard : ALPHA_SHARDS) {
        remember(cluster, "Alpha", shard);
      }
      remember(cluster, CLASHING, "1");
      remember(cluster, "Beta", "1");
      TestCluster.await(Duration.ofSeconds(30), () -> postgres.snapshotSequenceNrs(coordinator("Alpha")).size() > 0
          && postgres.snapshotSequenceNrs(coordinator("Beta")).size() > 0
          && ALPHA_SHARDS.stream().allMatch(s -> postgres.snapshotSequenceNrs(entities("Alpha", s)).size() > 0),
          "snapshots are written");
    } finally {
      // The tool is for a cluster that is stopped.
      StoreTestSupport.terminate(cluster);
    }
    waitOutTheQuietPeriod();
  }

  /** After every system that wrote has stopped: the tool then finds the cluster stopped. */
  static void waitOutTheQuietPeriod() throws InterruptedException {
    // A fixed wait, and the property itself: the tool takes a cluster for stopped when nothing was
    // written for the quiet period by the rows' own write times, so only that much time passing
    // can make it so; no event stands for it.
    Thread.sleep(QUIET.toMillis());
  }

  /** Five updates: the shard remembers e-2, e-3 and e-4. */
  static void remember(ActorSystem<?> system, String type, String shard) throws Exception {
    RememberEntitiesStore store = entitiesStore(system, type, shard);
    await(store.update(Set.of("e-1", "e-2"), Set.of()));
    await(store.update(Set.of("e-3"), Set.of("e-1")));
    await(store.update(Set.of("e-4"), Set.of()));
    await(store.update(Set.of("e-5"), Set.of()));
    await(store.update(Set.of(), Set.of("e-5")));
    store.close();
  }

  static final Set<String> REMEMBERED = Set.of("e-2", "e-3", "e-4");

  @AfterAll
  static void stop() {
    postgres.close();
  }

  static String coordinator(String type) {
    return ShardingPersistenceIds.coordinator(type);
  }

  static String entities(String type, String shard) {
    return ShardingPersistenceIds.entities(type, shard);
  }

  static CoordinatorStateStore store(ActorSystem<?> system, String typeName) {
    return new PersistenceCoordinatorStateStoreProvider().create(system, typeName, ShardingSettings.create(system));
  }

  static RememberEntitiesStore entitiesStore(ActorSystem<?> system, String typeName, String shard) {
    return new PersistenceRememberEntitiesStoreProvider().create(system, typeName, shard,
        ShardingSettings.create(system));
  }

  record Run(int exitCode, String output) {}

  static Run run(String... args) {
    return run(config, args);
  }

  static Run run(Config config, String... args) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    int code = RemoveShardingData.run(List.of(args), config, new PrintStream(bytes, true, StandardCharsets.UTF_8));
    return new Run(code, bytes.toString(StandardCharsets.UTF_8));
  }

  static CoordinatorState load(String type) throws Exception {
    ActorSystem<Void> system = StoreTestSupport.system("Check" + type, SNAPSHOTS + postgres.storeConfig());
    try {
      return await(store(system, type).load()).state();
    } finally {
      StoreTestSupport.terminate(system);
    }
  }

  static Set<String> loadEntities(String type, String shard) throws Exception {
    ActorSystem<Void> system = StoreTestSupport.system("CheckEntities", SNAPSHOTS + postgres.storeConfig());
    try {
      return await(entitiesStore(system, type, shard).load());
    } finally {
      StoreTestSupport.terminate(system);
    }
  }

  /** Events not marked deleted, and snapshots, of {@code persistenceId}. */
  static long rows(String persistenceId) {
    return postgres.liveEventRows(persistenceId) + postgres.snapshotSequenceNrs(persistenceId).size();
  }

  @Test
  void withoutForceItSaysWhyItIsDangerousAndDeletesNothing() throws Exception {
    Run r = run("Beta");
    assertEquals(RemoveShardingData.EXIT_NOT_RUN, r.exitCode(), r.output());
    assertTrue(r.output().contains("entity type [Beta]: coordinator state (persistenceId [shardkit-coordinator-Beta])"),
        r.output());
    assertTrue(r.output().contains("entity type [Beta]: remembered entities (persistenceId "
        + "[shardkit-entities-Beta|<shard id>, one per shard])"), r.output());
    assertTrue(r.output().contains("looked up with read journal [shardkit.sharding.persistence.jdbc-read-journal]"),
        r.output());
    assertTrue(r.output().contains("Run it only while the whole cluster is stopped"), r.output());
    assertTrue(r.output().contains("the next coordinator starts empty"), r.output());
    assertTrue(r.output().contains("remembered entities are forgotten too"), r.output());
    assertTrue(r.output().contains("a running coordinator with nothing else to write writes a keep-alive once it was "
        + "quiet for 0.5 s (shardkit.sharding.persistence.keep-alive-interval)"), r.output());
    assertTrue(r.output().contains("Nothing was deleted"), r.output());
    assertTrue(r.output().contains("--force Beta"), r.output());
    assertEquals(7, load("Beta").shards().size(), "the data is untouched");
    assertEquals(REMEMBERED, loadEntities("Beta", "1"), "the data is untouched");
  }

  @Test
  void helpListsTheOptionsAndExitCodesAndTouchesNothing() throws Exception {
    for (String help : List.of("--help", "-h")) {
      Run r = run("--force", help, "Beta");
      assertEquals(RemoveShardingData.EXIT_OK, r.exitCode(), r.output());
      assertTrue(r.output().startsWith("Usage: java -cp"), r.output());
      for (String option : List.of("--force", "--quiet-period=<duration>", "--even-if-live", "--help, -h")) {
        assertTrue(r.output().contains("\n  " + option), option + " is listed: " + r.output());
      }
      assertTrue(r.output().contains("Exit codes:\n  0  ") && r.output().contains("\n  3  a named type's coordinator"),
          r.output());
    }
    assertEquals(7, load("Beta").shards().size(), "the data is untouched");
    assertEquals(REMEMBERED, loadEntities("Beta", "1"), "the data is untouched");
  }

  @Test
  void wrongArgumentsAreUsageErrors() throws Exception {
    Run none = run();
    assertEquals(RemoveShardingData.EXIT_NOT_RUN, none.exitCode());
    assertTrue(none.output().contains("No entity type named") && none.output().contains("Usage:"), none.output());
    Run forceOnly = run("--force");
    assertEquals(RemoveShardingData.EXIT_NOT_RUN, forceOnly.exitCode());
    assertTrue(forceOnly.output().contains("No entity type named"), forceOnly.output());
    Run typo = run("--froce", "Beta");
    assertEquals(RemoveShardingData.EXIT_NOT_RUN, typo.exitCode());
    assertTrue(typo.output().contains("Unknown option --froce"), typo.output());
    Run badName = run("--force", "no/such type");
    assertEquals(RemoveShardingData.EXIT_NOT_RUN, badName.exitCode());
    assertTrue(badName.output().contains("Not an entity type name: [no/such type]"), badName.output());
    // A read journal of another journal would find no remembered entities, and say nothing.
    Run otherReadJournal = run(ConfigFactory.parseString("shardkit.sharding.persistence.journal-plugin-id = "
        + "\"jdbc-journal\"").withFallback(config), "--force", "Beta");
    assertEquals(RemoveShardingData.EXIT_NOT_RUN, otherReadJournal.exitCode());
    assertTrue(otherReadJournal.output().contains("Cannot run: shardkit.sharding.persistence.read-journal-plugin-id"),
        otherReadJournal.output());
    Run liveWithoutForce = run("--even-if-live", "Beta");
    assertEquals(RemoveShardingData.EXIT_NOT_RUN, liveWithoutForce.exitCode());
    assertTrue(liveWithoutForce.output().contains("--even-if-live only goes with --force"), liveWithoutForce.output());
    Run badPeriod = run("--force", "--quiet-period=soon", "Beta");
    assertEquals(RemoveShardingData.EXIT_NOT_RUN, badPeriod.exitCode());
    assertTrue(badPeriod.output().contains("Cannot run: --quiet-period=soon is not a duration"), badPeriod.output());
    Run zeroPeriod = run("--force", "--quiet-period=0s", "Beta");
    assertEquals(RemoveShardingData.EXIT_NOT_RUN, zeroPeriod.exitCode());
    assertTrue(zeroPeriod.output().contains("Cannot run: --quiet-period=0s must be positive"), zeroPeriod.output());
    Run badSetting = run(ConfigFactory.parseString(RemoveShardingData.QUIET_PERIOD_KEY + " = -1s")
        .withFallback(config), "--force", "Beta");
    assertEquals(RemoveShardingData.EXIT_NOT_RUN, badSetting.exitCode());
    assertTrue(badSetting.output().contains("Cannot run: " + RemoveShardingData.QUIET_PERIOD_KEY
        + " must be positive"), badSetting.output());
    // An idle running coordinator writes only a keep-alive every 1.5 intervals or so.
    Run belowKeepAlives = run("--force", "--quiet-period=1s", "Beta");
    assertEquals(RemoveShardingData.EXIT_NOT_RUN, belowKeepAlives.exitCode(), belowKeepAlives.output());
    assertTrue(belowKeepAlives.output().contains("Cannot run: the quiet period (--quiet-period=1s) must be more than "
        + "twice shardkit.sharding.persistence.keep-alive-interval (0.5 s)"), belowKeepAlives.output());
    Run settingBelowKeepAlives = run(ConfigFactory.parseString("shardkit.sharding.persistence.keep-alive-interval = 1s")
        .withFallback(config), "--force", "Beta");
    assertEquals(RemoveShardingData.EXIT_NOT_RUN, settingBelowKeepAlives.exitCode(), settingBelowKeepAlives.output());
    assertTrue(settingBelowKeepAlives.output().contains("Cannot run: the quiet period ("
        + RemoveShardingData.QUIET_PERIOD_KEY + " = 2 s) must be more than twice "
        + "shardkit.sharding.persistence.keep-alive-interval (1 s)"), settingBelowKeepAlives.output());
    assertEquals(7, load("Beta").shards().size(), "nothing was deleted");
    assertEquals(REMEMBERED, loadEntities("Beta", "1"), "nothing was deleted");
  }

  @Test
  void withForceTheNamedTypesStartEmptyAndOthersKeepTheirState() throws Exception {
    Run r = run("--force", "Gamma", "Alpha");
    assertEquals(RemoveShardingData.EXIT_OK, r.exitCode(), r.output());
    assertTrue(r.output().contains("entity type [Alpha]: coordinator state, persistenceId "
        + "[shardkit-coordinator-Alpha]: deleted events up to sequence number 8 and all snapshots"), r.output());
    for (String shard : ALPHA_SHARDS) {
      assertTrue(r.output().contains("entity type [Alpha]: remembered entities, persistenceId [shardkit-entities-Alpha|"
          + shard + "]: deleted events up to sequence number 5 and all snapshots"), r.output());
    }
    assertTrue(r.output().contains("entity type [Gamma]: coordinator state, persistenceId "
        + "[shardkit-coordinator-Gamma]: no events were stored"), r.output());
    assertTrue(r.output().contains("entity type [Gamma]: remembered entities: nothing stored"), r.output());
    assertFalse(r.output().contains(CLASHING), r.output());
    // Written before the check stored nodes, by stores that never loaded (so no take-over).
    assertTrue(r.output().contains("entity type [Alpha]: last written at "), r.output());
    assertTrue(r.output().contains("by an unknown node"), r.output());
    assertTrue(r.output().contains("entity type [Gamma]: no coordinator event stored"), r.output());
    assertTrue(r.output().contains("Done."), r.output());

    assertEquals(0, rows(coordinator("Alpha")));
    assertEquals(CoordinatorState.empty(), load("Alpha"));
    for (String shard : ALPHA_SHARDS) {
      assertEquals(0, rows(entities("Alpha", shard)), shard);
      assertEquals(Set.of(), loadEntities("Alpha", shard), shard);
    }
    assertEquals(7, load("Beta").shards().size(), "a type not named keeps its state");
    assertEquals(REMEMBERED, loadEntities("Beta", "1"), "a type not named keeps its entities");
    assertEquals(REMEMBERED, loadEntities(CLASHING, "1"), "so does a type whose name starts with a named one");
    assertTrue(rows(entities(CLASHING, "1")) > 0);

    // A new coordinator and shard of the type write on from there, and running the tool again is harmless.
    ActorSystem<Void> system = StoreTestSupport.system("AfterTheTool", SNAPSHOTS + postgres.storeConfig());
    try {
      ActorRef<Object> region = system.systemActorOf(Behaviors.empty(), "region", Props.empty());
      // A coordinator loads (taking over, above every term before the tool ran) before it writes.
      CoordinatorStateStore alpha = store(system, "Alpha");
      storeAll(alpha, await(alpha.load()).state(), new RegionRegistered(region));
      RememberEntitiesStore shard = entitiesStore(system, "Alpha", "1");
      await(shard.update(Set.of("again"), Set.of()));
      shard.close();
    } finally {
      StoreTestSupport.terminate(system);
    }
    // Loading takes over: a coordinator write, by this check's node, just now.
    assertEquals(1, load("Alpha").regions().size());
    assertEquals(Set.of("again"), loadEntities("Alpha", "1"));
    Run justStopped = run("--force", "Alpha");
    assertEquals(RemoveShardingData.EXIT_LIVE, justStopped.exitCode(), justStopped.output());
    assertTrue(justStopped.output().contains("by node pekko://CheckAlpha@127.0.0.1:"), justStopped.output());
    assertTrue(justStopped.output().contains("WITHIN THE QUIET PERIOD"), justStopped.output());
    assertTrue(justStopped.output().contains("Nothing was deleted"), justStopped.output());
    assertFalse(justStopped.output().contains("Deleting"), justStopped.output());
    assertTrue(rows(coordinator("Alpha")) > 0, "nothing was deleted");
    assertEquals(Set.of("again"), loadEntities("Alpha", "1"), "nothing was deleted");

    waitOutTheQuietPeriod();
    Run again = run("--force", "Alpha");
    assertEquals(RemoveShardingData.EXIT_OK, again.exitCode(), again.output());
    assertTrue(again.output().contains("entity type [Alpha]: last written at "), again.output());
    assertTrue(again.output().contains("by node pekko://CheckAlpha@127.0.0.1:"), again.output());
    assertFalse(again.output().contains("WITHIN THE QUIET PERIOD"), again.output());
    assertTrue(again.output().contains("entity type [Alpha]: remembered entities, persistenceId "
        + "[shardkit-entities-Alpha|1]: deleted events up to sequence number 6"), again.output());
    // Nothing was written since: nothing to wait for.
    Run third = run("--force", "Alpha");
    assertEquals(RemoveShardingData.EXIT_OK, third.exitCode(), third.output());
    assertTrue(third.output().contains("entity type [Alpha]: no coordinator event stored"), third.output());
    assertTrue(third.output().contains("entity type [Alpha]: remembered entities: nothing stored"), third.output());
    assertEquals(CoordinatorState.empty(), load("Alpha"));
    assertEquals(Set.of(), loadEntities("Alpha", "1"));
    assertEquals(REMEMBERED, loadEntities(CLASHING, "1"));
  }

  /** A type whose coordinator runs while the tool is run. */
  static final EntityTypeKey<Command> LIVE = EntityTypeKey.create(Command.class, "Live");

  /** The sequence number of the latest event not marked deleted, which a removal deletes; 0 if none. */
  static long highestLiveEventSequenceNr(String persistenceId) {
    String max = postgres.column("SELECT max(sequence_number) FROM event_journal WHERE persistence_id = ? "
        + "AND NOT deleted", persistenceId).get(0);
    return max == null ? 0 : Long.parseLong(max);
  }

  /**
   * One node with the persistence store running {@code type}: a snapshot after every event, and
   * events behind the latest deleted, so the take-over event is soon gone; homes only for the
   * shards used, so that the coordinator writes only when told to (and its keep-alives).
   */
  static ActorSystem<Void> startOneNode(TestCluster cluster, String extraConfig, EntityTypeKey<Command> type) {
    cluster.add(postgres.storeConfig() + extraConfig + """
        shardkit.sharding.state-store-mode = persistence
        shardkit.sharding.rebalance-interval = 1h
        shardkit.sharding.persistence { snapshot-after = 1, keep-nr-of-batches = 1 }
        """);
    cluster.awaitUp(1);
    ActorSystem<Void> node = cluster.system(0);
    ClusterSharding.get(node).start(Entity.of(type, Recorder::create)
        .withSettings(ShardingSettings.create(node).withPlaceAllShardsAtStart(false)));
    return node;
  }

  @Test
  void aRunningClusterIsRefusedWithItsLastWriteAndEvenIfLiveDeletesSayingWhatItOverrode() throws Exception {
    Recorder.reset();
    Instant before = Instant.now().truncatedTo(ChronoUnit.MILLIS);
    try (TestCluster cluster = new TestCluster("LiveCluster")) {
      // The take-over event is soon gone, and the node comes from the snapshot.
      ActorSystem<Void> node = startOneNode(cluster, "", LIVE);
      ClusterSharding.get(node).entityRefFor(LIVE, "a").tell(new Msg("n1", 1));
      Recorder.awaitReceived(node, LIVE, "a", 1);
      String id = coordinator(LIVE.name());
      TestCluster.await(Duration.ofSeconds(30), () -> postgres.lowestEventSequenceNr(id) > 1,
          "the take-over event is deleted behind a snapshot");
      long highest = highestLiveEventSequenceNr(id);

      // The option overrides the tests' short setting: the coordinator wrote within the last minute.
      Run refused = run("--force", "--quiet-period=60s", LIVE.name());
      Instant after = Instant.now();
      assertEquals(RemoveShardingData.EXIT_LIVE, refused.exitCode(), refused.output());
      Matcher at = Pattern.compile("entity type \\[Live\\]: last written at (\\S+) \\(").matcher(refused.output());
      assertTrue(at.find(), refused.output());
      Instant writtenAt = Instant.parse(at.group(1));
      assertFalse(writtenAt.isBefore(before) || writtenAt.isAfter(after),
          "the time of a write of this test's cluster: " + writtenAt + " is not within " + before + ".." + after);
      assertTrue(refused.output().contains("by node " + node.address() + ";"), refused.output());
      assertTrue(refused.output().contains("WITHIN THE QUIET PERIOD"), refused.output());
      assertTrue(refused.output().contains("quiet period 60 s"), refused.output());
      assertTrue(refused.output().contains("Refused: the coordinator of Live wrote within the last 60 s"),
          refused.output());
      assertTrue(refused.output().contains("Nothing was deleted"), refused.output());
      assertFalse(refused.output().contains("Deleting"), refused.output());
      assertEquals(highest, highestLiveEventSequenceNr(id), "nothing was deleted");
      // The cluster goes on: a new shard gets a home.
      ClusterSharding.get(node).entityRefFor(LIVE, "b").tell(new Msg("n1", 1));
      Recorder.awaitReceived(node, LIVE, "b", 1);

      Run overridden = run("--force", "--even-if-live", "--quiet-period=60s", LIVE.name());
      assertEquals(RemoveShardingData.EXIT_OK, overridden.exitCode(), overridden.output());
      assertTrue(overridden.output().contains("entity type [Live]: last written at "), overridden.output());
      assertTrue(overridden.output().contains("by node " + node.address() + ";"), overridden.output());
      assertTrue(overridden.output().contains("Deleting anyway (--even-if-live), although the coordinator of Live "
          + "wrote within the last 60 s"), overridden.output());
      assertTrue(overridden.output().contains("entity type [Live]: coordinator state, persistenceId "
          + "[shardkit-coordinator-Live]: deleted events"), overridden.output());
      assertTrue(overridden.output().contains("Done."), overridden.output());
      assertEquals(0, rows(coordinator(LIVE.name())), "deleted although the cluster runs");
    }
  }

  static final EntityTypeKey<Command> IDLE = EntityTypeKey.create(Command.class, "Idle");

  /**
   * A running cluster whose coordinator has nothing to decide (no traffic, no shard to place)
   * still writes keep-alives, so past the quiet period the tool still refuses, naming the node.
   */
  @Test
  void anIdleRunningClusterIsStillRefusedAfterTheQuietPeriod() throws Exception {
    try (TestCluster cluster = new TestCluster("IdleCluster")) {
      // Keep-alives do not grow the journal (snapshots delete them), and the node comes from them.
      ActorSystem<Void> node = startOneNode(cluster, KEEP_ALIVES, IDLE);
      String id = coordinator(IDLE.name());
      // The take-over and the region's registration: the coordinator is loaded, and has nothing
      // more to write.
      TestCluster.await(Duration.ofSeconds(30), () -> highestLiveEventSequenceNr(id) >= 2, "the coordinator loaded");
      // A fixed wait, and the property itself: past a quiet period with nothing to decide, the
      // keep-alives alone must still show the cluster running.
      Thread.sleep(QUIET.plusMillis(500).toMillis());

      Run refused = run("--force", IDLE.name());
      assertEquals(RemoveShardingData.EXIT_LIVE, refused.exitCode(), refused.output());
      assertTrue(refused.output().contains("by node " + node.address() + ";"), refused.output());
      assertTrue(refused.output().contains("WITHIN THE QUIET PERIOD"), refused.output());
      assertTrue(refused.output().contains("Refused: the coordinator of Idle wrote within the last 2 s"),
          refused.output());
      assertTrue(highestLiveEventSequenceNr(id) > 2, "nothing was deleted, and keep-alives were written");
      assertTrue(postgres.lowestEventSequenceNr(id) > 1, "the events behind the snapshots are deleted");
    }
  }

  /**
   * Data the tool exists for: a coordinator event written by a newer shardkit (its schema version
   * raised in place). Its write time cannot be read with it, so the tool cannot tell whether the
   * cluster runs: it deletes only with --even-if-live.
   */
  @Test
  void dataThatCannotBeReadIsDeletedOnlyWithEvenIfLive() throws Exception {
    String id = coordinator("Unreadable");
    ActorSystem<Void> system = StoreTestSupport.system("Unreadable", SNAPSHOTS + postgres.storeConfig());
    try {
      CoordinatorStateStore store = store(system, "Unreadable");
      ActorRef<Object> region = system.systemActorOf(Behaviors.empty(), "region", Props.empty());
      storeAll(store, await(store.load()).state(), new RegionRegistered(region));
      store.close();
    } finally {
      StoreTestSupport.terminate(system);
    }
    try (Connection c = postgres.connect(); PreparedStatement update = c.prepareStatement("UPDATE event_journal "
        + "SET event_ser_manifest = replace(event_ser_manifest, '#2', '#99') WHERE persistence_id = ?")) {
      update.setString(1, id);
      assertEquals(2, update.executeUpdate(), "the take-over and the region's registration");
    }

    Run refused = run("--force", "Unreadable");
    assertEquals(RemoveShardingData.EXIT_FAILED, refused.exitCode(), refused.output());
    assertTrue(refused.output().contains("entity type [Unreadable]: FAILED to read its coordinator's last write"),
        refused.output());
    assertTrue(refused.output().contains("schema version 99"), refused.output());
    assertTrue(refused.output().contains("Nothing was deleted"), refused.output());
    assertTrue(refused.output().contains("make sure the whole cluster is stopped and add --even-if-live"),
        refused.output());
    assertEquals(2, postgres.liveEventRows(id), "nothing was deleted");

    Run forced = run("--force", "--even-if-live", "Unreadable");
    assertEquals(RemoveShardingData.EXIT_OK, forced.exitCode(), forced.output());
    assertTrue(forced.output().contains("Deleting anyway (--even-if-live), although the last writes of Unreadable "
        + "could not be read"), forced.output());
    assertTrue(forced.output().contains("entity type [Unreadable]: coordinator state, persistenceId [" + id
        + "]: deleted events up to sequence number 2"), forced.output());
    assertEquals(0, rows(id));
  }

  @Test
  void anUnreachableDatabaseIsAFailureThatSaysSo() {
    postgres.stop();
    try {
      Run r = run("--force", "Beta");
      // Without the last coordinator write it cannot tell whether the cluster runs: it deletes nothing.
      assertEquals(RemoveShardingData.EXIT_FAILED, r.exitCode(), r.output());
      assertTrue(r.output().contains("entity type [Beta]: FAILED to read its coordinator's last write"), r.output());
      assertTrue(r.output().contains("Nothing was deleted"), r.output());
      assertTrue(r.output().contains("Fix the cause and run again"), r.output());
      assertFalse(r.output().contains("Deleting"), r.output());
      assertFalse(r.output().contains("Done."), r.output());
    } finally {
      postgres.restart();
    }
    assertTrue(rows(coordinator("Beta")) > 0, "nothing was deleted");
    assertTrue(rows(entities("Beta", "1")) > 0, "nothing was deleted");
  }
}
