package dev.shardkit.sharding.persistence;

import static dev.shardkit.sharding.testsupport.persistence.StoreTestSupport.await;
import static dev.shardkit.sharding.testsupport.persistence.StoreTestSupport.failureOf;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.ShardingSettings;
import dev.shardkit.sharding.testsupport.persistence.EmbeddedPostgresServer;
import dev.shardkit.sharding.testsupport.persistence.StoreTestSupport;
import dev.shardkit.sharding.spi.CoordinatorEvent.RegionRegistered;
import dev.shardkit.sharding.spi.CoordinatorState;
import dev.shardkit.sharding.spi.RememberEntitiesStore;
import java.time.Duration;
import java.util.Set;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The shards with remembered entities, as a starting coordinator reads them from a real
 * PostgreSQL: from the persistence ids in the journal, decoded back to the shard ids, of the
 * type only; on a new database (no tables yet) none; while the database is away a failure that
 * says so, and the answer again once it is back.
 */
class PostgresRememberedShardsTest {
  static final PersistenceRememberEntitiesStoreProvider PROVIDER = new PersistenceRememberEntitiesStoreProvider();
  /** A short timeout, so that the outage fails fast. */
  static final String CONFIG = "shardkit.sharding.persistence.store-timeout = 2s\n";
  static EmbeddedPostgresServer postgres;
  static ActorSystem<Void> system;

  @BeforeAll
  static void start() {
    postgres = EmbeddedPostgresServer.start();
    system = StoreTestSupport.system("RememberedShards", CONFIG + postgres.storeConfig());
  }

  @AfterAll
  static void stop() {
    if (system != null) {
      StoreTestSupport.terminate(system);
    }
    if (postgres != null) {
      postgres.close();
    }
  }

  static Set<String> rememberedShards(String typeName) throws Exception {
    return await(PROVIDER.rememberedShards(system, typeName, ShardingSettings.create(system)));
  }

  static void remember(String typeName, String shardId, Set<String> started, Set<String> stopped) throws Exception {
    RememberEntitiesStore store = PROVIDER.create(system, typeName, shardId, ShardingSettings.create(system));
    try {
      await(store.update(started, stopped));
    } finally {
      store.close();
    }
  }

  @Test
  void theShardsOfTheTypeThatRememberedEntitiesAreFoundInTheJournal() throws Exception {
    // First, on the new database: the tables are created, and nothing is there.
    assertEquals(Set.of(), rememberedShards("Alpha"));

    // Shard ids as they are, with the type's separator and spaces.
    for (String shard : Set.of("1", "b|1", "x y/z")) {
      remember("Alpha", shard, Set.of("e-" + shard), Set.of());
    }
    // Not Alpha's: a type whose name starts with Alpha-, another type, and Alpha's coordinator.
    remember("Alpha-b", "1", Set.of("e"), Set.of());
    remember("Beta", "7", Set.of("e"), Set.of());
    ActorRef<Object> region = system.systemActorOf(Behaviors.empty(), "region", Props.empty());
    var coordinator = new PersistenceCoordinatorStateStoreProvider().create(system, "Alpha",
        ShardingSettings.create(system));
    StoreTestSupport.storeAll(coordinator, CoordinatorState.empty(), new RegionRegistered(region));
    coordinator.close();

    assertEquals(Set.of("1", "b|1", "x y/z"), rememberedShards("Alpha"));
    assertEquals(Set.of("1"), rememberedShards("Alpha-b"));
    assertEquals(Set.of("7"), rememberedShards("Beta"));
    assertEquals(Set.of(), rememberedShards("Gamma"));

    // A shard whose entities were all passivated keeps its persistence id: still listed (a
    // superset is fine; it starts empty).
    remember("Alpha", "1", Set.of(), Set.of("e-1"));
    assertEquals(Set.of("1", "b|1", "x y/z"), rememberedShards("Alpha"));
  }

  @Test
  void whileTheDatabaseIsAwayTheReadFailsSayingWhyAndSucceedsOnceItIsBack() throws Exception {
    remember("Outage", "3", Set.of("e"), Set.of());
    postgres.stop();
    try {
      long started = System.nanoTime();
      Throwable failure = failureOf(PROVIDER.rememberedShards(system, "Outage", ShardingSettings.create(system)));
      long tookMillis = Duration.ofNanos(System.nanoTime() - started).toMillis();
      assertTrue(tookMillis < 15_000, "failed after " + tookMillis + " ms");
      assertInstanceOf(IllegalStateException.class, failure, StoreTestSupport.fullText(failure));
      assertTrue(failure.getMessage().startsWith("Entity type [Outage]: could not list the shards with remembered "
          + "entities through read journal [shardkit.sharding.persistence.jdbc-read-journal]: "), failure.getMessage());
      assertTrue(failure.getCause() != null, "the database's error is the cause");
    } finally {
      postgres.restart();
    }
    StoreTestSupport.eventually(() -> PROVIDER.rememberedShards(system, "Outage", ShardingSettings.create(system)),
        "reading the remembered shards after the outage", Duration.ofSeconds(30));
    assertEquals(Set.of("3"), rememberedShards("Outage"));
  }

  @Test
  void aReadJournalOfAnotherJournalIsRefusedAtStartAndWhenReading() {
    ActorSystem<Void> misconfigured = StoreTestSupport.system("OtherReadJournal", CONFIG + postgres.storeConfig()
        + "shardkit.sharding.persistence.journal-plugin-id = \"jdbc-journal\"\n");
    try {
      ShardingSettings settings = ShardingSettings.create(misconfigured);
      IllegalArgumentException atStart = assertThrows(IllegalArgumentException.class,
          () -> PROVIDER.startOnNode(misconfigured, "Alpha", settings));
      assertTrue(atStart.getMessage().contains("shardkit.sharding.persistence.read-journal-plugin-id"),
          atStart.getMessage());
      Throwable reading = failureOf(PROVIDER.rememberedShards(misconfigured, "Alpha", settings));
      assertInstanceOf(IllegalArgumentException.class, reading);
      assertEquals(atStart.getMessage(), reading.getMessage());
    } catch (Exception e) {
      throw new AssertionError(e);
    } finally {
      StoreTestSupport.terminate(misconfigured);
    }
  }
}
