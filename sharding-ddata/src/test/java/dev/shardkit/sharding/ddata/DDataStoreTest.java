package dev.shardkit.sharding.ddata;

import static dev.shardkit.sharding.ddata.Replicas.canonical;
import static dev.shardkit.sharding.ddata.Replicas.failure;
import static dev.shardkit.sharding.ddata.Replicas.fakeRegion;
import static dev.shardkit.sharding.ddata.Replicas.get;
import static dev.shardkit.sharding.ddata.Replicas.members;
import static dev.shardkit.sharding.ddata.Replicas.storeAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.ShardingSettings;
import dev.shardkit.sharding.ddata.Replicas.Canonical;
import dev.shardkit.sharding.ddata.internal.CoordinatorStateKey;
import dev.shardkit.sharding.ddata.internal.CoordinatorStateRecord;
import dev.shardkit.sharding.ddata.internal.CoordinatorStateRecord.Version;
import dev.shardkit.sharding.ddata.internal.Replicators;
import dev.shardkit.sharding.spi.CoordinatorEvent.ProxyRegistered;
import dev.shardkit.sharding.spi.CoordinatorEvent.RegionRegistered;
import dev.shardkit.sharding.spi.CoordinatorEvent.ShardHomeAllocated;
import dev.shardkit.sharding.spi.CoordinatorEvent.ShardHomeDeallocated;
import dev.shardkit.sharding.spi.CoordinatorState;
import dev.shardkit.sharding.spi.CoordinatorStateStore;
import dev.shardkit.sharding.spi.CoordinatorStateSupersededException;
import dev.shardkit.sharding.spi.LoadedCoordinatorState;
import dev.shardkit.sharding.testsupport.LogCapture;
import dev.shardkit.sharding.testsupport.Network;
import dev.shardkit.sharding.testkit.TestCluster;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeoutException;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.cluster.Cluster;
import org.apache.pekko.cluster.Member;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.ddata.Replicator;
import org.apache.pekko.pattern.Patterns;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The ddata store between real nodes: three nodes with role {@code backend} host the (imaginary)
 * entity type and run its replicator; a fourth, {@code client}, has neither and must not count.
 * No downing provider runs, so unreachable nodes stay members.
 */
class DDataStoreTest {
  static final String CONFIG = """
      shardkit.sharding.state-store-mode = ddata
      shardkit.sharding.ddata { write-timeout = 2s, read-timeout = 2s, read-retries = 1 }
      pekko.cluster.downing-provider-class = ""
      """ + Network.TEST_MODE;
  static final DDataCoordinatorStateStoreProvider PROVIDER = new DDataCoordinatorStateStoreProvider();
  static TestCluster cluster;

  @BeforeAll
  static void start() {
    cluster = new TestCluster("DDataStore");
    for (int i = 0; i < 3; i++) {
      cluster.add(CONFIG, "backend");
      cluster.awaitUp(i + 1);
    }
    cluster.add(CONFIG, "client");
    cluster.awaitUp(4);
    for (int i = 0; i < 3; i++) {
      ActorSystem<Void> s = cluster.system(i);
      PROVIDER.startOnNode(s, "any", settings(s));
    }
  }

  @AfterAll
  static void stop() {
    cluster.close();
  }

  static ShardingSettings settings(ActorSystem<?> system) {
    return ShardingSettings.create(system).withRole("backend");
  }

  static CoordinatorStateStore store(int node, String typeName) {
    ActorSystem<Void> s = cluster.system(node);
    return PROVIDER.create(s, typeName, settings(s));
  }

