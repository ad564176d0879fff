package dev.shardkit.sharding.ddata;

import static dev.shardkit.sharding.ddata.Replicas.get;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.ClusterSharding;
import dev.shardkit.sharding.Entity;
import dev.shardkit.sharding.EntityTypeKey;
import dev.shardkit.sharding.ShardingSettings;
import dev.shardkit.sharding.ddata.internal.Replicators;
import dev.shardkit.sharding.spi.RememberEntitiesStore;
import dev.shardkit.sharding.testsupport.LogCapture;
import dev.shardkit.sharding.testsupport.Recorder;
import dev.shardkit.sharding.testsupport.Recorder.Command;
import dev.shardkit.sharding.testsupport.Recorder.Msg;
import dev.shardkit.sharding.testsupport.Recorder.Report;
import dev.shardkit.sharding.testkit.TestCluster;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Remembered entities on disk: they come back after every node of the cluster stopped, from the
 * LMDB directories the nodes were configured with; the default directory name keeps nodes on one
 * machine apart; and a cluster that does not remember entities creates no LMDB files.
 */
class DDataRememberEntitiesDurabilityTest {
  static final String CONFIG = """
      shardkit.sharding.state-store-mode = ddata
      shardkit.sharding.remember-entities = on
      shardkit.sharding.ddata { write-timeout = 3s, read-timeout = 3s }
      """;
  static final DDataRememberEntitiesStoreProvider PROVIDER = new DDataRememberEntitiesStoreProvider();
  static final Optional<String> BACKEND = Optional.of("backend");

  @TempDir
  Path disks;

  static String lmdbDir(Path dir) {
    return "shardkit.sharding.ddata.remember-entities.lmdb.dir = \"" + dir + "\"\n";
  }

  static ShardingSettings settings(ActorSystem<?> system) {
    return ShardingSettings.create(system).withRole("backend");
  }

  /** A node of role backend that keeps its LMDB files in {@code disk}, with its replicator started. */
  static ActorSystem<Void> addNode(TestCluster cluster, Path disk) {
    ActorSystem<Void> system = cluster.add(CONFIG + lmdbDir(disk), "backend");
    cluster.awaitUp(cluster.systems().size());
    PROVIDER.startOnNode(system, "Cart", settings(system));
    return system;
  }

  static RememberEntitiesStore store(ActorSystem<?> system, String shardId) {
    return PROVIDER.create(system, "Cart", shardId, settings(system));
  }

  static Set<String> ids(String prefix, int n) {
    return IntStream.range(0, n).mapToObj(i -> prefix + i).collect(Collectors.toSet());
  }

