package dev.shardkit.sharding.ddata;

import static dev.shardkit.sharding.ddata.Replicas.failure;
import static dev.shardkit.sharding.ddata.Replicas.get;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.ShardingSettings;
import dev.shardkit.sharding.ddata.internal.DDataRememberEntitiesStore;
import dev.shardkit.sharding.ddata.internal.RememberedShardsKey;
import dev.shardkit.sharding.ddata.internal.Replicators;
import dev.shardkit.sharding.ddata.internal.ShardEntitiesKeys;
import dev.shardkit.sharding.spi.RememberEntitiesStore;
import dev.shardkit.sharding.testsupport.Network;
import dev.shardkit.sharding.testkit.TestCluster;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.pekko.actor.AbstractActor;
import org.apache.pekko.actor.ActorRef;
import org.apache.pekko.actor.ExtendedActorSystem;
import org.apache.pekko.actor.Props;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.cluster.Cluster;
import org.apache.pekko.cluster.ddata.Replicator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ddata remember-entities store between real nodes: three nodes with role {@code backend}
 * host the (imaginary) entity types and run the remembered-entities replicator, each with its own
 * LMDB directory; a fourth, {@code client}, has neither and must not count. No downing provider
 * runs, so unreachable nodes stay members.
 */
class DDataRememberEntitiesStoreTest {
  static final String CONFIG = """
      shardkit.sharding.state-store-mode = ddata
      shardkit.sharding.remember-entities = on
      shardkit.sharding.ddata { write-timeout = 2s, read-timeout = 2s, read-retries = 1 }
      pekko.cluster.downing-provider-class = ""
      """ + Network.TEST_MODE;
  static final DDataRememberEntitiesStoreProvider PROVIDER = new DDataRememberEntitiesStoreProvider();
  static final Optional<String> BACKEND = Optional.of("backend");

  @TempDir
  static Path disks;
  static TestCluster cluster;