  @Test
  void aStateStoredOnOneNodeIsWhatASuccessorOnAnotherNodeLoads() throws Exception {
    CoordinatorStateStore first = store(0, "Cross");
    assertSame(CoordinatorState.empty(), get(first.load()).state());
    ActorRef<Object> r0 = fakeRegion(cluster, 0, "cross-region-0", 0);
    ActorRef<Object> r1 = fakeRegion(cluster, 1, "cross-region-1", 0);
    ActorRef<Object> p3 = fakeRegion(cluster, 3, "cross-proxy-3", 0);
    CoordinatorState stored = storeAll(first, CoordinatorState.empty(),
        new RegionRegistered(r0), new RegionRegistered(r1), new ProxyRegistered(p3),
        new ShardHomeAllocated("1", r0), new ShardHomeAllocated("2", r1), new ShardHomeAllocated("3", r0),
        new ShardHomeDeallocated("1"), new ShardHomeAllocated("1", r1));
    first.close();

    CoordinatorState loaded = get(store(1, "Cross").load()).state();
    // Compared as full addresses, in order: the successor's node resolves the refs itself.
    Canonical expected = canonical(cluster, stored, 0);
    Canonical actual = canonical(cluster, loaded, 1);
    assertEquals(expected, actual);
    // Registration order of regions and allocation order of shards survive.
    assertEquals(List.copyOf(expected.regions().keySet()), List.copyOf(actual.regions().keySet()));
    assertEquals(List.of("2", "1"), List.copyOf(actual.regions().values()).get(1));
    assertEquals(3, loaded.shards().size());
    // A region on the successor's own node comes back as its local actor.
    ActorRef<Object> localR1 = loaded.homeOf("1").orElseThrow();
    assertEquals("cross-region-1", localR1.path().name());
    assertFalse(localR1.path().address().hasGlobalScope());

    // The closed store of the coordinator that stopped writes nothing more.
    Throwable closed = failure(first.store(List.of(new ShardHomeAllocated("4", r0)),
        stored.applied(new ShardHomeAllocated("4", r0))));
    assertInstanceOf(IllegalStateException.class, closed);
    assertTrue(closed.getMessage().contains("closed"), closed.getMessage());
  }

  @Test
  void theSingleRecordOfTheVersionBeforeTheSplitIsTakenOverIntoParts() throws Exception {
    ActorRef<Object> r0 = fakeRegion(cluster, 0, "legacy-region-0", 0);
    CoordinatorState old = CoordinatorState.empty().applied(new RegionRegistered(r0))
        .applied(new ShardHomeAllocated("5", r0)).applied(new ShardHomeAllocated("2", r0));
    // What the previous build's coordinator left: one record under the type's old key, everywhere.
    CoordinatorStateRecord record = new CoordinatorStateRecord(new Version(4, 2, "old-writer"),
        new Version(4, 1, "old-writer"), old);
    Object written = get(Patterns.ask(Replicators.get(cluster.system(0)).replicatorFor(Optional.of("backend")),
        new Replicator.Update<>(CoordinatorStateKey.of("Legacy"), record,
            new Replicator.WriteAll(java.time.Duration.ofSeconds(5)), existing -> record), Duration.ofSeconds(10)));
    assertInstanceOf(Replicator.UpdateSuccess.class, written);

    try (LogCapture logs = new LogCapture()) {
      LoadedCoordinatorState migrated = get(store(1, "Legacy").load());
      assertEquals(canonical(cluster, old, 0), canonical(cluster, migrated.state(), 1));
      assertEquals(5, migrated.term(), "a term above the record's");
      logs.await(Duration.ofSeconds(10), "Entity type [Legacy]: coordinator state loaded",
          "the single record of the build before the split");
    }
    // From now on the head is what loads: the next coordinator takes over from the parts.
    CoordinatorStateStore next = store(2, "Legacy");
    LoadedCoordinatorState again = get(next.load());
    assertEquals(6, again.term());
    assertEquals(canonical(cluster, old, 0), canonical(cluster, again.state(), 2));
    CoordinatorState more = storeAll(next, again.state(), new ShardHomeDeallocated("5"));
    assertEquals(List.of("2"), get(store(0, "Legacy").load()).state().regions().values().iterator().next());
    assertEquals(List.of("2"), List.copyOf(more.shards().keySet()));
  }

  @Test
  void withNothingStoredALoadIsEmpty() throws Exception {
    try (LogCapture logs = new LogCapture()) {
      assertSame(CoordinatorState.empty(), get(store(2, "Fresh").load()).state());
      logs.await(Duration.ofSeconds(10), "Entity type [Fresh]: no coordinator state stored yet",
          cluster.address(2).toString());
    }
  }

  @Test
  void aStoreRefusesToStoreBeforeItLoaded() {
    CoordinatorStateStore store = store(1, "Unloaded");
    Throwable e = failure(store.store(List.of(new RegionRegistered(fakeRegion(cluster, 1, "unloaded-region", 1))),
        CoordinatorState.empty()));
    assertInstanceOf(IllegalStateException.class, e);
    assertTrue(e.getMessage().contains("before a load completed"), e.getMessage());
  }

