package dev.shardkit.sharding.ddata.internal;

import com.typesafe.config.ConfigFactory;
import dev.shardkit.sharding.ddata.internal.CoordinatorStateRecord.Version;
import dev.shardkit.sharding.spi.CoordinatorEvent.ProxyRegistered;
import dev.shardkit.sharding.spi.CoordinatorEvent.RegionRegistered;
import dev.shardkit.sharding.spi.CoordinatorEvent.ShardHomeAllocated;
import dev.shardkit.sharding.spi.CoordinatorState;
import dev.shardkit.sharding.testsupport.GoldenFiles;
import dev.shardkit.sharding.testsupport.GoldenFiles.Sample;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorRefResolver;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.UniqueAddress;
import org.apache.pekko.cluster.ddata.DurableStore.DurableDataEnvelope;
import org.apache.pekko.cluster.ddata.ORSet;
import org.apache.pekko.cluster.ddata.SelfUniqueAddress;

/**
 * Golden samples of what the ddata stores replicate and keep: the coordinator state record
 * ({@link DDataSerializer}) under {@code golden/ddata-coordinator-state/v<format>/}, and the
 * remembered entities (Pekko's {@link ORSet} of ids, alone and as the {@link DurableDataEnvelope}
 * that LMDB holds, and the keys they live under) under
 * {@code golden/ddata-remember-entities/v<layout>/}. {@link DDataGoldenTest} reads every version
 * back; {@link #main} writes the current versions' directories (see {@link GoldenFiles}):
 *
 * <pre>
 * mvn -q -pl sharding-ddata test-compile exec:java -Dexec.skip=false -Dexec.classpathScope=test \
 *     -Dexec.mainClass=dev.shardkit.sharding.ddata.internal.DDataGolden \
 *     -Dexec.args=sharding-ddata/src/test/resources/golden
 * </pre>
 */
public final class DDataGolden {
  static final String SYSTEM = "Golden";
  static final String COORDINATOR_STATE = "ddata-coordinator-state";
  static final String REMEMBER_ENTITIES = "ddata-remember-entities";
  static final String SPLIT_COORDINATOR_STATE = "ddata-coordinator-state-split";
  /** The shard parts of the split samples. */
  static final int SPLIT_SHARD_PARTS = 2;
  /** The remembered-entities key layout: {@link ShardEntitiesKeys} and {@link RememberedShardsKey}. */
  static final int REMEMBER_ENTITIES_LAYOUT = 1;
  static final String KEYS = "keys.properties";
  static final String TYPE = "Cart";
  static final String SHARD = "17";
  static final List<String> ENTITY_IDS = List.of("id-1", "id-2", "id-3", "id-ü", "42", "cart/7");

  private DDataGolden() {}

  static ActorSystem<Void> system() {
    return ActorSystem.create(Behaviors.empty(), SYSTEM, ConfigFactory.parseString("""
        pekko.actor.provider = cluster
        pekko.remote.artery.canonical { hostname = 127.0.0.1, port = 0 }
        pekko.loglevel = WARNING
        """));
  }

  private static ActorRef<Object> ref(ActorRefResolver resolver, String node, String path) {
    return resolver.resolveActorRef("pekko://" + SYSTEM + "@" + node + ":25520" + path);
  }

  /**
   * Coordinator state records: an empty one, and one with every kind of content. Until shard ids
   * were validated, State also held a shard with the empty id, which readers now leave out (the
   * format 1 file still holds it).
   */
  static List<Sample> coordinatorStateSamples(ActorSystem<?> system) {
    ActorRefResolver resolver = ActorRefResolver.get(system);
    ActorRef<Object> r1 = ref(resolver, "10.0.0.1", "/system/sharding/Cart#101");
    ActorRef<Object> r2 = ref(resolver, "10.0.0.2", "/system/sharding/Cart#202");
    ActorRef<Object> p1 = ref(resolver, "10.0.0.3", "/system/sharding/CartProxy#303");
    ActorRef<Object> p2 = ref(resolver, "10.0.0.4", "/system/sharding/CartProxy#404");
    String writer = "pekko://Golden@10.0.0.1:25520#-5/3";
    CoordinatorState state = CoordinatorState.empty()
        .applied(new RegionRegistered(r2))
        .applied(new RegionRegistered(r1))
        .applied(new ProxyRegistered(p2))
        .applied(new ProxyRegistered(p1))
        .applied(new ShardHomeAllocated("42", r1))
        .applied(new ShardHomeAllocated("ünïcødé-\uD83D\uDE00", r2))
        .applied(new ShardHomeAllocated("lone-\uD800", r1))
        .applied(new ShardHomeAllocated("7", r1));
    return List.of(
        new Sample("Empty.bin", new CoordinatorStateRecord(new Version(1, 0, writer), Version.NONE,
            CoordinatorState.empty())),
        new Sample("State.bin", new CoordinatorStateRecord(new Version(3, 17, writer), new Version(3, 16, writer),
            state)),
        new Sample("EmptyRegions.bin", new CoordinatorStateRecord(new Version(2, 0, writer),
            new Version(1, 9, "other"), CoordinatorState.empty().applied(new RegionRegistered(r1)))));
  }

