package dev.shardkit.sharding.persistence.internal;

import static dev.shardkit.sharding.testsupport.persistence.StoreTestSupport.await;
import static dev.shardkit.sharding.testsupport.persistence.StoreTestSupport.failureOf;
import static dev.shardkit.sharding.testsupport.persistence.StoreTestSupport.fullText;
import static dev.shardkit.sharding.testsupport.persistence.StoreTestSupport.storeAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.ShardingSettings;
import dev.shardkit.sharding.persistence.PersistenceCoordinatorStateStoreProvider;
import dev.shardkit.sharding.persistence.PersistenceRememberEntitiesStoreProvider;
import dev.shardkit.sharding.persistence.ShardingPersistenceIds;
import dev.shardkit.sharding.testsupport.persistence.EmbeddedPostgresServer;
import dev.shardkit.sharding.testsupport.persistence.StoreTestSupport;
import dev.shardkit.sharding.spi.CoordinatorEvent.RegionRegistered;
import dev.shardkit.sharding.spi.CoordinatorEvent.ShardHomeAllocated;
import dev.shardkit.sharding.spi.CoordinatorState;
import dev.shardkit.sharding.spi.CoordinatorStateStore;
import dev.shardkit.sharding.spi.RememberEntitiesStore;
import dev.shardkit.sharding.testsupport.LogCapture;
import dev.shardkit.sharding.testkit.TestCluster;
import java.util.List;
import java.time.Duration;
import java.util.Set;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * While PostgreSQL is stopped, loads and stores of both stores fail with the cause (they do not
 * hang, and nothing crashes); once it is back, the same store instance succeeds again, and what it
 * stored is there once.
 */
class PostgresOutageTest {
  private EmbeddedPostgresServer postgres;

  @BeforeEach
  void start() {
    postgres = EmbeddedPostgresServer.start();
  }

  @AfterEach
  void stop() {
    postgres.close();
  }

  private CoordinatorStateStore store(ActorSystem<?> system, String typeName) {
    return new PersistenceCoordinatorStateStoreProvider().create(system, typeName, ShardingSettings.create(system));
  }

  @Test
  void storesFailWhileTheDatabaseIsDownAndSucceedOnceItIsBack() throws Exception {
    ActorSystem<Void> system = StoreTestSupport.system("Outage", postgres.storeConfig());
    try (LogCapture logs = new LogCapture()) {
      ActorRef<Object> region = system.systemActorOf(Behaviors.empty(), "region", Props.empty());
      CoordinatorStateStore store = store(system, "Outage");
      CoordinatorState state = storeAll(store, await(store.load()).state(), new RegionRegistered(region),
          new ShardHomeAllocated("1", region));

      postgres.stop();
      ShardHomeAllocated next = new ShardHomeAllocated("2", region);
      CoordinatorState after = state.applied(next);
      Throwable failure = failureOf(store.store(List.of(next), after));
      assertInstanceOf(PersistenceStoreException.class, failure);
      assertTrue(failure.getMessage().startsWith("Entity type [Outage]: could not store " + next), fullText(failure));
      logs.await(Duration.ofSeconds(10), "Coordinator state store of entity type [Outage]", "the journal failed",
          "the coordinator retries with backoff");
      // Each further attempt starts a journal that must recover from the database first: it fails too.
      assertInstanceOf(PersistenceStoreException.class, failureOf(store.store(List.of(next), after)));
      assertInstanceOf(PersistenceStoreException.class, failureOf(store.load()));

      postgres.restart();
      StoreTestSupport.storeEventually(store, next, after, Duration.ofSeconds(60));
      assertEquals(after, await(store.load()).state());
    } finally {
      StoreTestSupport.terminate(system);
    }

    ActorSystem<Void> fresh = StoreTestSupport.system("AfterOutage", postgres.storeConfig());
    try {
      CoordinatorState loaded = await(store(fresh, "Outage").load()).state();
      assertEquals(2, loaded.shards().size());
      // Beside the take-overs of the loads (one of which may have landed after its request timed out).
      assertEquals(3, postgres.column("SELECT convert_from(event_payload, 'UTF8') FROM event_journal WHERE "
          + "persistence_id = ?", ShardingPersistenceIds.coordinator("Outage")).stream()
          .filter(json -> !json.contains("TAKEN_OVER")).count(), "every event is stored once");
    } finally {
      StoreTestSupport.terminate(fresh);
    }
  }

