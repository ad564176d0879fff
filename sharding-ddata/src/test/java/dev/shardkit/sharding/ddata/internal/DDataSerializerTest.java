package dev.shardkit.sharding.ddata.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.ddata.internal.CoordinatorStateRecord.Version;
import dev.shardkit.sharding.spi.CoordinatorEvent.ProxyRegistered;
import dev.shardkit.sharding.spi.CoordinatorEvent.RegionRegistered;
import dev.shardkit.sharding.spi.CoordinatorEvent.ShardHomeAllocated;
import dev.shardkit.sharding.internal.wire.BinaryWriter;
import dev.shardkit.sharding.spi.CoordinatorState;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.NotSerializableException;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorRefResolver;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.serialization.SerializationExtension;
import org.apache.pekko.serialization.Serializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class DDataSerializerTest {
  private static ActorTestKit testKit;
  private static DDataSerializer serializer;
  private static ActorRef<Object> r1;
  private static ActorRef<Object> r2;
  private static ActorRef<Object> p1;
  private static ActorRef<Object> p2;

  @BeforeAll
  static void start() {
    testKit = ActorTestKit.create();
    Serializer found = SerializationExtension.get(Adapter.toClassic(testKit.system()))
        .findSerializerFor(new CoordinatorStateRecord(new Version(1, 0, "w"), Version.NONE, CoordinatorState.empty()));
    // The binding in reference.conf picks this serializer.
    serializer = assertInstanceOf(DDataSerializer.class, found);
    r1 = testKit.createTestProbe(Object.class).ref().unsafeUpcast();
    r2 = testKit.createTestProbe(Object.class).ref().unsafeUpcast();
    p1 = testKit.createTestProbe(Object.class).ref().unsafeUpcast();
    p2 = testKit.createTestProbe(Object.class).ref().unsafeUpcast();
  }

  @AfterAll
  static void stop() {
    testKit.shutdownTestKit();
  }

  private static CoordinatorStateRecord sample() {
    CoordinatorState s = CoordinatorState.empty()
        .applied(new RegionRegistered(r2))
        .applied(new RegionRegistered(r1))
        .applied(new ProxyRegistered(p1))
        .applied(new ProxyRegistered(p2))
        // Unusual ids must come back exactly: non-ASCII, an unpaired surrogate, a blank id.
        .applied(new ShardHomeAllocated("42", r1))
        .applied(new ShardHomeAllocated("ünïcødé-\uD83D\uDE00", r2))
        .applied(new ShardHomeAllocated("lone-\uD800", r1))
        .applied(new ShardHomeAllocated(" ", r2))
        .applied(new ShardHomeAllocated("7", r1));
    return new CoordinatorStateRecord(new Version(3, 17, "pekko://Sys@10.0.0.1:2552#123/4"),
        new Version(3, 16, "pekko://Sys@10.0.0.1:2552#123/4"), s);
  }

  private static CoordinatorStateRecord roundTrip(CoordinatorStateRecord record) throws NotSerializableException {
    byte[] bytes = serializer.toBinary(record);
    return (CoordinatorStateRecord) serializer.fromBinary(bytes, serializer.manifest(record));
  }

  @Test
  void identifierAndManifest() {
    assertEquals(7242, serializer.identifier());
    assertEquals("C", serializer.manifest(sample()));
  }

  @Test
  void aRecordRoundTripsWithOrderAndRefsIntact() throws Exception {
    CoordinatorStateRecord record = sample();
    CoordinatorStateRecord back = roundTrip(record);
    assertEquals(record, back);
    assertEquals(record.version(), back.version());
    assertEquals(record.basis(), back.basis());
    // Registration order of regions and allocation order of shards survive.
    assertEquals(List.copyOf(record.state().regions().keySet()), List.copyOf(back.state().regions().keySet()));
    assertEquals(record.state().regions().get(r1), back.state().regions().get(r1));
    assertEquals(List.of("42", "lone-\uD800", "7"), back.state().regions().get(r1));
    assertEquals(record.state().shards(), back.state().shards());
    assertEquals(record.state().proxies(), back.state().proxies());
  }

  @Test
  void anEmptyStateRoundTrips() throws Exception {
    CoordinatorStateRecord empty = CoordinatorStateRecord.takeOver(Optional.empty(), 0, "w");
    CoordinatorStateRecord back = roundTrip(empty);
    assertEquals(empty, back);
    assertEquals(Version.NONE, back.basis());
  }

  @Test
  void equalRecordsGiveEqualBytes() {
    // Replicators compare digests of the bytes; proxies live in a set, whose order must not leak.
    CoordinatorState a = CoordinatorState.empty().applied(new ProxyRegistered(p1)).applied(new ProxyRegistered(p2));
    CoordinatorState b = CoordinatorState.empty().applied(new ProxyRegistered(p2)).applied(new ProxyRegistered(p1));
    Version v = new Version(1, 1, "w");
    assertArrayEquals(serializer.toBinary(new CoordinatorStateRecord(v, Version.NONE, a)),
        serializer.toBinary(new CoordinatorStateRecord(v, Version.NONE, b)));
  }

  @Test
  void anUnknownManifestIsAClearError() {
    NotSerializableException e = assertThrows(NotSerializableException.class,
        () -> serializer.fromBinary(serializer.toBinary(sample()), "X"));
    assertTrue(e.getMessage().contains("does not know the manifest [X]"), e.getMessage());
    assertTrue(e.getMessage().contains("7242"), e.getMessage());
  }

  @Test
  void somethingElseCannotBeSerialized() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> serializer.toBinary("text"));
    assertTrue(e.getMessage().contains("java.lang.String"), e.getMessage());
  }

  @Test
  void truncatedBytesAreAClearError() {
    byte[] bytes = serializer.toBinary(sample());
    for (int length : new int[] {0, 1, 9, 30, bytes.length / 2, bytes.length - 1}) {
      NotSerializableException e = assertThrows(NotSerializableException.class,
          () -> serializer.fromBinary(Arrays.copyOf(bytes, length), "C"), "cut at " + length);
      assertTrue(e.getMessage().contains("truncated or corrupt"), e.getMessage());
    }
  }

  @Test
  void anUnknownFormatIsAClearError() {
    byte[] bytes = serializer.toBinary(sample());
    bytes[0] = 9;
    NotSerializableException e = assertThrows(NotSerializableException.class, () -> serializer.fromBinary(bytes, "C"));
    assertTrue(e.getMessage().contains("format 9"), e.getMessage());
  }

  @Test
  void aCorruptCountIsAClearErrorAndAllocatesNothingHuge() throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(bytes);
    out.writeByte(1);
    for (int i = 0; i < 2; i++) {
      out.writeLong(1);
      out.writeLong(0);
      out.writeUTF("w");
    }
    out.writeInt(Integer.MAX_VALUE);
    NotSerializableException e = assertThrows(NotSerializableException.class,
        () -> serializer.fromBinary(bytes.toByteArray(), "C"));
    assertTrue(e.getMessage().contains("a count of 2147483647 regions"), e.getMessage());
  }

  @Test
  void aStateThatBreaksItsInvariantsIsAClearError() throws IOException {
    // One shard listed under two regions: a shard never has two homes.
    ActorRefResolver resolver = ActorRefResolver.get(testKit.system());
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(bytes);
    out.writeByte(1);
    for (int i = 0; i < 2; i++) {
      out.writeLong(1);
      out.writeLong(0);
      out.writeUTF("w");
    }
    out.writeInt(2);
    for (ActorRef<Object> region : List.of(r1, r2)) {
      out.writeUTF(resolver.toSerializationFormat(region));
      out.writeInt(1);
      out.writeUTF("s1");
    }
    out.writeInt(0);
    NotSerializableException e = assertThrows(NotSerializableException.class,
        () -> serializer.fromBinary(bytes.toByteArray(), "C"));
    assertTrue(e.getMessage().contains("truncated or corrupt"), e.getMessage());
    assertTrue(e.getMessage().contains("already has a home"), e.getMessage());
  }

  @Test
  void aNegativeTermIsAClearError() throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(bytes);
    out.writeByte(1);
    out.writeLong(-5);
    out.writeLong(0);
    out.writeUTF("w");
    NotSerializableException e = assertThrows(NotSerializableException.class,
        () -> serializer.fromBinary(bytes.toByteArray(), "C"));
    assertTrue(e.getMessage().contains("term -5"), e.getMessage());
  }

  @Test
  void aRecordWithFieldsAppendedByALaterVersionReads() throws NotSerializableException {
    // A later shardkit may append fields to a region, a shard, a proxy and the record (a zone, a
    // load, a term) without a new format; today's reader must skip them and read the rest.
    CoordinatorStateRecord record = sample();
    ActorRefResolver resolver = ActorRefResolver.get(testKit.system());
    BinaryWriter w = new BinaryWriter(256);
    w.writeByte((byte) DDataSerializer.FORMAT);
    for (Version v : List.of(record.version(), record.basis())) {
      w.writeVarULong(v.term());
      w.writeVarULong(v.seq());
      w.writeString(v.writer());
    }
    w.writeVarUInt(record.state().regions().size());
    record.state().regions().forEach((region, shards) -> w.writeSection(r -> {
      r.writeString(resolver.toSerializationFormat(region));
      r.writeVarUInt(shards.size());
      for (String shard : shards) {
        r.writeSection(s -> {
          s.writeString(shard);
          s.writeVarInt(-3);
        });
      }
      r.writeString("zone-a");
      r.writeSection(extra -> extra.writeBytes(new byte[] {1, 2, 3}));
    }));
    List<String> proxies = record.state().proxies().stream().map(resolver::toSerializationFormat).sorted().toList();
    w.writeVarUInt(proxies.size());
    for (String proxy : proxies) {
      w.writeSection(p -> {
        p.writeString(proxy);
        p.writeVarULong(99);
      });
    }
    w.writeVarULong(7);
    w.writeString("a field of the record this version does not know");

    Object read = serializer.fromBinary(w.toByteArray(), DDataSerializer.COORDINATOR_STATE);
    assertEquals(record, read);
    assertEquals(record.state().regions(), ((CoordinatorStateRecord) read).state().regions());
  }

  @Test
  void aStateWithAnInvalidShardIdOrRefIsNotWrittenAndOneWrittenByAnOlderBuildLeavesTheShardOut() throws Exception {
    CoordinatorState withEmpty = CoordinatorState.empty().applied(new RegionRegistered(r1))
        .applied(new ShardHomeAllocated("1", r1)).applied(new ShardHomeAllocated("", r1));
    CoordinatorStateRecord bad = new CoordinatorStateRecord(new Version(1, 1, "w"), Version.NONE, withEmpty);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> serializer.toBinary(bad));
    assertTrue(e.getMessage().contains("shard id is empty"), e.getMessage());
    // Laid out as a writer without the check wrote it: the record reads, without that shard.
    String region = ActorRefResolver.get(testKit.system()).toSerializationFormat(r1);
    BinaryWriter w = header();
    w.writeVarUInt(1);
    w.writeSection(r -> {
      r.writeString(region);
      r.writeVarUInt(2);
      r.writeSection(shard -> shard.writeString("1"));
      r.writeSection(shard -> shard.writeString(""));
    });
    w.writeVarUInt(0);
    CoordinatorStateRecord read = (CoordinatorStateRecord) serializer.fromBinary(w.toByteArray(), "C");
    assertEquals(List.of("1"), read.state().regions().get(r1));
    // A region without its ref is refused, naming the manifest and the field.
    BinaryWriter noRef = header();
    noRef.writeVarUInt(1);
    noRef.writeSection(r -> {
      r.writeString("");
      r.writeVarUInt(0);
    });
    noRef.writeVarUInt(0);
    NotSerializableException refused = assertThrows(NotSerializableException.class,
        () -> serializer.fromBinary(noRef.toByteArray(), "C"));
    assertTrue(refused.getMessage().contains("[C]") && refused.getMessage().contains("[region] is empty"),
        refused.getMessage());
  }

  private static BinaryWriter header() {
    BinaryWriter w = new BinaryWriter(64);
    w.writeByte((byte) DDataSerializer.FORMAT);
    for (int i = 0; i < 2; i++) {
      w.writeVarULong(1);
      w.writeVarULong(1 - i);
      w.writeString("w");
    }
    return w;
  }

  @Test
  void aNewerFormatIsRefusedNamingIt() {
    byte[] bytes = serializer.toBinary(sample());
    bytes[0] = (byte) (DDataSerializer.FORMAT + 1);
    NotSerializableException e = assertThrows(NotSerializableException.class, () -> serializer.fromBinary(bytes, "C"));
    assertTrue(e.getMessage().contains("format " + (DDataSerializer.FORMAT + 1)), e.getMessage());
    assertTrue(e.getMessage().contains("newer shardkit"), e.getMessage());
  }

  @Test
  void aFormat1RecordStillReads() throws IOException {
    // What shardkit wrote before format 2 may still be replicated or kept in LMDB.
    ActorRefResolver resolver = ActorRefResolver.get(testKit.system());
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(bytes);
    out.writeByte(DDataSerializer.FORMAT_1);
    out.writeLong(4);
    out.writeLong(2);
    out.writeUTF("w");
    out.writeLong(4);
    out.writeLong(1);
    out.writeUTF("w");
    out.writeInt(1);
    out.writeUTF(resolver.toSerializationFormat(r1));
    out.writeInt(2);
    out.writeUTF("b");
    out.writeUTF("a");
    out.writeInt(1);
    out.writeUTF(resolver.toSerializationFormat(p1));
    CoordinatorState expected = CoordinatorState.empty()
        .applied(new RegionRegistered(r1))
        .applied(new ProxyRegistered(p1))
        .applied(new ShardHomeAllocated("b", r1))
        .applied(new ShardHomeAllocated("a", r1));
    assertEquals(new CoordinatorStateRecord(new Version(4, 2, "w"), new Version(4, 1, "w"), expected),
        serializer.fromBinary(bytes.toByteArray(), "C"));
  }

  @Test
  void headsAndPartsAreBoundToThisSerializerAndSurviveTheTrip() throws Exception {
    var serialization = SerializationExtension.get(Adapter.toClassic(testKit.system()));
    Version v = new Version(5, 2, "w");
    PartVersions parts = PartVersions.all(new Version(5, 0, "w"), 3).with(v, 3, java.util.Set.of(2));
    CoordinatorStateHead head = new CoordinatorStateHead(v, new Version(5, 1, "w"), parts,
        PartVersions.all(new Version(5, 0, "w"), 3));
    CoordinatorStatePart part = new CoordinatorStatePart(v, new byte[] {1, 2, 3}, new Version(5, 0, "w"),
        new byte[] {1});
    CoordinatorStatePart first = new CoordinatorStatePart(v, new byte[0], null, null);
    for (Object value : List.of(head, part, first)) {
      assertInstanceOf(DDataSerializer.class, serialization.findSerializerFor(value));
      assertEquals(value, serializer.fromBinary(serializer.toBinary(value), serializer.manifest(value)));
    }
    assertEquals("H", serializer.manifest(head));
    assertEquals("P", serializer.manifest(part));
    byte[] newer = serializer.toBinary(head);
    newer[0] = 2;
    NotSerializableException e = assertThrows(NotSerializableException.class, () -> serializer.fromBinary(newer, "H"));
    assertTrue(e.getMessage().contains("coordinator state head (manifest [H]) in format 2")
        && e.getMessage().contains("written by a newer shardkit"), e.getMessage());
    byte[] cut = java.util.Arrays.copyOf(serializer.toBinary(part), 6);
    NotSerializableException truncated = assertThrows(NotSerializableException.class,
        () -> serializer.fromBinary(cut, "P"));
    assertTrue(truncated.getMessage().contains("coordinator state part (manifest [P]) of 6 bytes, truncated or corrupt"),
        truncated.getMessage());
  }
}
