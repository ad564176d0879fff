package dev.shardkit.sharding.internal.wire;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.shardkit.sharding.Passivate;
import dev.shardkit.sharding.ShardingEnvelope;
import dev.shardkit.sharding.internal.gate.GateProtocol.ConfirmMember;
import dev.shardkit.sharding.internal.gate.GateProtocol.MemberConfirmed;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.BeginHandOff;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.CurrentRegions;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.Deliver;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.DeliveryAck;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.DeliveryBatch;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.GetCurrentRegions;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.GetRegionStats;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.GetShardHome;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.GracefulShutdownReq;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.HandOffDeclined;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.HandOffMarker;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.RegionStats;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.Register;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.RegisterAck;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.RegisterProxy;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.ShardHome;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.ShardHomes;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.ShardRefused;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.ShardStopped;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorRefResolver;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.serialization.SerializationExtension;
import org.apache.pekko.serialization.SerializerWithStringManifest;

/**
 * Golden samples of shardkit's wire formats: one value of every message type that
 * {@link ShardingSerializer} and {@link GateSerializer} write, and the files under
 * {@code src/test/resources/golden/<serializer>/v<format>/} that hold the bytes a shardkit build
 * wrote for them: {@code <sample>.bin}, and {@code manifests.properties} with the manifest each
 * was written under. {@link WireGoldenTest} reads every version's files back.
 *
 * <p>A directory, once committed, is never rewritten: it is what that format version's writers
 * put on the wire, and every later reader must still understand it. When a format version is
 * added, run {@link #main} to write the new version's directory:
 *
 * <pre>
 * mvn -q -pl sharding-core test-compile exec:java -Dexec.skip=false -Dexec.classpathScope=test \
 *     -Dexec.mainClass=dev.shardkit.sharding.internal.wire.WireGolden \
 *     -Dexec.args=sharding-core/src/test/resources/golden
 * </pre>
 *
 * <p>References are of nodes that do not exist ({@code 10.0.0.x}), so they resolve to remote
 * refs that keep their path, whatever the address of the system that reads them.
 */
public final class WireGolden {
  static final String SYSTEM = "Golden";
  static final String SHARDING = "sharding-serializer";
  static final String GATE = "gate-serializer";

  static final Config CONFIG = ConfigFactory.parseString(String.join("\n",
      "pekko.actor.provider = cluster",
      "pekko.remote.artery.canonical.port = 0",
      "pekko.remote.artery.canonical.hostname = 127.0.0.1",
      "pekko.loglevel = WARNING"));

  /** A sample: its file name (without {@code .bin}) and its value. */
  record Sample(String name, Object value) {}

  private WireGolden() {}

  static ActorSystem<Void> system() {
    return ActorSystem.create(Behaviors.empty(), SYSTEM, CONFIG);
  }

  private static ActorRef<Object> ref(ActorRefResolver resolver, String node, String path) {
    return resolver.resolveActorRef("pekko://" + SYSTEM + "@" + node + ":25520" + path);
  }

  /** The regions, proxy, coordinator and delivery link the samples name. */
  private record Refs(ActorRef<Object> region1, ActorRef<Object> region2, ActorRef<Object> proxy,
      ActorRef<Object> coordinator, ActorRef<Object> link) {
    static Refs in(ActorRefResolver resolver) {
      return new Refs(ref(resolver, "10.0.0.1", "/system/sharding/Counter#101"),
          ref(resolver, "10.0.0.2", "/system/sharding/Counter#202"),
          ref(resolver, "10.0.0.3", "/system/sharding/CounterProxy#303"),
          ref(resolver, "10.0.0.1", "/system/sharding/CounterCoordinator/singleton/coordinator#404"),
          ref(resolver, "10.0.0.1", "/system/sharding/Counter/link-2#707"));
    }
  }

