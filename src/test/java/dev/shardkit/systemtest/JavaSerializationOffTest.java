package dev.shardkit.systemtest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import dev.shardkit.sharding.ClusterSharding;
import dev.shardkit.sharding.Entity;
import dev.shardkit.sharding.EntityTypeKey;
import dev.shardkit.sharding.Passivate;
import dev.shardkit.sharding.ShardingEnvelope;
import dev.shardkit.sharding.StableHashMessageExtractor;
import dev.shardkit.sharding.ddata.internal.BucketChange;
import dev.shardkit.sharding.ddata.internal.CoordinatorStateHead;
import dev.shardkit.sharding.ddata.internal.CoordinatorStatePart;
import dev.shardkit.sharding.ddata.internal.CoordinatorStateRecord;
import dev.shardkit.sharding.ddata.internal.PartVersions;
import dev.shardkit.sharding.ddata.internal.RememberedShardsKey;
import dev.shardkit.sharding.ddata.internal.ShardEntitiesKeys;
import dev.shardkit.sharding.internal.gate.GateProtocol;
import dev.shardkit.sharding.internal.wire.ShardingProtocol;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.BeginHandOff;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.CurrentRegions;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.Deliver;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.DeliveryAck;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.DeliveryBatch;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.GetCurrentRegions;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.GetRegionStats;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.GetShardHome;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.GracefulShutdownReq;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.HandOffMarker;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.RegionStats;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.Register;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.RegisterAck;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.RegisterProxy;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.ShardHome;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.ShardHomes;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.ShardRefused;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.ShardStopped;
import dev.shardkit.sharding.internal.wire.ShardkitSerializer;
import dev.shardkit.sharding.persistence.internal.StoredEntitiesChange;
import dev.shardkit.sharding.persistence.internal.StoredEntitiesSnapshot;
import dev.shardkit.sharding.persistence.internal.StoredEvent;
import dev.shardkit.sharding.persistence.internal.StoredEventsBatch;
import dev.shardkit.sharding.persistence.internal.StoredSnapshot;
import dev.shardkit.sharding.spi.CoordinatorEvent.ProxyRegistered;
import dev.shardkit.sharding.spi.CoordinatorEvent.RegionRegistered;
import dev.shardkit.sharding.spi.CoordinatorEvent.ShardHomeAllocated;
import dev.shardkit.sharding.spi.CoordinatorState;
import dev.shardkit.sharding.testsupport.EntityProbe;
import dev.shardkit.sharding.testsupport.LogCapture;
import dev.shardkit.sharding.testkit.TestCluster;
import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.apache.pekko.actor.AbstractActor;
import org.apache.pekko.actor.ExtendedActorSystem;
import org.apache.pekko.actor.Props;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorRefResolver;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.ddata.ORSet;
import org.apache.pekko.cluster.ddata.SelfUniqueAddress;
import org.apache.pekko.cluster.ddata.protobuf.ReplicatedDataSerializer;
import org.apache.pekko.pattern.Patterns;
import org.apache.pekko.serialization.DisabledJavaSerializer;
import org.apache.pekko.serialization.JavaSerializer;
import org.apache.pekko.serialization.SerializationExtension;
import org.apache.pekko.serialization.Serializer;
import org.apache.pekko.serialization.jackson.JacksonSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code pekko.actor.allow-java-serialization = off} holds with every shardkit module on the class
 * path: every message shardkit sends between nodes, and everything its stores replicate or write,
 * has a serializer of shardkit's (or Jackson's, or Pekko Distributed Data's for the replicated
 * sets), and a real sharding workload (a rebalance that moves remembered entities, with the
 * coordinator state in ddata and the remembered entities in the persistence journal) runs without
 * ever asking for Java serialization.
 *
 * <p>The message types are found in the code: every class of shardkit's jars that is, or
 * implements, a class bound in a shardkit {@code reference.conf} (so a new record of
 * {@code ShardingProtocol} is found, and fails here until it has a sample and its serializer
 * handles it).
 */
class JavaSerializationOffTest {
  private static final EntityTypeKey<EntityProbe.Msg> KEY = EntityTypeKey.create(EntityProbe.Msg.class, "NoJava");
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final int SHARDS = 4;
  private static final int ENTITIES = 12;

  /** Java serialization explicitly off (Pekko's default, which an application could turn on). */
  private static final String NODE_CONFIG = """
      pekko.actor.allow-java-serialization = off
      pekko.actor.warn-about-java-serializer-usage = on
      shardkit.sharding {
        state-store-mode = ddata
        remember-entities = on
        remember-entities-store = persistence
        number-of-shards = %d
      }
      pekko-persistence-jdbc.shared-databases.shardkit.db.url = "jdbc:h2:file:%s;AUTO_SERVER=TRUE"
      """;