  @BeforeAll
  static void start() {
    cluster = new TestCluster("DDataRemember");
    for (int i = 0; i < 3; i++) {
      cluster.add(CONFIG + lmdbDir(disk(i)), "backend");
      cluster.awaitUp(i + 1);
    }
    cluster.add(CONFIG + lmdbDir(disks.resolve("client")), "client");
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

  static Path disk(int node) {
    return disks.resolve("node-" + node);
  }

  static String lmdbDir(Path dir) {
    return "shardkit.sharding.ddata.remember-entities.lmdb.dir = \"" + dir + "\"\n";
  }

  static ShardingSettings settings(ActorSystem<?> system) {
    return ShardingSettings.create(system).withRole("backend");
  }

  static RememberEntitiesStore store(int node, String typeName, String shardId) {
    ActorSystem<Void> s = cluster.system(node);
    return PROVIDER.create(s, typeName, shardId, settings(s));
  }

  static Set<String> ids(String prefix, int n) {
    return IntStream.range(0, n).mapToObj(i -> prefix + i).collect(Collectors.toSet());
  }

  static Set<String> minus(Set<String> a, Set<String> b) {
    Set<String> result = new HashSet<>(a);
    result.removeAll(b);
    return result;
  }

  static Set<String> plus(Set<String> a, Set<String> b) {
    Set<String> result = new HashSet<>(a);
    result.addAll(b);
    return result;
  }

  @Test
  void whatOneNodeRemembersIsWhatAShardOnAnotherNodeLoads() throws Exception {
    RememberEntitiesStore first = store(0, "Cart", "1");
    assertEquals(Set.of(), get(first.load()));
    Set<String> started = ids("cart-", 30);
    get(first.update(started, Set.of()));
    get(first.update(Set.of("cart-x"), Set.of("cart-3", "cart-7", "never-started")));
    Set<String> expected = plus(minus(started, Set.of("cart-3", "cart-7")), Set.of("cart-x"));
    first.close();

    // A majority read on any replica finds the majority writes.
    assertEquals(expected, get(store(1, "Cart", "1").load()));
    assertEquals(expected, get(store(2, "Cart", "1").load()));
    // Another shard of the type, and the same shard id of another type, are apart.
    assertEquals(Set.of(), get(store(1, "Cart", "2").load()));
    assertEquals(Set.of(), get(store(1, "Order", "1").load()));

    // The shard moves to node 1 and carries on from what it loaded.
    RememberEntitiesStore successor = store(1, "Cart", "1");
    assertEquals(expected, get(successor.load()));
    get(successor.update(Set.of("cart-3"), Set.of("cart-x", "cart-0")));
    assertEquals(plus(minus(expected, Set.of("cart-x", "cart-0")), Set.of("cart-3")), get(store(2, "Cart", "1").load()));

    // The closed store of the shard that stopped reads and writes nothing more.
    for (Throwable closed : List.of(failure(first.load()), failure(first.update(Set.of("late"), Set.of())))) {
      assertInstanceOf(IllegalStateException.class, closed);
      assertTrue(closed.getMessage().contains("Entity type [Cart], shard [1]: the remember-entities store was closed"),
          closed.getMessage());
    }
    assertTrue(!get(store(2, "Cart", "1").load()).contains("late"));
  }

  /** A {@link CountingForwarder} to the node's remembered-entities replicator, as /system/counting. */
  static ActorRef countingForwarder(ActorSystem<?> node, List<String> updatedKeys) {
    ActorRef replicator = Replicators.get(node).entitiesReplicatorFor(BACKEND);
    return ((ExtendedActorSystem) Adapter.toClassic(node)).systemActorOf(
        Props.create(CountingForwarder.class, () -> new CountingForwarder(replicator, updatedKeys)), "counting");
  }

  /** Forwards everything to the replicator, noting the key of every update on the way. */
  static final class CountingForwarder extends AbstractActor {
    private final ActorRef replicator;
    private final List<String> updatedKeys;

    CountingForwarder(ActorRef replicator, List<String> updatedKeys) {
      this.replicator = replicator;
      this.updatedKeys = updatedKeys;
    }

    @Override
    public Receive createReceive() {
      return receiveBuilder().matchAny(message -> {
        if (message instanceof Replicator.Update<?> update) {
          updatedKeys.add(update.key().id());
        }
        replicator.forward(message, getContext());
      }).build();
    }
  }

  @Test
  void eachUpdateIsOneWritePerKeyItTouches() throws Exception {
    ActorSystem<Void> node0 = cluster.system(0);
    Replicators replicators = Replicators.get(node0);
    List<String> updatedKeys = new CopyOnWriteArrayList<>();
    ActorRef counting = countingForwarder(node0, updatedKeys);
    // A store finds the other replicas' replicators under its own replicator's path: the stand-in
    // runs on every replica, as the replicator does.
    for (int i = 1; i < 3; i++) {
      countingForwarder(cluster.system(i), new CopyOnWriteArrayList<>());
    }
    RememberEntitiesStore store = new DDataRememberEntitiesStore(node0, "Batch", "1", BACKEND, replicators.settings(),
        counting, replicators.lmdbDirectory(BACKEND));
    ShardEntitiesKeys keys = ShardEntitiesKeys.of("Batch", "1");
    Set<String> allKeys = keys.all().stream().map(k -> k.id()).collect(Collectors.toSet());

    // 40 started and 10 stopped entities spread over all five keys: five writes, one per key,
    // after the first started entities' listing of the shard.
    Set<String> started = ids("s", 40);
    get(store.update(started, ids("never-", 10)));
    assertEquals(6, updatedKeys.size(), updatedKeys.toString());
    assertEquals(RememberedShardsKey.of("Batch").id(), updatedKeys.get(0), "the shard is listed first");
    assertEquals(allKeys, Set.copyOf(updatedKeys.subList(1, 6)));

    // Many entities of one key: one write (the shard was listed once, by this store, for good).
    updatedKeys.clear();
    String key = keys.keyOf("t1").id();
    Set<String> sameKey = ids("t", 100).stream().filter(id -> keys.keyOf(id).id().equals(key))
        .collect(Collectors.toSet());
    assertTrue(sameKey.size() > 10, sameKey.toString());
    String stoppedId = started.stream().filter(id -> keys.keyOf(id).id().equals(key)).findFirst().orElseThrow();
    get(store.update(sameKey, Set.of(stoppedId)));
    assertEquals(List.of(key), updatedKeys);

    // Nothing to write: no write.
    updatedKeys.clear();
    get(store.update(Set.of(), Set.of()));
    assertEquals(List.of(), updatedKeys);

    assertEquals(plus(minus(started, Set.of(stoppedId)), sameKey), get(store(1, "Batch", "1").load()));

    // An id both started and stopped is the caller's mistake.
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> store.update(Set.of("a", "b"), Set.of("b")));
    assertTrue(e.getMessage().contains("[b] both started and stopped"), e.getMessage());
  }