  /** One value of every message {@link ShardingSerializer} writes. */
  static List<Sample> shardingSamples(ActorSystem<?> system) {
    ActorRefResolver resolver = ActorRefResolver.get(system);
    Refs refs = Refs.in(resolver);
    ActorRef<Object> region1 = refs.region1();
    ActorRef<Object> region2 = refs.region2();
    ActorRef<Object> proxy = refs.proxy();
    ActorRef<Object> coordinator = refs.coordinator();
    ActorRef<Object> asker = ref(resolver, "10.0.0.3", "/temp/$a#505");
    ActorRef<Object> entity = ref(resolver, "10.0.0.2", "/system/sharding/Counter/12/id-1#606");
    ActorRef<Object> link = refs.link();
    Map<String, Integer> counts = new LinkedHashMap<>();
    counts.put("12", 3);
    counts.put("shard-ä", 0);
    counts.put("99", -1);
    return List.of(
        new Sample("Deliver", new Deliver("Counter", "12", "id-1", "hello")),
        new Sample("DeliverLong", new Deliver("Blob", "7", "b-\uD83D\uDE42", -7L)),
        // Until shard ids were validated the sample also held "", which readers now leave out.
        new Sample("Register", new Register(region1, Set.of("12", "shard-ä"))),
        new Sample("RegisterNothing", new Register(region2, Set.of())),
        new Sample("RegisterProxy", new RegisterProxy(proxy)),
        new Sample("RegisterAckWithTerm", new RegisterAck(coordinator, 7)),
        new Sample("GetShardHome", new GetShardHome("12", region2)),
        new Sample("ShardHomeWithTerm", new ShardHome("12", region1, (1L << 40) + 3)),
        new Sample("ShardHomeConfirmStart", new ShardHome("12", region1, 5, true)),
        new Sample("ShardStarted", new ShardingProtocol.ShardStarted("12", region1)),
        new Sample("GetCurrentRegions", new GetCurrentRegions(asker)),
        new Sample("CurrentRegions", new CurrentRegions(Set.of(region1, region2))),
        new Sample("GetRegionStats", new GetRegionStats(asker)),
        new Sample("RegionStats", new RegionStats(counts)),
        new Sample("ShardingEnvelope", new ShardingEnvelope<>("id-1", "hello")),
        new Sample("Passivate", new Passivate(entity)),
        new Sample("BeginHandOffWithTerm", new BeginHandOff("12", region1, Set.of(region1, region2, proxy), -123_456,
            Long.MAX_VALUE)),
        new Sample("HandOffMarker", new HandOffMarker("12", region2, 7)),
        new Sample("ShardStopped", new ShardStopped("12", region1, Integer.MIN_VALUE)),
        new Sample("BeginHandOffIfUnstarted", new BeginHandOff("12", region1, Set.of(region1), 42, 9, true)),
        new Sample("HandOffDeclined", new HandOffDeclined("12", region1, -42)),
        new Sample("GracefulShutdownReq", new GracefulShutdownReq(region2)),
        // Compact items: the third shares the first's type, the fourth its serializer and manifest too,
        // the fifth only the serializer and manifest.
        new Sample("DeliveryBatchCompact", new DeliveryBatch(link, 1L << 40, List.of(
            new Deliver("Counter", "12", "id-1", "hello"),
            new HandOffMarker("12", region1, 7),
            new Deliver("Counter", "13", "id-ü", 42),
            new Deliver("Counter", "14", "id-3", 43),
            new Deliver("Blob", "7", "b-1", 44)))),
        // A link's probe when nothing is in flight: a batch with no items.
        new Sample("DeliveryBatchEmpty", new DeliveryBatch(link, 7, List.of())),
        new Sample("DeliveryAckReadsCompact", new DeliveryAck(Long.MAX_VALUE, true)),
        new Sample("DeliveryAckNoResendReadsCompact", new DeliveryAck(0, false)),
        new Sample("ShardRefused", new ShardRefused("1000", "outside 0..999")),
        new Sample("ShardHomes", new ShardHomes(Map.of("12", region1, "13", region2, "shard-ä", region1),
            (1L << 40) + 3)));
  }

  /**
   * Samples whose golden files were written before the coordinator's term was appended to these
   * messages in format 1 (and in format 0), or before batches had compact items and
   * acknowledgements said their sender reads them: they are read, with the appended fields'
   * defaults, and no longer written. Their names stay those of the files.
   */
  static List<Sample> shardingSamplesBeforeTerms(ActorSystem<?> system) {
    Refs r = Refs.in(ActorRefResolver.get(system));
    return List.of(
        new Sample("RegisterAck", new RegisterAck(r.coordinator(), RegisterAck.NO_TERM)),
        new Sample("ShardHome", new ShardHome("12", r.region1(), RegisterAck.NO_TERM)),
        new Sample("BeginHandOff", new BeginHandOff("12", r.region1(), Set.of(r.region1(), r.region2(), r.proxy()),
            -123_456, RegisterAck.NO_TERM)),
        new Sample("DeliveryBatch", new DeliveryBatch(r.link(), 1L << 40, List.of(
            new Deliver("Counter", "12", "id-1", "hello"),
            new HandOffMarker("12", r.region1(), 7),
            new Deliver("Counter", "13", "id-ü", 42)))),
        new Sample("DeliveryAck", new DeliveryAck(Long.MAX_VALUE, true, false)),
        new Sample("DeliveryAckNoResend", new DeliveryAck(0, false, false)));
  }

