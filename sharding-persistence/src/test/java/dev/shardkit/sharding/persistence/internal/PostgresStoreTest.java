package dev.shardkit.sharding.persistence.internal;

import static dev.shardkit.sharding.testsupport.persistence.StoreTestSupport.await;
import static dev.shardkit.sharding.testsupport.persistence.StoreTestSupport.failureOf;
import static dev.shardkit.sharding.testsupport.persistence.StoreTestSupport.fullText;
import static dev.shardkit.sharding.testsupport.persistence.StoreTestSupport.storeAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.persistence.PersistenceCoordinatorStateStoreProvider;
import dev.shardkit.sharding.persistence.ShardingPersistenceIds;
import dev.shardkit.sharding.testsupport.persistence.EmbeddedPostgresServer;
import dev.shardkit.sharding.testsupport.persistence.StoreTestSupport;
import dev.shardkit.sharding.spi.CoordinatorEvent;
import dev.shardkit.sharding.spi.CoordinatorEvent.ProxyRegistered;
import dev.shardkit.sharding.spi.CoordinatorEvent.RegionRegistered;
import dev.shardkit.sharding.spi.CoordinatorEvent.RegionTerminated;
import dev.shardkit.sharding.spi.CoordinatorEvent.ShardHomeAllocated;
import dev.shardkit.sharding.spi.CoordinatorEvent.ShardHomeDeallocated;
import dev.shardkit.sharding.spi.CoordinatorState;
import dev.shardkit.sharding.spi.CoordinatorStateStore;
import dev.shardkit.sharding.spi.CoordinatorStateSupersededException;
import dev.shardkit.sharding.spi.LoadedCoordinatorState;
import dev.shardkit.sharding.ShardingSettings;
import dev.shardkit.sharding.testsupport.LogCapture;
import dev.shardkit.sharding.testkit.TestCluster;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import org.apache.pekko.Done;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The persistence store on a real PostgreSQL: what one actor system stores, a fresh one loads;
 * snapshots replace old events; records carry their schema version; replay tolerates an event
 * written twice and refuses an inconsistent journal.
 */
class PostgresStoreTest {
  private static EmbeddedPostgresServer postgres;
  /** Hosts the "regions" whose references the stores keep; it outlives the store systems. */
  private static ActorTestKit regions;
  private static final List<TestProbe<String>> probes = new ArrayList<>();

  @BeforeAll
  static void start() {
    postgres = EmbeddedPostgresServer.start();
    regions = ActorTestKit.create("Regions", StoreTestSupport.config(""));
    for (int i = 0; i < 3; i++) {
      probes.add(regions.createTestProbe(String.class));
    }
  }

  @AfterAll
  static void stop() {
    if (regions != null) {
      regions.shutdownTestKit();
    }
    if (postgres != null) {
      postgres.close();
    }
  }

  private static ActorSystem<Void> storeSystem(String name, String extraConfig) {
    return StoreTestSupport.system(name, extraConfig + "\n" + postgres.storeConfig());
  }

  private static CoordinatorStateStore store(ActorSystem<?> system, String typeName) {
    return new PersistenceCoordinatorStateStoreProvider().create(system, typeName, ShardingSettings.create(system));
  }

  /** A probe's reference as a system that reads it from the store sees it. */
  private static ActorRef<Object> region(ActorSystem<?> in, int i) {
    return StoreTestSupport.resolveIn(in, regions.system(), probes.get(i).ref());
  }

  /** The same events with references resolved in {@code system}, applied to an empty state. */
  private static CoordinatorState expected(ActorSystem<?> system,
      Function<ActorSystem<?>, List<CoordinatorEvent>> events) {
    CoordinatorState s = CoordinatorState.empty();
    for (CoordinatorEvent e : events.apply(system)) {
      s = s.applied(e);
    }
    return s;
  }