  /** What Pekko says when anything asks for Java serialization, with it off or on. */
  private static final List<String> JAVA_SERIALIZATION_SIGNS = List.of("allow-java-serialization",
      "Java serializer", "JavaSerializer", "Java serialization");

  @TempDir
  static Path dir;
  static LogCapture log;
  static TestCluster cluster;
  static final EntityProbe probe = new EntityProbe();

  /** A classic actor that sends back whatever it gets: the reply crosses the network again. */
  public static final class Echo extends AbstractActor {
    @Override
    public Receive createReceive() {
      return receiveBuilder().matchAny(m -> getSender().tell(m, getSelf())).build();
    }
  }

  /** Serializable and bound to nothing: what would need Java serialization. */
  record Unbound(int n) implements Serializable {}

  @BeforeAll
  static void start() {
    log = new LogCapture();
    cluster = new TestCluster("NoJava");
    for (int i = 0; i < 2; i++) {
      addNode();
    }
  }

  private static ActorSystem<Void> addNode() {
    String config = NODE_CONFIG.formatted(SHARDS, dir.resolve("state").toAbsolutePath());
    ActorSystem<Void> node = cluster.add(config);
    cluster.awaitUp(cluster.systems().size());
    ClusterSharding.get(node).start(Entity.of(KEY, probe::behavior));
    return node;
  }

  @AfterAll
  static void stop() {
    if (cluster != null) {
      cluster.close();
    }
    if (log != null) {
      log.close();
    }
  }

  @Test
  void javaSerializationIsOffOnTheseNodes() {
    Serializer serializer = SerializationExtension.get(Adapter.toClassic(cluster.system(0)))
        .findSerializerFor(new Unbound(1));
    // Else every check below would pass for the wrong reason.
    assertInstanceOf(DisabledJavaSerializer.class, serializer);
    // And the log check below sees what Pekko says when something asks for Java serialization
    // (Pekko logs through an actor, so the event comes a moment later).
    log.await(WAIT, "Java serializer", Unbound.class.getName());
  }

  @Test
  void everyTypeShardkitSendsOrStoresHasItsOwnSerializerAndCrossesNodes() throws Exception {
    ActorSystem<Void> a = cluster.system(0);
    ActorSystem<Void> b = cluster.system(1);
    Map<Class<?>, Object> samples = samples(a);

    Set<String> discovered = boundClasses();
    Set<String> sampled = new TreeSet<>();
    samples.keySet().forEach(c -> sampled.add(c.getName()));
    TreeSet<String> missing = new TreeSet<>(discovered);
    missing.removeAll(sampled);
    assertEquals(Set.of(), missing, "shardkit classes bound to a serializer without a sample here: give each a "
        + "sample in samples(), so that its serialization across nodes is tested");

    org.apache.pekko.actor.ActorRef echo = ((ExtendedActorSystem) Adapter.toClassic(b))
        .systemActorOf(Props.create(Echo.class), "echo");
    // The echo actor as node a sees it: remote, so every message to it crosses the network.
    org.apache.pekko.actor.ActorRef remoteEcho = Adapter.toClassic(ActorRefResolver.get(a)
        .resolveActorRef(ActorRefResolver.get(b).toSerializationFormat(Adapter.toTyped(echo))));
    List<Object> all = new ArrayList<>(samples.values());
    all.addAll(replicatedByDData(a));
    for (Object sample : all) {
      Serializer serializer = SerializationExtension.get(Adapter.toClassic(a)).findSerializerFor(sample);
      String what = sample.getClass().getName() + " (serializer " + serializer.getClass().getName() + ")";
      assertTrue(!(serializer instanceof JavaSerializer) && !(serializer instanceof DisabledJavaSerializer),
          what + " would need Java serialization");
      assertTrue(serializer instanceof ShardkitSerializer || serializer instanceof JacksonSerializer
          || serializer instanceof ReplicatedDataSerializer, what + " is serialized by none of shardkit's, "
          + "Jackson's or Distributed Data's serializers");
      Object back = Patterns.ask(remoteEcho, sample, Duration.ofSeconds(10)).toCompletableFuture()
          .get(15, TimeUnit.SECONDS);
      assertEquals(sample, back, what + " came back changed from node b");
    }
    assertNoJavaSerialization();
  }