  @Test
  void shardsThatStartTogetherAreListedInOneWriteWhileTheFirstListingIsInFlight() throws Exception {
    ActorSystem<Void> node0 = cluster.system(0);
    Replicators replicators = Replicators.get(node0);
    List<String> updatedKeys = new CopyOnWriteArrayList<>();
    ActorRef gated = gatedForwarder(node0, updatedKeys, false);
    for (int i = 1; i < 3; i++) {
      gatedForwarder(cluster.system(i), new CopyOnWriteArrayList<>(), true);
    }
    String list = RememberedShardsKey.of("Together").id();
    // The stores are made first: the first listing's write timeout runs while it is held, so only
    // the nine updates that must come meanwhile happen between holding and releasing it.
    List<RememberEntitiesStore> stores = new ArrayList<>();
    for (int shard = 0; shard < 10; shard++) {
      stores.add(new DDataRememberEntitiesStore(node0, "Together", "s" + shard, BACKEND,
          replicators.settings(), gated, replicators.lmdbDirectory(BACKEND)));
    }
    List<CompletableFuture<Void>> updates = new ArrayList<>();
    for (int shard = 0; shard < 10; shard++) {
      updates.add(stores.get(shard).update(Set.of("e" + shard), Set.of()).toCompletableFuture());
    }
    // The first shard's listing is held at the replicator: no shard may write entities before its listing.
    assertTrue(updates.stream().noneMatch(CompletableFuture::isDone), "an update completed before its listing");
    gated.tell(RELEASE, ActorRef.noSender());
    for (CompletableFuture<Void> update : updates) {
      get(update);
    }
    // The nine that asked while the first listing was in flight went into one write.
    assertEquals(2, updatedKeys.stream().filter(list::equals).count(), updatedKeys.toString());
    Set<String> shards = IntStream.range(0, 10).mapToObj(i -> "s" + i).collect(Collectors.toSet());
    assertEquals(shards, rememberedShards(1, "Together"));
    // A shard whose entities were found needs no listing write again.
    updatedKeys.clear();
    RememberEntitiesStore successor = new DDataRememberEntitiesStore(node0, "Together", "s3", BACKEND,
        replicators.settings(), gated, replicators.lmdbDirectory(BACKEND));
    assertEquals(Set.of("e3"), get(successor.load()));
    get(successor.update(Set.of("f3"), Set.of()));
    assertEquals(List.of(ShardEntitiesKeys.of("Together", "s3").keyOf("f3").id()), updatedKeys);
  }

  /** A string, as messages are serialized in tests. */
  static final String RELEASE = "release";