  private static List<CoordinatorEvent> history(ActorSystem<?> s) {
    return List.of(new RegionRegistered(region(s, 0)), new RegionRegistered(region(s, 1)),
        new ProxyRegistered(region(s, 2)), new ShardHomeAllocated("1", region(s, 0)),
        new ShardHomeAllocated("2", region(s, 1)), new ShardHomeAllocated("3", region(s, 0)),
        new ShardHomeDeallocated("3"), new ShardHomeAllocated("3", region(s, 1)));
  }

  @Test
  void aFreshActorSystemLoadsWhatThePreviousOneStored() throws Exception {
    ActorSystem<Void> first = storeSystem("First", "");
    try {
      CoordinatorStateStore store = store(first, "RoundTrip");
      assertEquals(CoordinatorState.empty(), await(store.load()).state(), "nothing stored yet");
      storeAll(store, CoordinatorState.empty(), history(first).toArray(CoordinatorEvent[]::new));
      store.close();
    } finally {
      StoreTestSupport.terminate(first);
    }

    ActorSystem<Void> second = storeSystem("Second", "");
    try {
      CoordinatorState loaded = await(store(second, "RoundTrip").load()).state();
      assertEquals(expected(second, PostgresStoreTest::history), loaded);
      assertEquals(List.of("1"), loaded.regions().get(region(second, 0)));
      assertEquals(List.of("2", "3"), loaded.regions().get(region(second, 1)));
      // The references resolve to the live regions: a message through one arrives.
      loaded.homeOf("2").orElseThrow().tell("hello from the second system");
      probes.get(1).expectMessage("hello from the second system");
      assertTrue(loaded.proxies().contains(region(second, 2)));
      // Another type's data is separate.
      assertEquals(CoordinatorState.empty(), await(store(second, "OtherType").load()).state());
    } finally {
      StoreTestSupport.terminate(second);
    }
  }

  @Test
  void snapshotsReplaceOldEventsAndTheStateStillLoads() throws Exception {
    String type = "Snapshotted";
    String config = "shardkit.sharding.persistence { snapshot-after = 5, keep-nr-of-batches = 2 }";
    ActorSystem<Void> writer = storeSystem("SnapshotWriter", config);
    List<CoordinatorEvent> events = new ArrayList<>();
    try {
      events.add(new RegionRegistered(region(writer, 0)));
      events.add(new RegionRegistered(region(writer, 1)));
      for (int shard = 1; shard < 40; shard++) {
        events.add(new ShardHomeAllocated(Integer.toString(shard), region(writer, shard % 2)));
      }
      assertEquals(41, events.size());
      storeAll(store(writer, type), CoordinatorState.empty(), events.toArray(CoordinatorEvent[]::new));

      // Snapshots at 5, 10, ... 40; after the one at 40, events up to 40 - 2 * 5 = 30 go, and then
      // snapshots before 30. Deleting runs after the write, so wait for it.
      String pid = ShardingPersistenceIds.coordinator(type);
      TestCluster.await(Duration.ofSeconds(30), () -> snapshotSequenceNrs(pid).equals(List.of(30L, 35L, 40L))
          && lowestEventSequenceNr(pid) == 30, "old events and snapshots are deleted");
      assertEquals(List.of(30L, 35L, 40L), snapshotSequenceNrs(pid));
      assertEquals(12, eventRows(pid), "rows 30..41 remain (30 only as the marker of the highest deleted)");
    } finally {
      StoreTestSupport.terminate(writer);
    }

    ActorSystem<Void> reader = storeSystem("SnapshotReader", config);
    try {
      CoordinatorState loaded = await(store(reader, type).load()).state();
      CoordinatorState want = CoordinatorState.empty();
      for (CoordinatorEvent e : events) {
        want = want.applied(new StoredForm(reader).fromStored(new StoredForm(writer).toStored(e)));
      }
      assertEquals(want, loaded);
      assertEquals(39, loaded.shards().size());
    } finally {
      StoreTestSupport.terminate(reader);
    }
  }