  static List<String> entries(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  @Test
  void theRememberedSetsComeBackFromDiskAfterEveryNodeStopped() throws Exception {
    List<Path> nodeDisks = List.of(disks.resolve("node-0"), disks.resolve("node-1"), disks.resolve("node-2"));
    Set<String> shard1 = new HashSet<>(ids("cart-", 50));
    Set<String> shard2 = Set.of("cart-x", "cart-y");
    try (TestCluster before = new TestCluster("DDataRestart")) {
      for (Path disk : nodeDisks) {
        addNode(before, disk);
      }
      RememberEntitiesStore s1 = store(before.system(0), "1");
      get(s1.update(shard1, Set.of()));
      get(s1.update(Set.of("cart-late"), Set.of("cart-3", "cart-30")));
      shard1.add("cart-late");
      shard1.removeAll(Set.of("cart-3", "cart-30"));
      get(store(before.system(1), "2").update(shard2, Set.of()));
    }
    for (Path disk : nodeDisks) {
      assertTrue(Files.isRegularFile(disk.resolve("data.mdb")), disk + "/data.mdb");
    }

    // New actor systems (new ports, new incarnations): all they have is what is on disk.
    try (TestCluster after = new TestCluster("DDataRestart")) {
      // One node alone reads only its own disk: every confirmed write reached every node's disk
      // (a majority of three, with majority-min-cap 5, is all three).
      ActorSystem<Void> first = addNode(after, nodeDisks.get(2));
      assertEquals(Set.of("1", "2"), get(PROVIDER.rememberedShards(first, "Cart", settings(first))),
          "the shards with remembered entities, for a starting coordinator");
      assertEquals(shard1, get(store(first, "1").load()));
      assertEquals(shard2, get(store(first, "2").load()));

      ActorSystem<Void> second = addNode(after, nodeDisks.get(0));
      ActorSystem<Void> third = addNode(after, nodeDisks.get(1));
      assertEquals(shard1, get(store(third, "1").load()));
      assertEquals(shard2, get(store(second, "2").load()));

      // The restarted cluster carries on remembering.
      RememberEntitiesStore s2 = store(second, "2");
      get(s2.update(Set.of("cart-z"), Set.of("cart-x")));
      assertEquals(Set.of("cart-y", "cart-z"), get(store(first, "2").load()));
    }
  }

  @Test
  void theDefaultDirectoryNameHoldsSystemReplicatorAndPortAndARandomPortIsWarnedAbout() throws Exception {
    try (TestCluster cluster = new TestCluster("DDataDefaultDir"); LogCapture logs = new LogCapture()) {
      // A path ending with "ddata" is the default's form ("ddata", in the working directory).
      ActorSystem<Void> node = addNode(cluster, disks.resolve("ddata"));
      get(store(node, "1").update(Set.of("e1"), Set.of()));

      int port = (Integer) node.address().port().get();
      String expectedName = "ddata-DDataDefaultDir-shardkit-entities-replicator-backend-" + port;
      File dir = Replicators.get(node).lmdbDirectory(BACKEND);
      assertEquals(disks.resolve(expectedName).toFile(), dir);
      assertEquals(List.of(expectedName), entries(disks));
      assertTrue(Files.isRegularFile(dir.toPath().resolve("data.mdb")), dir + "/data.mdb");

      // TestCluster nodes take random ports, so a restarted node would look elsewhere: said once.
      logs.await(Duration.ofSeconds(10), "shardkit keeps remembered entities on this node in the LMDB directory "
          + dir.getAbsolutePath(), "chosen at random", "shardkit.sharding.ddata.remember-entities.lmdb.dir");
      Replicators.get(node).entitiesReplicatorFor(BACKEND);
      assertEquals(1, logs.matching("chosen at random").size());
    }
  }

  @Test
  void aClusterThatDoesNotRememberEntitiesCreatesNoLmdbFiles() throws Exception {
    EntityTypeKey<Command> key = EntityTypeKey.create(Command.class, "Forgetful");
    // Every replicator that could open LMDB would do so under disks.
    String config = """
        shardkit.sharding.state-store-mode = ddata
        shardkit.sharding.ddata.replicator.durable.lmdb.dir = "%s"
        pekko.cluster.distributed-data.durable.lmdb.dir = "%s"
        """.formatted(disks.resolve("coordinator-ddata"), disks.resolve("application-ddata"))
        + lmdbDir(disks.resolve("entities-ddata"));
    Recorder.reset();
    try (TestCluster cluster = new TestCluster("DDataNoLmdb")) {
      for (int i = 0; i < 2; i++) {
        cluster.add(config);
        cluster.awaitUp(i + 1);
      }
      for (ActorSystem<Void> s : cluster.systems()) {
        ClusterSharding.get(s).start(Entity.of(key, Recorder::create));
      }
      // Sharding works, with its coordinator state in ddata: entities got homes on both nodes.
      Set<String> hosts = new HashSet<>();
      for (int i = 0; i < 20; i++) {
        String id = "f-" + i;
        ClusterSharding.get(cluster.system(1)).entityRefFor(key, id).tell(new Msg("n1", 1));
        TestCluster.await(Duration.ofSeconds(30), () -> report(cluster, key, id).received() == 1, id + " got it");
        hosts.add(report(cluster, key, id).host());
      }
      assertEquals(2, hosts.size(), hosts.toString());

      for (ActorSystem<Void> s : cluster.systems()) {
        assertFalse(exists(s, "/system/" + Replicators.entitiesActorName(Optional.empty())),
            "no remembered-entities replicator on " + s.address());
        assertTrue(exists(s, "/system/" + Replicators.actorName(Optional.empty())),
            "the coordinator state's replicator runs on " + s.address());
      }
      assertEquals(List.of(), entries(disks));
      try (Stream<Path> cwd = Files.list(Path.of(""))) {
        assertEquals(List.of(), cwd.map(p -> p.getFileName().toString()).filter(n -> n.contains("DDataNoLmdb"))
            .toList());
      }
    }
  }

  static Report report(TestCluster cluster, EntityTypeKey<Command> key, String id) {
    try {
      return ClusterSharding.get(cluster.system(0)).entityRefFor(key, id)
          .<Report>ask(Recorder.Get::new, Duration.ofSeconds(5)).toCompletableFuture().get(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new AssertionError("no report from " + id, e);
    }
  }

  static boolean exists(ActorSystem<?> system, String path) {
    try {
      Adapter.toClassic(system).actorSelection(path).resolveOne(Duration.ofSeconds(3)).toCompletableFuture()
          .get(5, TimeUnit.SECONDS);
      return true;
    } catch (Exception e) {
      return false;
    }
  }
}
