package dev.shardkit.sharding.internal.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.shardkit.sharding.Passivate;
import dev.shardkit.sharding.ShardingEnvelope;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.BeginHandOff;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.CurrentRegions;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.Deliver;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.GetCurrentRegions;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.GetRegionStats;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.GetShardHome;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.RegionStats;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.Register;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.RegisterAck;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.RegisterProxy;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.ShardHome;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.ShardHomes;
import java.io.NotSerializableException;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.pekko.actor.ExtendedActorSystem;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorRefResolver;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.serialization.Serialization;
import org.apache.pekko.serialization.SerializationExtension;
import org.apache.pekko.serialization.Serializer;
import org.apache.pekko.serialization.SerializerWithStringManifest;
import org.apache.pekko.serialization.Serializers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class ShardingSerializerTest {

  /** Bound to jackson-cbor in the test config, as an application would bind its messages. */
  public interface CborMessage {}

  public record Greeting(String text, int times) implements CborMessage {}

  public record Reply(String text, ActorRef<String> replyTo) implements CborMessage {}

  /** Bound to {@link ExplodingSerializer}. */
  public interface Exploding {}

  public record Boom(String why) implements Exploding {}

  /** No binding at all and not Serializable. */
  public record Unbound(int x) {}

  /** Serializable, so only Java serialization would take it, and that is disabled. */
  public record JavaOnly(int x) implements Serializable {}

  /** A serializer whose toBinary always fails, standing in for a broken user serializer. */
  public static final class ExplodingSerializer extends SerializerWithStringManifest {
    public ExplodingSerializer(ExtendedActorSystem system) {}

    @Override
    public int identifier() {
      return 7_999_001;
    }

    @Override
    public String manifest(Object o) {
      return "B";
    }

    @Override
    public byte[] toBinary(Object o) {
      throw new IllegalStateException("boom: " + ((Boom) o).why());
    }

    @Override
    public Object fromBinary(byte[] bytes, String manifest) {
      throw new IllegalStateException("never written");
    }
  }

  private static final Config CONFIG = ConfigFactory.parseString(String.join("\n",
      "pekko.actor.provider = cluster",
      "pekko.remote.artery.canonical.port = 0",
      "pekko.remote.artery.canonical.hostname = 127.0.0.1",
      // The default, spelled out because one test depends on it.
      "pekko.actor.allow-java-serialization = off",
      // Pekko warns about "using" the Java serializer even when it is disabled and will refuse.
      "pekko.actor.warn-about-java-serializer-usage = off",
      "pekko.actor.serializers.exploding = \"" + ExplodingSerializer.class.getName() + "\"",
      "pekko.actor.serialization-bindings {",
      "  \"" + CborMessage.class.getName() + "\" = jackson-cbor",
      "  \"" + Exploding.class.getName() + "\" = exploding",
      "}"));

  private static ActorTestKit testKit;
  private static Serialization serialization;
  private static ActorRefResolver resolver;
  private static TestProbe<Object> probe;
  private static ActorRef<Object> regionRef;
  private static ActorRef<Object> coordinatorRef;
  private static ActorRef<Object> remoteRef;

  @BeforeAll
  static void start() {
    testKit = ActorTestKit.create("ShardingSerializerTest", CONFIG);
    serialization = SerializationExtension.get(testKit.system());
    resolver = ActorRefResolver.get(testKit.system());
    probe = testKit.createTestProbe(Object.class);
    regionRef = testKit.spawn(Behaviors.empty(), "region");
    coordinatorRef = testKit.spawn(Behaviors.empty(), "coordinator");
    // A ref on another node: resolved, never contacted.
    remoteRef = resolver.resolveActorRef("pekko://ShardingSerializerTest@127.0.0.2:25520/user/region#12345");
  }

  @AfterAll
  static void stop() {
    testKit.shutdownTestKit();
  }

  /** One sample of every message type the serializer is bound to. */
  static Stream<Object> everyMessageType() {
    Map<String, Integer> counts = new LinkedHashMap<>();
    counts.put("0", 3);
    counts.put("17", 0);
    counts.put("99", 1_000_000);
    return Stream.of(
        new Deliver("Counter", "12", "id-1", "hello"),
        new Register(regionRef, Set.of("1", "shard-ä")),
        new RegisterProxy(probe.getRef()),
        new RegisterAck(coordinatorRef, 3),
        new GetShardHome("12", regionRef),
        new ShardHome("12", remoteRef, 1L << 33),
        new GetCurrentRegions(probe.getRef()),
        new CurrentRegions(Set.of(regionRef, remoteRef, probe.getRef())),
        new GetRegionStats(probe.getRef()),
        new RegionStats(counts),
        new ShardingEnvelope<>("id-1", "hello"),
        new Passivate(regionRef),
        new BeginHandOff("12", regionRef, Set.of(regionRef, remoteRef), -123_456_789, 9),
        new ShardingProtocol.HandOffMarker("12", remoteRef, Integer.MIN_VALUE),
        new ShardingProtocol.ShardStopped("12", regionRef, Integer.MAX_VALUE),
        new BeginHandOff("12", regionRef, Set.of(regionRef, remoteRef), 77, 9, true),
        new ShardingProtocol.HandOffDeclined("12", regionRef, Integer.MIN_VALUE),
        new ShardingProtocol.GracefulShutdownReq(regionRef),
        new ShardingProtocol.DeliveryBatch(regionRef, 1L << 40, List.of(
            new Deliver("Counter", "12", "id-1", "hello"),
            new ShardingProtocol.HandOffMarker("12", remoteRef, 7),
            new Deliver("Counter", "13", "id-ü", new Greeting("hi", 2)))),
        new ShardingProtocol.DeliveryAck(Long.MAX_VALUE, true));
  }

  @ParameterizedTest
  @MethodSource("everyMessageType")
  void roundTripsEveryMessageTypeThroughPekkoSerialization(Object message) {
    Object back = roundTrip(message);
    assertEquals(message, back);
    assertSame(message.getClass(), back.getClass());
  }

  @Test
  void isTheBoundSerializerWithItsIdentifierAndShortDistinctManifests() {
    List<Object> messages = everyMessageType().collect(Collectors.toList());
    Set<String> manifests = new HashSet<>();
    for (Object message : messages) {
      Serializer serializer = serialization.findSerializerFor(message);
      assertInstanceOf(ShardingSerializer.class, serializer, "serializer for " + message.getClass());
      assertEquals(7241, serializer.identifier());
      String manifest = Serializers.manifestFor(serializer, message);
      assertTrue(manifest.length() >= 1 && manifest.length() <= 3, "manifest [" + manifest + "]");
      manifests.add(manifest);
    }
    assertEquals(messages.size(), manifests.size(), "manifests must be distinct: " + manifests);
    assertInstanceOf(ShardingSerializer.class, serialization.serializerByIdentity().apply(7241));
  }

  @Test
  void resolvedRefsAreEqualAndReachTheSameActor() {
    Register back = (Register) roundTrip(new Register(probe.getRef(), Set.of()));
    assertEquals(probe.getRef(), back.region());
    assertEquals(probe.getRef().path(), back.region().path());
    back.region().tell("through the resolved ref");
    probe.expectMessage("through the resolved ref");

    Passivate passivate = (Passivate) roundTrip(new Passivate(regionRef));
    assertEquals(regionRef, passivate.entity());

    ShardHome home = (ShardHome) roundTrip(new ShardHome("7", remoteRef, 2));
    assertEquals(remoteRef, home.region());
    assertEquals(resolver.toSerializationFormat(remoteRef), resolver.toSerializationFormat(home.region()));
  }

  @Test
  void nestsAStringPayloadThroughPekkosStringSerializer() {
    Deliver deliver = new Deliver("Counter", "3", "id-1", "increment");
    assertEquals(deliver, roundTrip(deliver));
  }

  @Test
  void nestsAByteArrayPayload() {
    byte[] payload = {0, 1, 2, (byte) 0xFF, (byte) 0x80, 127};
    Deliver back = (Deliver) roundTrip(new Deliver("Blob", "1", "b", payload));
    assertArrayEquals(payload, (byte[]) back.message());
    ShardingEnvelope<?> envelope = (ShardingEnvelope<?>) roundTrip(new ShardingEnvelope<>("b", new byte[0]));
    assertArrayEquals(new byte[0], (byte[]) envelope.message());
  }

  @Test
  void nestsJacksonCborPayloadsIncludingOnesHoldingActorRefs() {
    Deliver deliver = new Deliver("Greeter", "5", "alice", new Greeting("hi", 3));
    assertEquals("jackson-cbor", serializerNameOf(deliver.message()));
    assertEquals(deliver, roundTrip(deliver));

    ActorRef<String> replyTo = testKit.createTestProbe(String.class).getRef();
    ShardingEnvelope<Reply> envelope = new ShardingEnvelope<>("bob", new Reply("ok", replyTo));
    assertEquals(envelope, roundTrip(envelope));
  }

  @Test
  void nestsOtherPekkoSerializersAndItself() {
    assertEquals(new Deliver("T", "1", "e", 42), roundTrip(new Deliver("T", "1", "e", 42)));
    assertEquals(new Deliver("T", "1", "e", -7L), roundTrip(new Deliver("T", "1", "e", -7L)));
    Deliver wrapped = new Deliver("T", "1", "e", new ShardingEnvelope<>("inner", new Greeting("deep", 1)));
    assertEquals(wrapped, roundTrip(wrapped));
  }

  @Test
  void aNullPayloadStaysNull() {
    ShardingEnvelope<?> back = (ShardingEnvelope<?>) roundTrip(new ShardingEnvelope<>("id", null));
    assertEquals("id", back.entityId());
    assertNull(back.message());
  }

  @Test
  void keepsUnicodeIdsExactly() {
    String entityId = "Zoë-日本語-Ωμέγα-𝄞-🙂";
    String shardId = "ß";
    Deliver deliver = new Deliver("Ünïcode.Type", shardId, entityId, "naïve ☃ payload");
    assertEquals(deliver, roundTrip(deliver));
    assertEquals(new ShardingEnvelope<>(entityId, "x"), roundTrip(new ShardingEnvelope<>(entityId, "x")));
    RegionStats stats = new RegionStats(Map.of(entityId, 1, "ß", 2));
    assertEquals(stats, roundTrip(stats));
  }

  @Test
  void keepsUnpairedSurrogatesEmptyStringsNullsAndLongStrings() {
    // Strict UTF-8 would turn these into '?', and the message would reach another entity.
    for (String id : List.of("\uD83D", "\uDE42", "a\uD83Db", "a\uDE42\uD83D", "\uD83D\uDE42\uD83D")) {
      assertEquals(new ShardingEnvelope<>(id, "x"), roundTrip(new ShardingEnvelope<>(id, "x")), "id " + Arrays.toString(id.toCharArray()));
    }
    // An envelope's entity id is the user's, judged by the extractor: empty and null travel.
    assertEquals(new ShardingEnvelope<>("", "x"), roundTrip(new ShardingEnvelope<>("", "x")));
    assertEquals(new ShardingEnvelope<>(null, "x"), roundTrip(new ShardingEnvelope<>(null, "x")));
    String longId = "é".repeat(20_000) + "x".repeat(300);
    assertEquals(new GetShardHome(longId, regionRef), roundTrip(new GetShardHome(longId, regionRef)));
  }

  @Test
  void refusesToWriteAMessageWithoutARequiredFieldNamingTheMessageAndTheField() {
    ShardingSerializer s = shardingSerializer();
    Map<Object, String> cases = new LinkedHashMap<>();
    cases.put(new Deliver("T", "", "e", "x"), "Deliver: the shard id is empty");
    cases.put(new Deliver("T", "1", null, "x"), "Deliver: the entity id is null");
    cases.put(new Deliver("", "1", "e", "x"), "Deliver: the required field [typeName] is empty");
    cases.put(new GetShardHome("1", null), "GetShardHome: the required field [region] is null");
    cases.put(new ShardHome(null, regionRef, 1), "ShardHome: the shard id is null");
    cases.put(new BeginHandOff("1", null, Set.of(), 1, 1), "BeginHandOff: the required field [owner] is null");
    cases.put(new Register(regionRef, Set.of("")), "Register: the shard id is empty");
    cases.put(new ShardingProtocol.RegisterAck(null, 1), "RegisterAck: the required field [coordinator] is null");
    cases.put(new ShardingProtocol.HandOffMarker("", regionRef, 1), "HandOffMarker: the shard id is empty");
    cases.put(new ShardingProtocol.ShardRefused("1", ""), "ShardRefused: the required field [reason] is empty");
    cases.put(new Passivate(null), "Passivate: the required field [entity] is null");
    cases.put(new ShardingProtocol.HandOffDeclined("", regionRef, 1), "HandOffDeclined: the shard id is empty");
    cases.put(new ShardHomes(Map.of("1", regionRef, "", regionRef), 1), "ShardHomes: the shard id is empty");
    Map<String, ActorRef<Object>> nullHome = new HashMap<>();
    nullHome.put("1", null);
    cases.put(new ShardHomes(nullHome, 1), "ShardHomes: the required field [homes] holds a null element");
    cases.forEach((message, problem) -> {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> s.toBinary(message));
      assertTrue(e.getMessage().contains(problem), e.getMessage());
    });
    // Inside a batch the item is refused on its own, before the batch is built.
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> s.encodeItem(new Deliver("T", "1", "", "x")));
    assertTrue(e.getMessage().contains("the entity id is empty"), e.getMessage());
  }

  @Test
  void refusesToReadAMessageWithoutARequiredFieldOrWithMalformedUtf8NamingTheManifestAndTheField() {
    ShardingSerializer s = shardingSerializer();
    String region = ActorRefResolver.get(testKit.system()).toSerializationFormat(regionRef);
    // Laid out as a writer without the checks would write them.
    BinaryWriter emptyShard = new BinaryWriter(64);
    emptyShard.writeString("");
    emptyShard.writeString(region);
    assertRefused(s, emptyShard.toByteArray(), "GH1", "GetShardHome: the shard id is empty");
    BinaryWriter noRegion = new BinaryWriter(64);
    noRegion.writeString("7");
    noRegion.writeString(null);
    assertRefused(s, noRegion.toByteArray(), "H1", "ShardHome: the required field [region] is null");
    BinaryWriter emptyRegion = new BinaryWriter(64);
    emptyRegion.writeString("7");
    emptyRegion.writeString("");
    assertRefused(s, emptyRegion.toByteArray(), "H1", "ShardHome: the required field [region] is null");
    BinaryWriter declinedByNobody = new BinaryWriter(64);
    declinedByNobody.writeString("7");
    declinedByNobody.writeString(null);
    declinedByNobody.writeVarInt(3);
    assertRefused(s, declinedByNobody.toByteArray(), "HD1", "HandOffDeclined: the required field [region] is null");
    BinaryWriter unstartedWithoutShard = new BinaryWriter(64);
    unstartedWithoutShard.writeString("");
    unstartedWithoutShard.writeString(region);
    unstartedWithoutShard.writeVarUInt(0);
    unstartedWithoutShard.writeVarInt(3);
    assertRefused(s, unstartedWithoutShard.toByteArray(), "BU1", "BeginHandOff: the shard id is empty");
    BinaryWriter noEntity = new BinaryWriter(64);
    noEntity.writeString("Counter");
    noEntity.writeString("12");
    noEntity.writeString("");
    Payload.writeString(noEntity);
    assertRefused(s, noEntity.toByteArray(), "D1", "Deliver: the entity id is empty");
    // "A" as an overlong two-byte sequence, and a continuation byte with nothing before it.
    assertRefused(s, new byte[] {3, (byte) 0xC1, (byte) 0x81}, "GH1", "overlong UTF-8");
    assertRefused(s, new byte[] {2, (byte) 0x80}, "GH1", "cannot start a UTF-8 sequence");
  }

  /** A String payload, as Pekko's string serializer writes it. */
  private static final class Payload {
    static void writeString(BinaryWriter w) {
      Serializer serializer = SerializationExtension.get(testKit.system()).findSerializerFor("x");
      w.writeVarInt(serializer.identifier());
      w.writeString(Serializers.manifestFor(serializer, "x"));
      w.writeBytes(serializer.toBinary("x"));
    }
  }

  @Test
  void shardHomesComeBackWholeWithTheirTermAndASingleRegionWrittenOnce() {
    Map<String, ActorRef<Object>> homes = new HashMap<>();
    for (int i = 0; i < 1000; i++) {
      homes.put(Integer.toString(i), i % 3 == 0 ? remoteRef : regionRef);
    }
    ShardHomes back = (ShardHomes) roundTrip(new ShardHomes(homes, 1L << 35));
    assertEquals(homes, back.homes());
    assertEquals(1L << 35, back.term());
    byte[] bytes = serialization.serialize(new ShardHomes(homes, 1)).get();
    int refChars = resolver.toSerializationFormat(remoteRef).length() + resolver.toSerializationFormat(regionRef).length();
    // Ids "0".."999" take 2 to 4 bytes each; a ref per home would add over 30 000 bytes.
    assertTrue(bytes.length < 4000 + refChars + 32, "grouped by region: " + bytes.length + " bytes");
  }

  @Test
  void shardHomesSentToManyRegionsAreEncodedOnce() throws Exception {
    Map<String, ActorRef<Object>> homes = new HashMap<>();
    for (int i = 0; i < 1000; i++) {
      homes.put(Integer.toString(i), i % 3 == 0 ? remoteRef : regionRef);
    }
    ShardingSerializer s = shardingSerializer();
    ShardHomes told = new ShardHomes(homes, 3);
    byte[] first = s.toBinary(told);
    assertSame(first, s.toBinary(told), "remoting serializes the message once per region: encoded once");
    assertSame(first, s.toBinary(new ShardHomes(new HashMap<>(homes), 3)), "an equal message, the same bytes");
    assertEquals(told, s.fromBinary(first, s.manifest(told)));
    homes.put("1000", regionRef);
    byte[] other = s.toBinary(new ShardHomes(homes, 3));
    assertTrue(other != first && other.length > first.length, "another message is encoded on its own");
  }

  @Test
  void refusesShardHomesThatGiveAShardTwoHomes() {
    ShardingSerializer s = shardingSerializer();
    BinaryWriter w = new BinaryWriter(256);
    w.writeVarULong(3);
    w.writeVarUInt(2);
    for (ActorRef<Object> region : List.of(regionRef, remoteRef)) {
      w.writeSection(e -> {
        e.writeString(resolver.toSerializationFormat(region));
        e.writeVarUInt(1);
        e.writeString("7");
      });
    }
    assertRefused(s, w.toByteArray(), "HH1", "shard [7] is given two homes");
  }

  private static void assertRefused(ShardingSerializer s, byte[] bytes, String manifest, String problem) {
    NotSerializableException e = assertThrows(NotSerializableException.class, () -> s.fromBinary(bytes, manifest));
    assertTrue(e.getMessage().contains("[" + manifest + "]") && e.getMessage().contains(problem), e.getMessage());
  }

  @Test
  void handlesEmptyAndLargerCollectionsAndExtremeCounts() {
    assertEquals(new CurrentRegions(Set.of()), roundTrip(new CurrentRegions(Set.of())));
    assertEquals(new RegionStats(Map.of()), roundTrip(new RegionStats(Map.of())));

    Map<String, Integer> counts = new HashMap<>();
    for (int i = 0; i < 500; i++) {
      counts.put("shard-" + i, i * 1000);
    }
    counts.put("min", Integer.MIN_VALUE);
    counts.put("max", Integer.MAX_VALUE);
    counts.put("minus-one", -1);
    assertEquals(new RegionStats(counts), roundTrip(new RegionStats(counts)));

    Set<ActorRef<Object>> regions = new HashSet<>();
    for (int i = 0; i < 50; i++) {
      regions.add(resolver.resolveActorRef("pekko://ShardingSerializerTest@10.0.0." + i + ":25520/system/sharding/Counter#" + i));
    }
    regions.add(regionRef);
    assertEquals(new CurrentRegions(regions), roundTrip(new CurrentRegions(regions)));
  }

  @Test
  void anUnboundPayloadFailsNamingTheClassTheEntityAndTheType() {
    Deliver deliver = new Deliver("Counter", "12", "id-1", new Unbound(1));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> shardingSerializer().toBinary(deliver));
    assertTrue(e.getMessage().startsWith("shardkit cannot serialize a message of class [" + Unbound.class.getName()
        + "] for entity [id-1] of type [Counter]: "), e.getMessage());
    assertTrue(e.getMessage().contains("serialization-bindings"), e.getMessage());

    // The same failure as Pekko reports it when asked to serialize the Deliver.
    Throwable viaPekko = serialization.serialize(deliver).failed().get();
    assertEquals(e.getMessage(), viaPekko.getMessage());
  }

  @Test
  void aPayloadOnlyJavaSerializationCouldTakeFailsSayingSo() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> shardingSerializer().toBinary(new Deliver("Counter", "12", "id-1", new JavaOnly(1))));
    assertTrue(e.getMessage().startsWith("shardkit cannot serialize a message of class [" + JavaOnly.class.getName()
        + "] for entity [id-1] of type [Counter]: "), e.getMessage());
    assertTrue(e.getMessage().contains("allow-java-serialization"), e.getMessage());
  }

  @Test
  void aFailingPayloadSerializerFailsNamingTheClassAndTheCause() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> shardingSerializer().toBinary(new Deliver("Counter", "12", "id-1", new Boom("kaput"))));
    assertTrue(e.getMessage().startsWith("shardkit cannot serialize a message of class [" + Boom.class.getName()
        + "] for entity [id-1] of type [Counter]: "), e.getMessage());
    assertTrue(e.getMessage().contains("boom: kaput"), e.getMessage());
    assertInstanceOf(IllegalStateException.class, e.getCause());
  }

  @Test
  void anUnserializableEnvelopePayloadFailsNamingTheClassAndTheEntity() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> shardingSerializer().toBinary(new ShardingEnvelope<>("user-7", new Unbound(2))));
    assertTrue(e.getMessage().contains("[" + Unbound.class.getName() + "]"), e.getMessage());
    assertTrue(e.getMessage().contains("[user-7]"), e.getMessage());
  }

  @Test
  void anUnknownManifestFailsNamingIt() {
    NotSerializableException e = assertThrows(NotSerializableException.class,
        () -> shardingSerializer().fromBinary(new byte[] {1, 2, 3}, "ZZ"));
    assertTrue(e.getMessage().contains("[ZZ]"), e.getMessage());

    Throwable viaPekko = serialization.deserialize(new byte[] {1, 2, 3}, 7241, "ZZ").failed().get();
    assertInstanceOf(NotSerializableException.class, viaPekko);
    assertTrue(viaPekko.getMessage().contains("[ZZ]"), viaPekko.getMessage());
  }

  @Test
  void truncatedBytesFailWithNotSerializableException() {
    byte[] bytes = shardingSerializer().toBinary(new Deliver("Counter", "12", "id-1", "hello"));
    for (int length = 0; length < bytes.length; length++) {
      byte[] cut = Arrays.copyOf(bytes, length);
      NotSerializableException e = assertThrows(NotSerializableException.class,
          () -> shardingSerializer().fromBinary(cut, ShardingSerializer.DELIVER), "cut at " + length);
      assertTrue(e.getMessage().contains("[D]"), e.getMessage());
    }
  }

  @Test
  void anUndeserializablePayloadFailsNamingTheEntityAndTheSerializerId() {
    BinaryWriter w = new BinaryWriter(32);
    w.writeString("Counter");
    w.writeString("12");
    w.writeString("id-1");
    w.writeVarInt(987_654);
    w.writeString("");
    w.writeBytes("x".getBytes(StandardCharsets.UTF_8));
    NotSerializableException e = assertThrows(NotSerializableException.class,
        () -> shardingSerializer().fromBinary(w.toByteArray(), ShardingSerializer.DELIVER));
    assertTrue(e.getMessage().contains("for entity [id-1] of type [Counter]"), e.getMessage());
    assertTrue(e.getMessage().contains("987654"), e.getMessage());
  }

  @Test
  void refusesObjectsItIsNotFor() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> shardingSerializer().toBinary("nope"));
    assertTrue(e.getMessage().contains("java.lang.String"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> shardingSerializer().manifest(42));
  }

  @Test
  void aSmallDeliverIsSmall() throws Exception {
    byte[] bytes = shardingSerializer().toBinary(new Deliver("Counter", "12", "id-1", "hello"));
    // Measured: 24 bytes (8 type name, 3 shard id, 5 entity id, 1 serializer id, 1 empty
    // manifest, 6 payload), against a 60-byte budget.
    assertTrue(bytes.length < 60, "Deliver took " + bytes.length + " bytes");
    assertNotNull(shardingSerializer().fromBinary(bytes, ShardingSerializer.DELIVER));
  }

  private static ShardingSerializer shardingSerializer() {
    return (ShardingSerializer) serialization.serializerByIdentity().apply(7241);
  }

  private static String serializerNameOf(Object message) {
    Serializer serializer = serialization.findSerializerFor(message);
    return serializer.getClass().getSimpleName().equals("JacksonCborSerializer") ? "jackson-cbor" : serializer.getClass().getName();
  }

  /** Serializes as remoting would: through the extension, with the manifest it reports. */
  private static Object roundTrip(Object message) {
    Serializer serializer = serialization.findSerializerFor(message);
    assertInstanceOf(ShardingSerializer.class, serializer);
    String manifest = Serializers.manifestFor(serializer, message);
    byte[] bytes = serialization.serialize(message).get();
    return serialization.deserialize(bytes, serializer.identifier(), manifest).get();
  }

  @Test
  void aBatchOfItemsEncodedByTheLinkReadsBackAsTheMessagesTheyCameFrom() {
    ShardingSerializer s = shardingSerializer();
    Deliver first = new Deliver("Counter", "1", "a", new Greeting("one", 1));
    ShardingProtocol.HandOffMarker marker = new ShardingProtocol.HandOffMarker("1", regionRef, 3);
    Deliver second = new Deliver("Counter", "1", "a", "two");
    var encoded = new ShardingProtocol.DeliveryBatch(probe.getRef(), 9,
        List.of(s.encodeItem(first), s.encodeItem(marker), s.encodeItem(second)));
    assertEquals(new ShardingProtocol.DeliveryBatch(probe.getRef(), 9, List.of(first, marker, second)),
        roundTrip(encoded));
  }

  @Test
  void anAcknowledgementWithoutAResendRequestStaysOne() {
    assertEquals(new ShardingProtocol.DeliveryAck(0, false), roundTrip(new ShardingProtocol.DeliveryAck(0, false)));
  }

  @Test
  void anItemWhosePayloadCannotBeReadDoesNotTakeTheRestOfItsBatchWithIt() throws Exception {
    ShardingSerializer s = shardingSerializer();
    BinaryWriter bad = new BinaryWriter(32);
    bad.writeString("Counter");
    bad.writeString("12");
    bad.writeString("id-bad");
    bad.writeVarInt(987_654);
    bad.writeString("");
    bad.writeBytes("x".getBytes(StandardCharsets.UTF_8));
    Deliver good = new Deliver("Counter", "12", "id-good", "fine");
    var batch = new ShardingProtocol.DeliveryBatch(probe.getRef(), 1, List.of(
        new EncodedItem(null, ShardingSerializer.ITEM_DELIVER, bad.toByteArray()),
        new EncodedItem(null, (byte) 'Z', new byte[] {1, 2, 3}),
        s.encodeItem(good)));
    var back = (ShardingProtocol.DeliveryBatch) s.fromBinary(s.toBinary(batch), ShardingSerializer.DELIVERY_BATCH);
    assertEquals(3, back.items().size());
    var unreadable = assertInstanceOf(ShardingProtocol.UndeliverableItem.class, back.items().get(0));
    assertEquals("id-bad", unreadable.entityId());
    assertEquals("Counter", unreadable.typeName());
    assertTrue(unreadable.reason().contains("987654"), unreadable.reason());
    var unknown = assertInstanceOf(ShardingProtocol.UndeliverableItem.class, back.items().get(1));
    assertTrue(unknown.reason().contains("0x5a"), unknown.reason());
    assertEquals(good, back.items().get(2));
  }

  @Test
  void encodingAnItemWithAnUnboundPayloadFailsNamingTheEntity() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> shardingSerializer().encodeItem(new Deliver("Counter", "12", "id-9", new Unbound(1))));
    assertTrue(e.getMessage().contains("id-9") && e.getMessage().contains(Unbound.class.getName()), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> shardingSerializer().encodeItem("not an item"));
  }
}