  @Test
  void storedRecordsCarryTheirSchemaVersionAndANewerOneIsRefused() throws Exception {
    String type = "Versioned";
    String pid = ShardingPersistenceIds.coordinator(type);
    String config = "shardkit.sharding.persistence.snapshot-after = 2";
    ActorSystem<Void> writer = storeSystem("VersionWriter", config);
    try {
      storeAll(store(writer, type), CoordinatorState.empty(), new RegionRegistered(region(writer, 0)),
          new ShardHomeAllocated("1", region(writer, 0)), new ShardHomeAllocated("2", region(writer, 0)));
      TestCluster.await(Duration.ofSeconds(30), () -> !snapshotSequenceNrs(pid).isEmpty(), "a snapshot is written");
    } finally {
      StoreTestSupport.terminate(writer);
    }
    for (String manifest : postgres.column("SELECT event_ser_manifest FROM event_journal WHERE persistence_id = ?",
        pid)) {
      assertEquals(StoredEvent.class.getName() + "#" + StoredRecordVersion.CURRENT, manifest);
    }
    for (String manifest : postgres.column("SELECT snapshot_ser_manifest FROM snapshot WHERE persistence_id = ?",
        pid)) {
      assertEquals(StoredSnapshot.class.getName() + "#" + StoredRecordVersion.CURRENT, manifest);
    }
    try (Connection c = postgres.connect()) {
      // As a newer shardkit would have written the latest event.
      try (PreparedStatement s = c.prepareStatement("UPDATE event_journal SET event_ser_manifest = ? "
          + "WHERE persistence_id = ? AND sequence_number = 3")) {
        s.setString(1, StoredEvent.class.getName() + "#" + (StoredRecordVersion.CURRENT + 1));
        s.setString(2, pid);
        assertEquals(1, s.executeUpdate());
      }
    }
    ActorSystem<Void> reader = storeSystem("VersionReader", config);
    try (LogCapture logs = new LogCapture()) {
      Throwable failure = failureOf(store(reader, type).load());
      String text = fullText(failure);
      assertInstanceOf(PersistenceStoreException.class, failure);
      int newer = StoredRecordVersion.CURRENT + 1;
      assertTrue(text.contains("has schema version " + newer + ", but this shardkit reads versions up to "
          + StoredRecordVersion.CURRENT), text);
      assertTrue(text.contains("written by a newer shardkit"), text);
      logs.await(Duration.ofSeconds(10), "Coordinator state store of entity type [Versioned]", "schema version " + newer,
          "the coordinator retries");
    } finally {
      StoreTestSupport.terminate(reader);
    }
  }

  @Test
  void anEventWrittenTwiceIsSkippedOnReplay() throws Exception {
    String type = "Duplicated";
    ActorSystem<Void> system = storeSystem("Duplicates", "");
    try (LogCapture logs = new LogCapture()) {
      StoredForm form = new StoredForm(system);
      ActorRef<Object> r0 = region(system, 0);
      // What two writes of the same event, each confirmed lost and retried, leave in the journal.
      writeRaw(system, type, List.of(form.toStored(new RegionRegistered(r0)),
          form.toStored(new ShardHomeAllocated("1", r0)), form.toStored(new ShardHomeAllocated("1", r0)),
          form.toStored(new RegionRegistered(r0)), form.toStored(new ShardHomeAllocated("2", r0))));

      CoordinatorStateStore store = store(system, type);
      CoordinatorState loaded = await(store.load()).state();
      assertEquals(List.of("1", "2"), loaded.regions().get(r0));
      logs.await(Duration.ofSeconds(10), "skipping stored event #3", "already reflects it");
      logs.await(Duration.ofSeconds(10), "skipping stored event #4", "already reflects it");

      // The store goes on from there, and the next load has everything once.
      CoordinatorState after = storeAll(store, loaded, new ShardHomeAllocated("3", r0));
      store.close();
      assertEquals(after, await(store(system, type).load()).state());
    } finally {
      StoreTestSupport.terminate(system);
    }
  }

