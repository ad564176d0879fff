package dev.shardkit.sharding.internal.wire;

import static org.junit.jupiter.api.Assertions.assertTrue;

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
import dev.shardkit.sharding.internal.wire.ShardingProtocol.HandOffMarker;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.RegionStats;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.Register;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.RegisterAck;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.RegisterProxy;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.ShardHome;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.ShardHomes;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.ShardRefused;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.ShardStopped;
import dev.shardkit.sharding.testsupport.SerializerFuzz;
import dev.shardkit.sharding.testsupport.SerializerFuzz.Golden;
import dev.shardkit.sharding.testsupport.SerializerFuzz.Report;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorRefResolver;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.serialization.SerializationExtension;
import org.apache.pekko.serialization.SerializerWithStringManifest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Whatever bytes arrive under whatever manifest, shardkit's wire serializers answer with a message
 * whose required fields are all there, or with a {@link java.io.NotSerializableException}: never
 * another exception, which remoting would treat as a bug, and never an allocation the input
 * cannot justify. Seeded and reproducible (see {@link SerializerFuzz}).
 */
class WireFuzzTest {
  private static ActorSystem<Void> system;

  @BeforeAll
  static void start() {
    system = ActorSystem.create(Behaviors.empty(), "WireFuzz", ConfigFactory.parseString(String.join("\n",
        "pekko.actor.provider = cluster",
        "pekko.remote.artery.canonical.port = 0",
        "pekko.remote.artery.canonical.hostname = 127.0.0.1",
        "pekko.loglevel = WARNING")));
  }

  @AfterAll
  static void stop() {
    system.terminate();
  }

  private static ActorRef<Object> ref(String node, String path) {
    return ActorRefResolver.get(system).resolveActorRef("pekko://WireFuzz@" + node + ":25520" + path);
  }

  private static List<Golden> goldens(List<Object> messages) {
    List<Golden> goldens = new ArrayList<>();
    for (Object m : messages) {
      SerializerWithStringManifest s = serializer(m);
      goldens.add(new Golden(s.manifest(m), s.toBinary(m)));
    }
    return goldens;
  }

  private static SerializerWithStringManifest serializer(Object message) {
    return (SerializerWithStringManifest) SerializationExtension.get(Adapter.toClassic(system))
        .findSerializerFor(message);
  }

  /** Every manifest: each code in the format this build writes and in format 0, plus unknown and newer ones. */
  private static List<String> manifests(List<String> codes, int format) {
    List<String> manifests = new ArrayList<>();
    for (String code : codes) {
      manifests.add(code + format);
      manifests.add(code);
    }
    manifests.add("ZZ" + format);
    manifests.add(codes.get(0) + (format + 1));
    return manifests;
  }

  private static void assertOnlyRefusals(String what, Report report) {
    assertTrue(report.failures().isEmpty(), what + " with seed " + report.seed() + ": " + report.failures().size()
        + " input(s) broke the promise, e.g. " + report.failures().subList(0, Math.min(5, report.failures().size())));
    // Mutations that keep a message readable and ones that do not both occur, or the fuzzer
    // would not be exercising both paths.
    assertTrue(report.read() > report.inputs() / 100 && report.refused() > report.inputs() / 10,
        what + ": read " + report.read() + ", refused " + report.refused() + " of " + report.inputs());
  }

  @Test
  void theShardingSerializerRefusesEveryMalformedInputWithANotSerializableException() {
    ActorRef<Object> region1 = ref("10.0.0.1", "/system/shardkit-region-Cart#101");
    ActorRef<Object> region2 = ref("10.0.0.2", "/system/shardkit-region-Cart#202");
    ActorRef<Object> coordinator = ref("10.0.0.1", "/system/shardkit-coordinator-Cart/singleton#303");
    ActorRef<Object> link = ref("10.0.0.1", "/system/shardkit-region-Cart/link-2#404");
    ShardingSerializer sharding = (ShardingSerializer) serializer(new DeliveryAck(0, false));
    List<Object> messages = List.of(
        new Deliver("Cart", "12", "id-1", "hello"),
        new Deliver("Cart", "7", "b-\uD83D\uDE42", new ShardingEnvelope<>("inner", 42L)),
        new Register(region1, Set.of("12", "shard-ä")),
        new RegisterProxy(region2),
        new RegisterAck(coordinator, 7),
        new GetShardHome("12", region2),
        new ShardHome("12", region1, 1L << 33),
        new ShardRefused("1000", "outside 0..999"),
        new ShardHomes(Map.of("12", region1, "13", region2, "ü", region1), 9),
        new GetCurrentRegions(region2),
        new CurrentRegions(Set.of(region1, region2)),
        new GetRegionStats(region1),
        new RegionStats(Map.of("12", 3, "ü", -1)),
        new ShardingEnvelope<>("id-1", "hello"),
        new Passivate(region1),
        new BeginHandOff("12", region1, Set.of(region1, region2), -123_456, 5),
        new HandOffMarker("12", region2, 7),
        new ShardStopped("12", region1, Integer.MIN_VALUE),
        new GracefulShutdownReq(region2),
        // Compact items, sharing type name and serializer with the ones before them or not.
        new DeliveryBatch(link, 1L << 40, List.of(new Deliver("Cart", "12", "id-1", "hello"),
            new HandOffMarker("12", region1, 7), new Deliver("Cart", "13", "id-ü", 42),
            new Deliver("Cart", "14", "id-2", 43), new Deliver("Order", "15", "id-3", "again"))),
        // Items as every shardkit writes them, for a receiver that reads no compact ones.
        new DeliveryBatch(link, 3, List.of(sharding.encodeItem(new Deliver("Cart", "12", "id-1", "hello")),
            sharding.encodeItem(new HandOffMarker("12", region1, 7)))),
        new DeliveryAck(Long.MAX_VALUE, true));
    List<Golden> goldens = goldens(messages);
    List<String> codes = goldens.stream().map(g -> WireManifest.parse(g.manifest()).code()).distinct().toList();
    long seed = SerializerFuzz.seed("WireFuzzTest (ShardingSerializer)");
    Report report = SerializerFuzz.run(serializer(messages.get(0)), goldens,
        manifests(codes, ShardingSerializer.FORMAT), ProtocolFields::problem, seed, SerializerFuzz.inputs(100_000));
    assertOnlyRefusals("ShardingSerializer", report);
  }

  private static Optional<String> gateProblem(Object message) {
    boolean ref = message instanceof ConfirmMember c ? c.replyTo() != null
        : message instanceof MemberConfirmed m && m.from() != null;
    return ref ? Optional.empty() : Optional.of("no ref: " + message);
  }

  @Test
  void theGateSerializerRefusesEveryMalformedInputWithANotSerializableException() {
    ActorRef<Object> keeper = ref("10.0.0.1", "/system/shardkit-gate-keeper#808");
    List<Object> messages = List.of(new ConfirmMember(42, -7_000_000_000L, keeper),
        new MemberConfirmed(Long.MAX_VALUE, keeper, true));
    List<Golden> goldens = goldens(messages);
    long seed = SerializerFuzz.seed("WireFuzzTest (GateSerializer)");
    Report report = SerializerFuzz.run(serializer(messages.get(0)), goldens,
        manifests(List.of(GateSerializer.CONFIRM, GateSerializer.CONFIRMED), GateSerializer.FORMAT),
        WireFuzzTest::gateProblem, seed, SerializerFuzz.inputs(20_000));
    assertOnlyRefusals("GateSerializer", report);
  }
}
