package dev.shardkit.sharding.internal.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.internal.gate.GateProtocol.ConfirmMember;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.BeginHandOff;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.CurrentRegions;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.Deliver;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.DeliveryBatch;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.HandOffMarker;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.RegionStats;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.Register;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.ShardHome;
import java.io.NotSerializableException;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorRefResolver;
import org.apache.pekko.actor.typed.ActorSystem;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What the format version and the sections of the wire formats promise: bytes a later shardkit
 * extended (fields appended to a message, to a collection element, to a batch item) read as the
 * message this version knows, and a newer format version is refused, naming it.
 */
class WireFormatVersionsTest {
  private static ActorSystem<Void> system;
  private static ShardingSerializer sharding;
  private static GateSerializer gate;
  private static ActorRefResolver resolver;
  private static ActorRef<Object> r1;
  private static ActorRef<Object> r2;

  @BeforeAll
  static void start() {
    system = WireGolden.system();
    resolver = ActorRefResolver.get(system);
    r1 = resolver.resolveActorRef("pekko://Golden@10.0.0.1:25520/system/sharding/Counter#1");
    r2 = resolver.resolveActorRef("pekko://Golden@10.0.0.2:25520/system/sharding/Counter#2");
    sharding = (ShardingSerializer) WireGolden.serializerFor(system, new ShardHome("1", r1, 1));
    gate = (GateSerializer) WireGolden.serializerFor(system, new ConfirmMember(1, 2, r1));
  }

  @AfterAll
  static void stop() {
    system.terminate();
  }

  private static String ref(ActorRef<?> ref) {
    return resolver.toSerializationFormat(ref);
  }

  /** A field of a kind this version has never seen, as a later version might append it. */
  private static void future(BinaryWriter w) {
    w.writeString("a field from the future");
    w.writeVarULong(1L << 50);
    w.writeSection(s -> s.writeString("with a section of its own"));
  }

  private static Object read(BinaryWriter w, String manifest) throws NotSerializableException {
    return sharding.fromBinary(w.toByteArray(), manifest);
  }

  @Test
  void fieldsAppendedToCollectionElementsAndToTheMessageAreSkipped() throws Exception {
    BinaryWriter register = new BinaryWriter(64);
    register.writeString(ref(r1));
    register.writeVarUInt(2);
    register.writeSection(e -> {
      e.writeString("12");
      future(e);
    });
    register.writeSection(e -> e.writeString("13"));
    future(register);
    assertEquals(new Register(r1, Set.of("12", "13")), read(register, "R1"));

    BinaryWriter regions = new BinaryWriter(64);
    regions.writeVarUInt(2);
    regions.writeSection(e -> {
      e.writeString(ref(r1));
      future(e);
    });
    regions.writeSection(e -> e.writeString(ref(r2)));
    future(regions);
    assertEquals(new CurrentRegions(Set.of(r1, r2)), read(regions, "CR1"));

    BinaryWriter stats = new BinaryWriter(64);
    stats.writeVarUInt(2);
    stats.writeSection(e -> {
      e.writeString("12");
      e.writeVarInt(-3);
      future(e);
    });
    stats.writeSection(e -> {
      e.writeString("13");
      e.writeVarInt(4);
    });
    assertEquals(new RegionStats(Map.of("12", -3, "13", 4)), read(stats, "S1"));

    BinaryWriter begin = new BinaryWriter(64);
    begin.writeString("12");
    begin.writeString(ref(r1));
    begin.writeVarUInt(2);
    begin.writeSection(e -> {
      e.writeString(ref(r1));
      future(e);
    });
    begin.writeSection(e -> e.writeString(ref(r2)));
    begin.writeVarInt(77);
    begin.writeVarULong(5);
    future(begin);
    assertEquals(new BeginHandOff("12", r1, Set.of(r1, r2), 77, 5), read(begin, "BH1"));

    BinaryWriter home = new BinaryWriter(64);
    home.writeString("12");
    home.writeString(ref(r2));
    home.writeVarULong(6);
    future(home);
    assertEquals(new ShardHome("12", r2, 6), read(home, "H1"));
  }