  @Test
  void aRetriedStoreOfAnEventAlreadyWrittenIsAcknowledgedWithoutASecondWrite() throws Exception {
    String type = "Retried";
    String pid = ShardingPersistenceIds.coordinator(type);
    ActorSystem<Void> system = storeSystem("Retries", "");
    try {
      CoordinatorStateStore store = store(system, type);
      ActorRef<Object> r0 = region(system, 0);
      CoordinatorState registered = storeAll(store, CoordinatorState.empty(), new RegionRegistered(r0));
      ShardHomeAllocated allocated = new ShardHomeAllocated("1", r0);
      CoordinatorState after = registered.applied(allocated);
      await(store.store(List.of(allocated), after));
      // The coordinator saw no confirmation (say, a timeout) and stores the same event again.
      await(store.store(List.of(allocated), after));
      assertEquals(2, eventRows(pid), "the event is in the journal once");
      assertEquals(after, await(store.load()).state());

      // A store that does not follow the stored state (a stale request the coordinator has given
      // up on: it assumed shard 1 unallocated) is refused, and nothing is written.
      ShardHomeAllocated stale = new ShardHomeAllocated("2", r0);
      Throwable refused = failureOf(store.store(List.of(stale), registered.applied(stale)));
      assertTrue(fullText(refused).contains("does not follow the stored state"), fullText(refused));
      assertEquals(3, eventRows(pid), "the two events and the take-over of the load above");
    } finally {
      StoreTestSupport.terminate(system);
    }
  }

  @Test
  void eachLoadTakesOverWithAGreaterTermAndThePreviousCoordinatorsWritesAreRefusedAsSuperseded() throws Exception {
    String type = "TakenOver";
    ActorSystem<Void> first = storeSystem("TakeOverFirst", "");
    ActorSystem<Void> second = storeSystem("TakeOverSecond", "");
    try {
      CoordinatorStateStore previous = store(first, type);
      LoadedCoordinatorState before = await(previous.load());
      ActorRef<Object> r0 = region(first, 0);
      CoordinatorState registered = storeAll(previous, before.state(), new RegionRegistered(r0));

      CoordinatorStateStore successor = store(second, type);
      LoadedCoordinatorState taken = await(successor.load());
      assertTrue(taken.term() > before.term(), before + " then " + taken);

      // The previous coordinator's write lands after its successor loaded. Its journal has not
      // seen the take-over, so the first attempt collides with it; the retry (on a journal that
      // has replayed it) is refused for good, which makes the coordinator load again. It is a
      // write of many events (one batch row), fenced like a single one.
      List<CoordinatorEvent> late = new ArrayList<>();
      CoordinatorState lateState = registered;
      for (int i = 0; i < CoordinatorJournal.BATCH_FROM; i++) {
        late.add(new ShardHomeAllocated("late-" + i, r0));
        lateState = lateState.applied(late.get(i));
      }
      Throwable refused = failureOf(previous.store(late, lateState));
      if (!(refused instanceof CoordinatorStateSupersededException)) {
        refused = failureOf(previous.store(late, lateState));
      }
      assertInstanceOf(CoordinatorStateSupersededException.class, refused, fullText(refused));
      assertTrue(refused.getMessage().contains("took over at term " + taken.term()), refused.getMessage());

      // The successor writes on from what it loaded; the late write is nowhere.
      ActorRef<Object> r0There = taken.state().regions().keySet().iterator().next();
      storeAll(successor, taken.state(), new ShardHomeAllocated("2", r0There));
      successor.close();
      // Its journal has not seen the successor's last write, so its take-over may collide with it
      // once, and the load is tried again as the coordinator would.
      LoadedCoordinatorState again = StoreTestSupport.eventually(previous::load, "the load again",
          Duration.ofSeconds(30));
      assertEquals(Set.of("2"), again.state().shards().keySet(), "the successor's home, not the late one");
      assertTrue(again.term() > taken.term(), "the previous coordinator, loading again, takes over anew");
    } finally {
      StoreTestSupport.terminate(first);
      StoreTestSupport.terminate(second);
    }
  }