  @Test
  void aCoordinatorThatWasTakenOverCannotOverwriteItsSuccessor() throws Exception {
    ActorRef<Object> region = fakeRegion(cluster, 0, "taken-region-0", 0);
    CoordinatorStateStore old = store(0, "Taken");
    long oldTerm = get(old.load()).term();
    CoordinatorState first = storeAll(old, CoordinatorState.empty(), new RegionRegistered(region));

    // A second coordinator takes over while the first still runs (as in an unresolved partition).
    CoordinatorStateStore successor = store(1, "Taken");
    LoadedCoordinatorState takenOver = get(successor.load());
    assertTrue(takenOver.term() > oldTerm, "the successor's term " + takenOver.term() + " is above " + oldTerm);
    CoordinatorState loaded = takenOver.state();
    assertEquals(canonical(cluster, first, 0), canonical(cluster, loaded, 1));
    ActorRef<Object> regionSeenFrom1 = loaded.regions().keySet().iterator().next();
    CoordinatorState second = storeAll(successor, loaded, new ShardHomeAllocated("9", regionSeenFrom1));

    Throwable refused = failure(old.store(List.of(new ShardHomeAllocated("8", region)),
        first.applied(new ShardHomeAllocated("8", region))));
    assertInstanceOf(CoordinatorStateSupersededException.class, refused);
    assertTrue(refused.getMessage().contains("taken over by another coordinator"), refused.getMessage());

    assertEquals(canonical(cluster, second, 1), canonical(cluster, get(store(2, "Taken").load()).state(), 2));
  }

  @Test
  void aWriteFailsWhileAMajorityIsUnreachableAndSucceedsOnceItIsBack() throws Exception {
    ActorRef<Object> region = fakeRegion(cluster, 0, "cut-region-0", 0);
    CoordinatorStateStore store = store(0, "Cut");
    get(store.load());
    CoordinatorState first = storeAll(store, CoordinatorState.empty(), new RegionRegistered(region));
    ShardHomeAllocated event = new ShardHomeAllocated("5", region);
    CoordinatorState second = first.applied(event);

    Cluster node0 = Cluster.get(Adapter.toClassic(cluster.system(0)));
    try {
      Network.cut(cluster.system(0), cluster.address(1));
      Network.cut(cluster.system(0), cluster.address(2));
      TestCluster.await(Duration.ofSeconds(30), () -> node0.state().getUnreachable().size() == 2,
          "node 0 sees nodes 1 and 2 unreachable");

      Throwable e = failure(store.store(List.of(event), second));
      assertInstanceOf(TimeoutException.class, e);
      assertTrue(e.getMessage().contains("was not confirmed by a majority of the replicas"), e.getMessage());
      assertTrue(e.getMessage().contains("needs 3 of the 3 replica node(s) with role [backend]"), e.getMessage());
      // Unreachable, not downed: still members.
      for (Member m : node0.state().getMembers()) {
        assertFalse(m.status() == MemberStatus.down() || m.status() == MemberStatus.removed(), m.toString());
      }
      assertEquals(4, members(cluster, 0));
    } finally {
      Network.restore(cluster.system(0), cluster.address(1));
      Network.restore(cluster.system(0), cluster.address(2));
    }
    for (ActorSystem<Void> s : cluster.systems()) {
      TestCluster.await(Duration.ofSeconds(30),
          () -> Cluster.get(Adapter.toClassic(s)).state().getUnreachable().isEmpty(),
          "every node sees every other reachable again");
    }

    // The coordinator's retry: the same event and state again.
    get(store.store(List.of(event), second));
    assertEquals(canonical(cluster, second, 0), canonical(cluster, get(store(1, "Cut").load()).state(), 1));
  }

  @Test
  void replicatorsRunPerRoleOnlyWhereTheRoleIs() throws Exception {
    for (int i = 0; i < 3; i++) {
      // startOnNode started it; asking again returns the same actor.
      ActorSystem<Void> s = cluster.system(i);
      assertEquals("/system/shardkit-replicator-backend",
          Replicators.get(s).replicatorFor(Optional.of("backend")).path().toStringWithoutAddress());
    }
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> PROVIDER.startOnNode(cluster.system(3), "any", settings(cluster.system(3))));
    assertTrue(e.getMessage().contains("role [backend]"), e.getMessage());
    assertEquals("shardkit-replicator", Replicators.actorName(Optional.empty()));
    assertEquals("shardkit-replicator-a+b%2Fc", Replicators.actorName(Optional.of("a b/c")));
  }
}