  static ActorRef gatedForwarder(ActorSystem<?> node, List<String> updatedKeys, boolean released) {
    ActorRef replicator = Replicators.get(node).entitiesReplicatorFor(BACKEND);
    return ((ExtendedActorSystem) Adapter.toClassic(node)).systemActorOf(
        Props.create(GatedForwarder.class, () -> new GatedForwarder(replicator, updatedKeys, released)), "gated");
  }

  /** Forwards everything to the replicator, noting updated keys; holds updates until {@link #RELEASE}. */
  static final class GatedForwarder extends AbstractActor {
    private final ActorRef replicator;
    private final List<String> updatedKeys;
    private final List<Object[]> held = new ArrayList<>();
    private boolean released;

    GatedForwarder(ActorRef replicator, List<String> updatedKeys, boolean released) {
      this.replicator = replicator;
      this.updatedKeys = updatedKeys;
      this.released = released;
    }

    @Override
    public Receive createReceive() {
      return receiveBuilder().matchEquals(RELEASE, r -> {
        released = true;
        held.forEach(h -> replicator.tell(h[0], (ActorRef) h[1]));
        held.clear();
      }).matchAny(message -> {
        if (message instanceof Replicator.Update<?> update) {
          updatedKeys.add(update.key().id());
          if (!released) {
            held.add(new Object[] {message, getSender()});
            return;
          }
        }
        replicator.forward(message, getContext());
      }).build();
    }
  }

  static Set<String> rememberedShards(int node, String typeName) throws Exception {
    ActorSystem<Void> s = cluster.system(node);
    return get(PROVIDER.rememberedShards(s, typeName, settings(s)));
  }

  @Test
  void theShardsThatRememberedAnEntityAreListedForTheCoordinatorOnEveryReplica() throws Exception {
    assertEquals(Set.of(), rememberedShards(2, "Listed"), "nothing remembered yet");
    get(store(0, "Listed", "1").update(Set.of("a", "b"), Set.of()));
    get(store(1, "Listed", "shards").update(Set.of("c"), Set.of()));
    get(store(1, "Listed", "x/y").update(Set.of("d"), Set.of()));
    // Stopping entities, or loading, remembers nothing: no listing.
    get(store(2, "Listed", "3").update(Set.of(), Set.of("never-started")));
    get(store(2, "Listed", "4").load());
    Set<String> listed = Set.of("1", "shards", "x/y");
    for (int node = 0; node < 3; node++) {
      assertEquals(listed, rememberedShards(node, "Listed"), "node " + node);
    }
    // The keys of shard "shards" and "x/y" are its own; the list is not one of them.
    assertEquals(Set.of("c"), get(store(0, "Listed", "shards").load()));
    assertEquals(Set.of("d"), get(store(0, "Listed", "x/y").load()));

    // Once every entity of shard 1 is passivated it stays listed (a superset is fine), and a
    // successor on another node that remembers again keeps one entry.
    get(store(2, "Listed", "1").update(Set.of(), Set.of("a", "b")));
    get(store(2, "Listed", "1").update(Set.of("e"), Set.of()));
    assertEquals(listed, rememberedShards(1, "Listed"));
    // Another type's list is apart.
    assertEquals(Set.of(), rememberedShards(1, "Listed2"));

    // A node without the type's role cannot read it, and says why.
    Throwable noRole = failure(PROVIDER.rememberedShards(cluster.system(3), "Listed", settings(cluster.system(3))));
    assertInstanceOf(IllegalArgumentException.class, noRole);
    assertTrue(noRole.getMessage().contains("Cannot keep remembered entities for role [backend]"),
        noRole.getMessage());
  }