  /** Keep-alives of {@code node} in the journal of {@code persistenceId} after {@code afterSeqNr}. */
  private static long keepAlives(String persistenceId, String node, long afterSeqNr) {
    return Long.parseLong(postgres.column("SELECT count(*) FROM event_journal WHERE persistence_id = ? "
        + "AND sequence_number > " + afterSeqNr + " AND convert_from(event_payload, 'UTF8') LIKE ?", persistenceId,
        "%\"kind\":\"KEPT_ALIVE\",\"node\":\"" + node + "\"%").get(0));
  }

  @Test
  void aLoadedStoreWritesKeepAlivesNamingItsNodeAndADeposedOneNoneAfterTheTakeOver() throws Exception {
    String type = "KeptAlive";
    String id = ShardingPersistenceIds.coordinator(type);
    // Lowered from 15 s, so that several keep-alives are written within the test.
    String keepAlive = "shardkit.sharding.persistence.keep-alive-interval = 200ms";
    ActorSystem<Void> first = storeSystem("KeepAliveFirst", keepAlive);
    ActorSystem<Void> second = storeSystem("KeepAliveSecond", keepAlive);
    try {
      CoordinatorStateStore previous = store(first, type);
      LoadedCoordinatorState before = await(previous.load());
      storeAll(previous, before.state(), new RegionRegistered(region(first, 0)));
      String firstNode = first.address().toString();
      TestCluster.await(Duration.ofSeconds(30), () -> keepAlives(id, firstNode, before.term()) >= 2,
          "the loaded store writes keep-alives while its coordinator writes nothing");

      CoordinatorStateStore successor = store(second, type);
      LoadedCoordinatorState taken = await(successor.load());
      String secondNode = second.address().toString();
      TestCluster.await(Duration.ofSeconds(30), () -> keepAlives(id, secondNode, taken.term()) >= 5,
          "the successor writes keep-alives");
      assertEquals(0, keepAlives(id, firstNode, taken.term()), "the deposed store's keep-alives are refused");

      // Replay skips them: a coordinator that loads again has the state they sat among.
      successor.close();
      LoadedCoordinatorState again = StoreTestSupport.eventually(() -> store(second, type).load(), "the load again",
          Duration.ofSeconds(30));
      assertEquals(taken.state(), again.state());
      assertEquals(Set.of(region(second, 0)), again.state().regions().keySet());
    } finally {
      StoreTestSupport.terminate(first);
      StoreTestSupport.terminate(second);
    }
  }

  @Test
  void manyEventsAreOneWriteAndARetryWhoseFirstPartLandedWritesOnlyTheRest() throws Exception {
    String type = "Batched";
    String pid = ShardingPersistenceIds.coordinator(type);
    ActorSystem<Void> system = storeSystem("Batches", "");
    try {
      CoordinatorStateStore store = store(system, type);
      ActorRef<Object> r0 = region(system, 0);
      ActorRef<Object> r1 = region(system, 1);
      CoordinatorState registered = storeAll(store, CoordinatorState.empty(), new RegionRegistered(r0),
          new RegionRegistered(r1));
      List<CoordinatorEvent> placement = new ArrayList<>();
      for (int i = 0; i < 300; i++) {
        placement.add(new ShardHomeAllocated(Integer.toString(i), i % 2 == 0 ? r0 : r1));
      }
      CoordinatorState placed = registered;
      for (CoordinatorEvent e : placement) {
        placed = placed.applied(e);
      }
      await(store.store(placement, placed));
      assertEquals(3, eventRows(pid), "two registrations and the placement as one row");
      assertEquals(placed, await(store.load()).state());

      // The confirmation of the placement was lost; the coordinator writes it again together with
      // what it decided since. Only the new events are written.
      List<CoordinatorEvent> retry = new ArrayList<>(placement);
      retry.add(new ShardHomeAllocated("extra", r1));
      await(store.store(retry, placed.applied(new ShardHomeAllocated("extra", r1))));
      assertEquals(5, eventRows(pid), "the placement is in the journal once (beside the load's take-over and the "
          + "extra event, a row of its own)");
      assertEquals(placed.applied(new ShardHomeAllocated("extra", r1)), await(store.load()).state());
    } finally {
      StoreTestSupport.terminate(system);
    }
  }