  @Test
  void fieldsAppendedToBatchItemsAreSkippedAndAnItemOfAnUnknownTagIsReportedAlone() throws Exception {
    Deliver deliver = new Deliver("Counter", "12", "id-1", "hello");
    byte[] deliverFields = sharding.encodeItem(deliver).bytes();
    BinaryWriter batch = new BinaryWriter(128);
    batch.writeString(ref(r1));
    batch.writeVarULong(5);
    batch.writeVarUInt(3);
    batch.writeByte(ShardingSerializer.ITEM_DELIVER);
    batch.writeSection(item -> {
      BinaryReader fields = new BinaryReader(deliverFields);
      item.writeString(fields.readString());
      item.writeString(fields.readString());
      item.writeString(fields.readString());
      item.writeVarInt(fields.readVarInt());
      item.writeString(fields.readString());
      item.writeBytes(fields.readBytes());
      future(item);
    });
    batch.writeByte((byte) 'Q');
    batch.writeSection(WireFormatVersionsTest::future);
    batch.writeByte(ShardingSerializer.ITEM_MARKER);
    batch.writeSection(item -> {
      item.writeString("12");
      item.writeString(ref(r2));
      item.writeVarInt(9);
      future(item);
    });
    future(batch);
    DeliveryBatch read = (DeliveryBatch) read(batch, "DB1");
    assertEquals(5, read.seq());
    assertEquals(deliver, read.items().get(0));
    assertInstanceOf(ShardingProtocol.UndeliverableItem.class, read.items().get(1));
    assertEquals(new HandOffMarker("12", r2, 9), read.items().get(2));
  }

  @Test
  void anElementThatReadsPastItsSectionIsRefusedNotMisread() {
    BinaryWriter stats = new BinaryWriter(64);
    stats.writeVarUInt(2);
    // The count's varint is cut off by the section's end; the bytes after it belong to the next element.
    stats.writeSection(e -> e.writeString("12"));
    stats.writeSection(e -> {
      e.writeString("13");
      e.writeVarInt(4);
    });
    NotSerializableException e = assertThrows(NotSerializableException.class, () -> read(stats, "S1"));
    assertTrue(e.getMessage().contains("section"), e.getMessage());
  }

  @Test
  void gateMessagesWithAppendedFieldsRead() throws Exception {
    ConfirmMember question = new ConfirmMember(3, -4, r1);
    byte[] bytes = gate.toBinary(question);
    byte[] longer = Arrays.copyOf(bytes, bytes.length + 5);
    assertEquals(question, gate.fromBinary(longer, "C1"));
  }

  @Test
  void aNewerFormatVersionIsRefusedNamingItAndTheVersionThisOneReads() {
    byte[] bytes = sharding.toBinary(new ShardHome("12", r1, 1));
    for (String manifest : List.of("H2", "DB2", "D17")) {
      NotSerializableException e = assertThrows(NotSerializableException.class,
          () -> sharding.fromBinary(bytes, manifest));
      String code = manifest.replaceAll("\\d", "");
      assertTrue(e.getMessage().contains("[" + code + "] of format version " + manifest.substring(code.length())),
          e.getMessage());
      assertTrue(e.getMessage().contains("reads format versions up to " + ShardingSerializer.FORMAT), e.getMessage());
    }
    NotSerializableException e = assertThrows(NotSerializableException.class,
        () -> gate.fromBinary(gate.toBinary(new ConfirmMember(1, 2, r1)), "C2"));
    assertTrue(e.getMessage().contains("[C] of format version 2"), e.getMessage());
  }

  @Test
  void thisVersionWritesItsFormatAndReadsFormatZeroToo() throws Exception {
    ShardHome home = new ShardHome("12", r1, 4);
    assertEquals("H" + ShardingSerializer.FORMAT, sharding.manifest(home));
    // ShardHome has no collection, so its bytes are the same in format 0.
    assertEquals(home, sharding.fromBinary(sharding.toBinary(home), "H"));
    assertEquals("C" + GateSerializer.FORMAT, gate.manifest(new ConfirmMember(1, 2, r1)));
  }

  @Test
  void manifestsSplitIntoCodeAndVersion() {
    assertEquals(new WireManifest("DB", 0), WireManifest.parse("DB"));
    assertEquals(new WireManifest("DB", 1), WireManifest.parse("DB1"));
    assertEquals(new WireManifest("H", 12), WireManifest.parse("H12"));
    assertEquals(new WireManifest("", 0), WireManifest.parse(""));
    assertEquals(new WireManifest("D", Integer.MAX_VALUE), WireManifest.parse("D99999999999999999999"));
  }

  @Test
  void sectionsOfEveryLengthReadBackAndAreSkippedPastWhatTheReaderKnows() {
    for (int length : List.of(0, 1, 126, 127, 128, 300, 16_383, 16_384, 70_000)) {
      BinaryWriter w = new BinaryWriter(4);
      w.writeVarUInt(7);
      w.writeSection(s -> {
        s.writeString("x".repeat(length));
        s.writeVarUInt(length);
      });
      w.writeVarUInt(8);
      BinaryReader r = new BinaryReader(w.toByteArray());
      assertEquals(7, r.readVarUInt());
      // Reads only the string, as a reader that does not know the count would.
      assertEquals("x".repeat(length), r.readSection(BinaryReader::readString), "length " + length);
      assertEquals(8, r.readVarUInt(), "length " + length);
      assertEquals(0, r.remaining());
    }
  }
}