  @Test
  void rememberedEntitiesFailWhileTheDatabaseIsDownAndAreStoredOnceItIsBack() throws Exception {
    String pid = ShardingPersistenceIds.entities("OutageEntities", "4");
    ActorSystem<Void> system = StoreTestSupport.system("EntitiesOutage", postgres.storeConfig());
    try (LogCapture logs = new LogCapture()) {
      RememberEntitiesStore store = entitiesStore(system);
      assertEquals(Set.of(), await(store.load()));
      await(store.update(Set.of("a", "b"), Set.of()));

      postgres.stop();
      Throwable failure = failureOf(store.update(Set.of("c"), Set.of("a")));
      assertInstanceOf(PersistenceStoreException.class, failure);
      assertTrue(failure.getMessage().startsWith("Entity type [OutageEntities], shard [4]: could not store the update "
          + "of 1 started and 1 stopped entities"), fullText(failure));
      logs.await(Duration.ofSeconds(10), "Remember-entities store of entity type [OutageEntities], shard [4]",
          "the journal failed", "the shard retries with backoff");
      // Each further attempt starts a journal that must recover from the database first: it fails too.
      assertInstanceOf(PersistenceStoreException.class, failureOf(store.update(Set.of("c"), Set.of("a"))));
      assertInstanceOf(PersistenceStoreException.class, failureOf(store.load()));
      // A shard that has not written loads together with others (EntitiesLoadBatch), not through a
      // journal: its load fails too, naming the shard and the database's error.
      RememberEntitiesStore other = entitiesStore(system, "5");
      Throwable loadFailure = failureOf(other.load());
      assertInstanceOf(PersistenceStoreException.class, loadFailure);
      assertTrue(loadFailure.getMessage().startsWith("Entity type [OutageEntities], shard [5]: could not load the "
          + "remembered entities: "), fullText(loadFailure));
      logs.await(Duration.ofSeconds(10), "Remember-entities store of entity type [OutageEntities], shard [5]",
          "could not load the remembered entities", "the shard retries with backoff");

      postgres.restart();
      // The shard retries with the same batch until it is written.
      StoreTestSupport.eventually(() -> store.update(Set.of("c"), Set.of("a")), "the update", Duration.ofSeconds(60));
      assertEquals(Set.of("b", "c"), await(store.load()));
      assertEquals(Set.of(), StoreTestSupport.eventually(other::load, "the other shard's load", Duration.ofSeconds(30)));
    } finally {
      StoreTestSupport.terminate(system);
    }

    ActorSystem<Void> fresh = StoreTestSupport.system("AfterEntitiesOutage", postgres.storeConfig());
    try {
      assertEquals(Set.of("b", "c"), await(entitiesStore(fresh).load()));
      assertEquals(2, postgres.eventRows(pid), "each update is stored once");
    } finally {
      StoreTestSupport.terminate(fresh);
    }
  }

  private static RememberEntitiesStore entitiesStore(ActorSystem<?> system) {
    return entitiesStore(system, "4");
  }

  private static RememberEntitiesStore entitiesStore(ActorSystem<?> system, String shardId) {
    return new PersistenceRememberEntitiesStoreProvider().create(system, "OutageEntities", shardId,
        ShardingSettings.create(system));
  }

  @Test
  void aStoreStartedWhileTheDatabaseIsDownLoadsOnceItIsBack() throws Exception {
    postgres.stop();
    ActorSystem<Void> system = StoreTestSupport.system("StartedInOutage", postgres.storeConfig());
    try (LogCapture logs = new LogCapture()) {
      CoordinatorStateStore store = store(system, "Early");
      Throwable failure = failureOf(store.load());
      assertTrue(fullText(failure).contains("could not create the journal tables"), fullText(failure));
      logs.await(Duration.ofSeconds(10), "could not create the journal tables", "the coordinator retries");

      postgres.restart();
      TestCluster.await(Duration.ofSeconds(60), () -> {
        try {
          return await(store.load()).state().equals(CoordinatorState.empty());
        } catch (Exception e) {
          return false;
        }
      }, "the store loads once the database is back");
      ActorRef<Object> region = system.systemActorOf(Behaviors.empty(), "region", Props.empty());
      storeAll(store, CoordinatorState.empty(), new RegionRegistered(region));
    } finally {
      StoreTestSupport.terminate(system);
    }
  }
}