  @Test
  void placing100000ShardsUpFrontIsOneRowThatAFreshSystemLoadsInOrder() throws Exception {
    String type = "UpFront";
    String pid = ShardingPersistenceIds.coordinator(type);
    // 100 regions, as the up-front placement the issue measures; the probes stand in for three of
    // them, the others are references to nodes that do not exist, which resolve all the same.
    Function<ActorSystem<?>, List<ActorRef<Object>>> homes = s -> {
      List<ActorRef<Object>> refs = new ArrayList<>();
      for (int i = 0; i < 100; i++) {
        refs.add(i < probes.size() ? region(s, i) : org.apache.pekko.actor.typed.ActorRefResolver.get(s)
            .resolveActorRef("pekko://Regions@10.0.0." + i + ":25520/system/shardkit-region-UpFront#" + i));
      }
      return refs;
    };
    Function<ActorSystem<?>, List<CoordinatorEvent>> placement = s -> {
      List<ActorRef<Object>> refs = homes.apply(s);
      List<CoordinatorEvent> events = new ArrayList<>();
      for (int i = 0; i < 100_000; i++) {
        events.add(new ShardHomeAllocated("shard-" + i, refs.get(i % refs.size())));
      }
      return events;
    };
    ActorSystem<Void> writer = storeSystem("UpFrontWriter", "");
    try {
      CoordinatorStateStore store = store(writer, type);
      List<CoordinatorEvent> registrations = homes.apply(writer).stream()
          .<CoordinatorEvent>map(RegionRegistered::new).toList();
      CoordinatorState registered = CoordinatorState.empty();
      for (CoordinatorEvent e : registrations) {
        registered = registered.applied(e);
      }
      await(store.store(registrations, registered));
      CoordinatorState placed = registered;
      for (CoordinatorEvent e : placement.apply(writer)) {
        placed = placed.applied(e);
      }
      long before = eventRows(pid);
      await(store.store(placement.apply(writer), placed));
      assertEquals(before + 1, eventRows(pid), "100 000 allocations are one journal row");
      long bytes = Long.parseLong(postgres.column("SELECT octet_length(event_payload) FROM event_journal "
          + "WHERE persistence_id = ? ORDER BY sequence_number DESC LIMIT 1", pid).get(0));
      // Compressed JSON, far below bytea's 1 GB: the references are written once, not per shard.
      assertTrue(bytes < 1_000_000, "the row holds " + bytes + " bytes");
      store.close();
    } finally {
      StoreTestSupport.terminate(writer);
    }
    ActorSystem<Void> reader = storeSystem("UpFrontReader", "");
    try {
      CoordinatorState loaded = await(store(reader, type).load()).state();
      CoordinatorState expected = CoordinatorState.empty();
      for (ActorRef<Object> r : homes.apply(reader)) {
        expected = expected.applied(new RegionRegistered(r));
      }
      for (CoordinatorEvent e : placement.apply(reader)) {
        expected = expected.applied(e);
      }
      assertEquals(expected, loaded);
      assertEquals(List.of("shard-0", "shard-100", "shard-200"),
          loaded.regions().get(region(reader, 0)).subList(0, 3), "a region's shards keep their allocation order");
    } finally {
      StoreTestSupport.terminate(reader);
    }
  }