  /** One value of every message {@link GateSerializer} writes. */
  static List<Sample> gateSamples(ActorSystem<?> system) {
    ActorRefResolver resolver = ActorRefResolver.get(system);
    ActorRef<Object> keeper = ref(resolver, "10.0.0.1", "/system/shardkit-gate-keeper#808");
    return List.of(
        new Sample("ConfirmMember", new ConfirmMember(42, -7_000_000_000L, keeper)),
        new Sample("MemberConfirmed", new MemberConfirmed(Long.MAX_VALUE, keeper, true)),
        new Sample("MemberConfirmedNotCurrent", new MemberConfirmed(1, keeper, false)));
  }

  /** The serializer Pekko uses for {@code value} in {@code system}. */
  static SerializerWithStringManifest serializerFor(ActorSystem<?> system, Object value) {
    return (SerializerWithStringManifest) SerializationExtension.get(Adapter.toClassic(system))
        .findSerializerFor(value);
  }

  /**
   * The files of one format version: {@code manifests.properties} names each sample's file
   * ({@code <sample>.bin}) and the manifest it was written under.
   */
  record Version(Path dir, Map<String, String> manifests) {
    static Version read(Path dir) {
      Properties p = new Properties();
      try (InputStream in = Files.newInputStream(dir.resolve("manifests.properties"))) {
        p.load(in);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      Map<String, String> manifests = new TreeMap<>();
      p.stringPropertyNames().forEach(file -> manifests.put(file.substring(0, file.length() - 4), p.getProperty(file)));
      return new Version(dir, manifests);
    }

    byte[] bytes(String sample) {
      try {
        return Files.readAllBytes(dir.resolve(sample + ".bin"));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    /**
     * Writes the samples as this build writes them into {@code dir}, keeping the files (and their
     * manifests) of samples it no longer writes.
     */
    static void write(ActorSystem<?> system, List<Sample> samples, Path dir) throws IOException {
      Files.createDirectories(dir);
      StringBuilder lines = new StringBuilder("# Each sample's file and the manifest it was written under.\n");
      if (Files.exists(dir.resolve("manifests.properties"))) {
        Set<String> written = samples.stream().map(Sample::name).collect(java.util.stream.Collectors.toSet());
        read(dir).manifests().forEach((name, manifest) -> {
          if (!written.contains(name)) {
            lines.append(name).append(".bin=").append(manifest).append('\n');
          }
        });
      }
      for (Sample sample : samples) {
        SerializerWithStringManifest serializer = serializerFor(system, sample.value());
        Files.write(dir.resolve(sample.name() + ".bin"), serializer.toBinary(sample.value()));
        lines.append(sample.name()).append(".bin=").append(serializer.manifest(sample.value())).append('\n');
      }
      Files.writeString(dir.resolve("manifests.properties"), lines);
    }
  }

  /**
   * Writes this build's golden files of both serializers under {@code args[0]} (the {@code golden}
   * resource directory), in the directory of each one's current format version.
   */
  public static void main(String[] args) throws IOException {
    Path root = Path.of(args[0]);
    ActorSystem<Void> system = system();
    try {
      Version.write(system, shardingSamples(system), root.resolve(SHARDING).resolve("v" + shardingVersion()));
      Version.write(system, gateSamples(system), root.resolve(GATE).resolve("v" + gateVersion()));
    } finally {
      system.terminate();
      system.getWhenTerminated().toCompletableFuture().join();
    }
  }

  /** The format version the sharding serializer writes. */
  static int shardingVersion() {
    return ShardingSerializer.FORMAT;
  }

  /** The format version the gate serializer writes. */
  static int gateVersion() {
    return GateSerializer.FORMAT;
  }
}