  @Test
  void aRebalanceOfRememberedEntitiesRunsWithoutJavaSerialization() {
    // Every shard has entities, so whichever shard moves has remembered entities to start.
    assertEquals(SHARDS, IntStream.range(0, ENTITIES)
        .mapToObj(i -> StableHashMessageExtractor.shardIdFor("e" + i, SHARDS)).distinct().count());
    ActorSystem<Void> a = cluster.system(0);
    for (int i = 0; i < ENTITIES; i++) {
      ClusterSharding.get(a).entityRefFor(KEY, "e" + i).tell(new EntityProbe.Hello(1));
    }
    awaitEveryEntityGot(List.of(1));

    // A third node: the coordinator moves shards to it, and their remembered entities start there
    // by themselves (the journal and the replicated coordinator state both on the way).
    ActorSystem<Void> c = addNode();
    String cAddress = c.address().toString();
    TestCluster.await(WAIT, () -> probe.live().stream().anyMatch(id -> cAddress.equals(probe.startedOn(id))),
        "a remembered entity started on the new node " + cAddress);

    for (int i = 0; i < ENTITIES; i++) {
      ClusterSharding.get(a).entityRefFor(KEY, "e" + i).tell(new EntityProbe.Hello(2));
    }
    awaitEveryEntityGot(List.of(1, 2));
    assertNoJavaSerialization();
  }

  private static void awaitEveryEntityGot(List<Integer> expected) {
    TestCluster.await(WAIT, () -> {
      for (int i = 0; i < ENTITIES; i++) {
        if (!probe.received("e" + i).equals(expected)) {
          return false;
        }
      }
      return true;
    }, "every entity received " + expected);
  }

  private static void assertNoJavaSerialization() {
    // Leaves out what the test's own Unbound made Pekko say.
    List<String> seen = log.events().stream().map(LogCapture::fullText)
        .filter(text -> JAVA_SERIALIZATION_SIGNS.stream().anyMatch(text::contains))
        .filter(text -> !text.contains(Unbound.class.getName())).toList();
    assertEquals(List.of(), seen, "log events about Java serialization");
  }

  /** One value of every type shardkit sends between nodes or writes to its stores, by class. */
  private static Map<Class<?>, Object> samples(ActorSystem<Void> a) {
    ActorRef<Object> region = a.systemActorOf(Behaviors.empty(), "sample-region", org.apache.pekko.actor.typed.Props.empty());
    ActorRef<Object> other = a.systemActorOf(Behaviors.empty(), "sample-other", org.apache.pekko.actor.typed.Props.empty());
    String regionRef = ActorRefResolver.get(a).toSerializationFormat(region);
    Deliver deliver = new Deliver("NoJava", "3", "e-1", new EntityProbe.Hello(7));
    HandOffMarker marker = new HandOffMarker("3", region, 2);
    List<Object> list = List.of(
        deliver,
        new Register(region, Set.of("1", "2")),
        new RegisterProxy(region),
        new RegisterAck(other, 5),
        new GetShardHome("3", region),
        new ShardHome("3", region, 5),
        new ShardHome("3", region, 5, true),
        new ShardingProtocol.ShardStarted("3", region),
        new ShardHomes(Map.of("1", region, "2", other), 5),
        new ShardRefused("9999", "outside 0..3"),
        new GetCurrentRegions(region),
        new CurrentRegions(Set.of(region, other)),
        new GetRegionStats(region),
        new RegionStats(Map.of("1", 3, "2", 0)),
        new BeginHandOff("3", region, Set.of(region, other), 2, 5),
        marker,
        new ShardStopped("3", region, 2),
        new ShardingProtocol.HandOffDeclined("3", region, 2),
        new GracefulShutdownReq(region),
        new DeliveryBatch(other, 4, List.of(deliver, marker)),
        new DeliveryAck(4, true),
        new ShardingEnvelope<>("e-1", new EntityProbe.Hello(8)),
        new Passivate(region),
        new GateProtocol.ConfirmMember(3, 42, region),
        new GateProtocol.MemberConfirmed(3, other, true),
        new CoordinatorStateRecord(new CoordinatorStateRecord.Version(2, 7, "writer-a"),
            new CoordinatorStateRecord.Version(2, 6, "writer-a"), CoordinatorState.empty()
                .applied(new RegionRegistered(region)).applied(new ProxyRegistered(other))
                .applied(new ShardHomeAllocated("3", region))),
        new CoordinatorStateHead(new CoordinatorStateRecord.Version(3, 1, "writer-b"),
            new CoordinatorStateRecord.Version(3, 0, "writer-b"), PartVersions.all(
                new CoordinatorStateRecord.Version(3, 0, "writer-b"), 2).with(
                new CoordinatorStateRecord.Version(3, 1, "writer-b"), 2, Set.of(1)),
            PartVersions.all(new CoordinatorStateRecord.Version(3, 0, "writer-b"), 2)),
        new CoordinatorStatePart(new CoordinatorStateRecord.Version(3, 1, "writer-b"), new byte[] {1, 0},
            new CoordinatorStateRecord.Version(3, 0, "writer-b"), new byte[] {1, 0}),
        new StoredEvent(StoredEvent.Kind.SHARD_HOME_ALLOCATED, regionRef, "3"),
        new StoredEventsBatch(List.of(regionRef, ActorRefResolver.get(a).toSerializationFormat(other)),
            List.of(new StoredEventsBatch.KindRun(StoredEvent.Kind.SHARD_HOME_ALLOCATED, 2),
                new StoredEventsBatch.KindRun(StoredEvent.Kind.SHARD_HOME_DEALLOCATED, 1)),
            List.of(0, 1), List.of("3", "4", "3")),
        new StoredSnapshot(List.of(new StoredSnapshot.Region(regionRef, List.of("1", "3"))), List.of(), 5L),
        new StoredEntitiesChange(List.of("e-1", "e-2"), List.of("e-3")),
        new StoredEntitiesSnapshot(List.of("e-1", "e-2")));
    Map<Class<?>, Object> byClass = new LinkedHashMap<>();
    list.forEach(m -> byClass.put(m.getClass(), m));
    return byClass;
  }