  @Test
  void anInconsistentJournalFailsTheLoadNamingTheEventAndTheWayOut() throws Exception {
    String type = "Inconsistent";
    ActorSystem<Void> system = storeSystem("Inconsistent", "");
    try {
      StoredForm form = new StoredForm(system);
      ActorRef<Object> r0 = region(system, 0);
      ActorRef<Object> r1 = region(system, 1);
      writeRaw(system, type, List.of(form.toStored(new RegionRegistered(r0)), form.toStored(new RegionRegistered(r1)),
          form.toStored(new ShardHomeAllocated("1", r0)), form.toStored(new ShardHomeAllocated("1", r1))));
      CoordinatorStateStore store = store(system, type);
      String text = fullText(failureOf(store.load()));
      assertTrue(text.contains("Stored coordinator event #4"), text);
      assertTrue(text.contains("does not fit the state before it"), text);
      assertTrue(text.contains("RemoveShardingData"), text);
      // Failing again is the same answer, not a broken store.
      assertTrue(fullText(failureOf(store.load())).contains("Stored coordinator event #4"));
    } finally {
      StoreTestSupport.terminate(system);
    }
  }

  @Test
  void aStoreThatLostItsRegionsStillLoadsThem() throws Exception {
    // A region that terminated is removed with its shards; the stored state says so after a reload.
    String type = "Terminated";
    ActorSystem<Void> system = storeSystem("Terminations", "");
    try {
      CoordinatorStateStore store = store(system, type);
      ActorRef<Object> r0 = region(system, 0);
      ActorRef<Object> r1 = region(system, 1);
      CoordinatorState after = storeAll(store, CoordinatorState.empty(), new RegionRegistered(r0),
          new RegionRegistered(r1), new ShardHomeAllocated("1", r0), new ShardHomeAllocated("2", r1),
          new RegionTerminated(r0));
      store.close();
      CoordinatorState loaded = await(store(system, type).load()).state();
      assertEquals(after, loaded);
      assertEquals(new TreeSet<>(List.of("2")), new TreeSet<>(loaded.shards().keySet()));
    } finally {
      StoreTestSupport.terminate(system);
    }
  }

  @Test
  void closeStopsTheStoresActorAndItsJournal() throws Exception {
    ActorSystem<Void> system = storeSystem("Closing", "");
    try {
      CoordinatorStateStore store = store(system, "Closed");
      await(store.load());
      String journals = "/system/shardkit-coordinator-store-Closed-*/journal-*";
      assertTrue(TestCluster.resolves(system, journals), "the journal runs after a load");
      store.close();
      TestCluster.await(Duration.ofSeconds(10), () -> !TestCluster.resolves(system, "/system/shardkit-coordinator-store-Closed-*"),
          "the store's actor has stopped");
      assertTrue(!TestCluster.resolves(system, journals), "the journal has stopped with it");
    } finally {
      StoreTestSupport.terminate(system);
    }
  }

  private static void writeRaw(ActorSystem<?> system, String type, List<StoredEvent> events) throws Exception {
    PersistenceStoreSettings settings = PersistenceStoreSettings.fromConfig(system.settings().config());
    await(SchemaCreation.get(system).ensure(settings.journalPluginId()));
    ActorRef<RawJournalWriter.Write> writer = system.systemActorOf(
        new RawJournalWriter(ShardingPersistenceIds.coordinator(type), settings), "raw-writer-" + type, Props.empty());
    await(AskPattern.<RawJournalWriter.Write, Done>ask(writer, replyTo -> new RawJournalWriter.Write(events, replyTo),
        Duration.ofSeconds(30), system.scheduler()));
  }

  private static List<Long> snapshotSequenceNrs(String pid) {
    return postgres.snapshotSequenceNrs(pid);
  }

  private static long lowestEventSequenceNr(String pid) {
    return postgres.lowestEventSequenceNr(pid);
  }

  private static long eventRows(String pid) {
    return postgres.eventRows(pid);
  }
}