  @Test
  void aWriteFailsWhileAMajorityIsUnreachableAndSucceedsOnceItIsBack() throws Exception {
    RememberEntitiesStore store = store(0, "Cut", "1");
    get(store.update(Set.of("before"), Set.of()));
    Cluster node0 = Cluster.get(Adapter.toClassic(cluster.system(0)));
    try {
      Network.cut(cluster.system(0), cluster.address(1));
      Network.cut(cluster.system(0), cluster.address(2));
      TestCluster.await(Duration.ofSeconds(30), () -> node0.state().getUnreachable().size() == 2,
          "node 0 sees nodes 1 and 2 unreachable");

      Throwable write = failure(store.update(Set.of("during"), Set.of("before")));
      assertInstanceOf(TimeoutException.class, write);
      assertTrue(write.getMessage().contains("Entity type [Cut], shard [1]: the remembered entities' change"),
          write.getMessage());
      assertTrue(write.getMessage().contains("was not confirmed by a majority of the replicas"), write.getMessage());
      assertTrue(write.getMessage().contains("needs 3 of the 3 replica node(s) with role [backend]"),
          write.getMessage());

      Throwable read = failure(store(0, "Cut", "1").load());
      assertInstanceOf(TimeoutException.class, read);
      assertTrue(read.getMessage().contains("Entity type [Cut], shard [1]: could not read the remembered entities"),
          read.getMessage());
      assertTrue(read.getMessage().contains("in 2 attempt(s)"), read.getMessage());
    } finally {
      Network.restore(cluster.system(0), cluster.address(1));
      Network.restore(cluster.system(0), cluster.address(2));
    }
    for (ActorSystem<Void> s : cluster.systems()) {
      TestCluster.await(Duration.ofSeconds(30),
          () -> Cluster.get(Adapter.toClassic(s)).state().getUnreachable().isEmpty(),
          "every node sees every other reachable again");
    }

    // The shard's retry: the same batch again.
    get(store.update(Set.of("during"), Set.of("before")));
    assertEquals(Set.of("during"), get(store(2, "Cut", "1").load()));
  }

  @Test
  void eachReplicaKeepsItsLmdbFilesWhereConfigured() throws Exception {
    get(store(2, "Disk", "1").update(Set.of("on-disk"), Set.of()));
    for (int i = 0; i < 3; i++) {
      File expected = disk(i).toFile();
      assertEquals(expected, Replicators.get(cluster.system(i)).lmdbDirectory(BACKEND));
      assertTrue(Files.isRegularFile(disk(i).resolve("data.mdb")), "node " + i + " has " + disk(i) + "/data.mdb");
      String description = store(i, "Disk", "1").describe();
      assertTrue(description.contains("durable on disk in LMDB, here in " + expected.getAbsolutePath()), description);
      assertTrue(description.contains("the nodes with role [backend]"), description);
    }
    // The client runs no replicator, so it keeps nothing.
    assertTrue(!Files.exists(disks.resolve("client")), "the client node has no LMDB directory");
  }

  @Test
  void rememberedEntitiesReplicatorsRunPerRoleOnlyWhereTheRoleIs() {
    for (int i = 0; i < 3; i++) {
      // startOnNode started it; asking again returns the same actor, apart from the coordinator state's.
      Replicators replicators = Replicators.get(cluster.system(i));
      assertEquals("/system/shardkit-entities-replicator-backend",
          replicators.entitiesReplicatorFor(BACKEND).path().toStringWithoutAddress());
    }
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> PROVIDER.startOnNode(cluster.system(3), "any", settings(cluster.system(3))));
    assertTrue(e.getMessage().contains("Cannot keep remembered entities for role [backend]"), e.getMessage());
    assertEquals("shardkit-entities-replicator", Replicators.entitiesActorName(Optional.empty()));
    assertEquals("shardkit-entities-replicator-a+b%2Fc", Replicators.entitiesActorName(Optional.of("a b/c")));
    // A role named "entities" does not make the two kinds of replicator collide.
    assertTrue(!Replicators.actorName(Optional.of("entities")).equals(Replicators.entitiesActorName(Optional.empty())));

    IllegalArgumentException longShard = assertThrows(IllegalArgumentException.class,
        () -> store(0, "Cart", "x".repeat(600)));
    assertTrue(longShard.getMessage().contains("at most 511"), longShard.getMessage());
  }
}