  /** The state of the coordinator state samples with every kind of content. */
  static CoordinatorState sampleState(ActorSystem<?> system) {
    return ((CoordinatorStateRecord) coordinatorStateSamples(system).get(1).value()).state();
  }

  /**
   * The split coordinator state's head (with a fallback, and as a take-over without one) and
   * parts (the directory and a shard part of {@link #sampleState} in {@link #SPLIT_SHARD_PARTS}
   * parts, with the payload they replaced, and a part without one), under
   * {@code golden/ddata-coordinator-state-split/v<format>/}.
   */
  static List<Sample> splitSamples(ActorSystem<?> system) {
    ActorRefResolver resolver = ActorRefResolver.get(system);
    String writer = "pekko://Golden@10.0.0.1:25520#-5/3";
    PartitionedCoordinatorState parts = PartitionedCoordinatorState.of(sampleState(system), SPLIT_SHARD_PARTS);
    PartitionedCoordinatorState before = PartitionedCoordinatorState.of(CoordinatorState.empty(), SPLIT_SHARD_PARTS);
    Version taken = new Version(4, 0, writer);
    Version now = new Version(4, 6, writer);
    PartVersions takenParts = PartVersions.all(taken, SPLIT_SHARD_PARTS);
    return List.of(
        new Sample("Head.bin", new CoordinatorStateHead(now, new Version(4, 5, writer),
            takenParts.with(now, SPLIT_SHARD_PARTS, java.util.Set.of(0, 2)), takenParts)),
        new Sample("TakeOverHead.bin", new CoordinatorStateHead(taken, new Version(3, 17, "other"), takenParts,
            null)),
        new Sample("Directory.bin", new CoordinatorStatePart(now, parts.payload(0, resolver::toSerializationFormat),
            taken, before.payload(0, resolver::toSerializationFormat))),
        new Sample("ShardPart.bin", new CoordinatorStatePart(now, parts.payload(2, resolver::toSerializationFormat),
            taken, before.payload(2, resolver::toSerializationFormat))),
        new Sample("FirstShardPart.bin", new CoordinatorStatePart(taken,
            parts.payload(1, resolver::toSerializationFormat), null, null)));
  }

  /** A remembered-entities bucket as the ddata store writes it, and as LMDB keeps it. */
  static List<Sample> rememberEntitiesSamples() {
    SelfUniqueAddress a = new SelfUniqueAddress(new UniqueAddress(
        new Address("pekko", SYSTEM, "10.0.0.1", 25520), 11L));
    SelfUniqueAddress b = new SelfUniqueAddress(new UniqueAddress(
        new Address("pekko", SYSTEM, "10.0.0.2", 25520), 22L));
    ORSet<String> entities = ORSet.<String>create().add(a, "id-1").add(a, "id-ü").add(b, "42").add(b, "gone")
        .remove(a, "gone").resetDelta();
    ORSet<String> shards = ORSet.<String>create().add(a, SHARD).add(b, "3").resetDelta();
    return List.of(
        new Sample("Entities.bin", entities),
        new Sample("Shards.bin", shards),
        new Sample("DurableEntities.bin", new DurableDataEnvelope(entities)));
  }

  /** Where the sample entities and the type's list of shards live: key name → key id. */
  static Map<String, String> keys() {
    ShardEntitiesKeys keys = ShardEntitiesKeys.of(TYPE, SHARD);
    Map<String, String> ids = new TreeMap<>();
    ENTITY_IDS.forEach(id -> ids.put("entity." + id, keys.keyOf(id).id()));
    ids.put("shards", RememberedShardsKey.of(TYPE).id());
    return ids;
  }

  /** Writes this build's golden files of both formats under {@code args[0]}. */
  public static void main(String[] args) throws IOException {
    Path root = Path.of(args[0]);
    ActorSystem<Void> system = system();
    try {
      GoldenFiles.write(root.resolve(COORDINATOR_STATE).resolve("v" + coordinatorStateFormat()), system,
          coordinatorStateSamples(system));
      GoldenFiles.write(root.resolve(SPLIT_COORDINATOR_STATE).resolve("v" + DDataSerializer.SPLIT_FORMAT), system,
          splitSamples(system));
      Path entities = root.resolve(REMEMBER_ENTITIES).resolve("v" + REMEMBER_ENTITIES_LAYOUT);
      GoldenFiles.write(entities, system, rememberEntitiesSamples());
      StringBuilder lines = new StringBuilder("# Sample entity ids of type " + TYPE + ", shard " + SHARD
          + ": the key each is remembered under; and the key of the type's list of shards.\n");
      keys().forEach((name, id) -> lines.append(name.replace(" ", "\\ ")).append('=').append(id).append('\n'));
      Files.writeString(entities.resolve(KEYS), lines);
    } finally {
      system.terminate();
      system.getWhenTerminated().toCompletableFuture().join();
    }
  }

  /** The format version {@link DDataSerializer} writes. */
  static int coordinatorStateFormat() {
    return DDataSerializer.FORMAT;
  }
}