  /** What the ddata remembered-entities store replicates: its keys and a set as a change leaves it. */
  private static List<Object> replicatedByDData(ActorSystem<Void> a) {
    ShardEntitiesKeys keys = ShardEntitiesKeys.of("NoJava", "3");
    List<BucketChange> changes = keys.changes(Set.of("e-1", "e-2"), Set.of());
    ORSet<String> set = changes.get(0).applyTo(ORSet.create(), SelfUniqueAddress.apply(
        org.apache.pekko.cluster.Cluster.get(Adapter.toClassic(a)).selfUniqueAddress()));
    List<Object> replicated = new ArrayList<>(keys.all());
    replicated.add(RememberedShardsKey.of("NoJava"));
    replicated.add(set);
    return replicated;
  }

  /**
   * Every concrete class in shardkit's jars that is, or implements, a class that a shardkit
   * {@code reference.conf} binds to a serializer.
   */
  private static Set<String> boundClasses() throws IOException, URISyntaxException {
    Map<String, Object> bindings = ConfigFactory.defaultReference().getObject("pekko.actor.serialization-bindings")
        .unwrapped();
    List<Class<?>> roots = new ArrayList<>();
    for (String name : bindings.keySet()) {
      if (name.startsWith("dev.shardkit.")) {
        roots.add(load(name));
      }
    }
    assertTrue(roots.size() >= 6, "the bindings of sharding-core, sharding-ddata and sharding-persistence: " + roots);
    Set<String> found = new TreeSet<>();
    for (Class<?> root : roots) {
      for (String name : classesBeside(root)) {
        Class<?> c = load(name);
        if (root.isAssignableFrom(c) && !c.isInterface() && !Modifier.isAbstract(c.getModifiers())) {
          found.add(name);
        }
      }
    }
    return found;
  }

  /** The names of every class in the jar (or directory) that {@code root} was loaded from. */
  private static List<String> classesBeside(Class<?> root) throws IOException, URISyntaxException {
    Path location = Path.of(root.getProtectionDomain().getCodeSource().getLocation().toURI());
    List<String> entries = new ArrayList<>();
    if (Files.isDirectory(location)) {
      try (Stream<Path> files = Files.walk(location)) {
        files.sorted(Comparator.naturalOrder()).forEach(p -> entries.add(location.relativize(p).toString()));
      }
    } else {
      try (JarFile jar = new JarFile(location.toFile())) {
        jar.stream().forEach(e -> entries.add(e.getName()));
      }
    }
    return entries.stream().filter(e -> e.endsWith(".class") && !e.endsWith("module-info.class")
        && !e.endsWith("package-info.class")).map(e -> e.substring(0, e.length() - ".class".length())
        .replace('/', '.').replace('\\', '.')).toList();
  }

  private static Class<?> load(String name) {
    try {
      return Class.forName(name, false, JavaSerializationOffTest.class.getClassLoader());
    } catch (ClassNotFoundException e) {
      throw new UncheckedIOException(new IOException("cannot load " + name, e));
    }
  }
}
