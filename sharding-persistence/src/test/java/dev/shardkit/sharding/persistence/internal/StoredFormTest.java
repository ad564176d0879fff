package dev.shardkit.sharding.persistence.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.testsupport.persistence.StoreTestSupport;
import dev.shardkit.sharding.spi.CoordinatorEvent;
import dev.shardkit.sharding.spi.CoordinatorEvent.ProxyRegistered;
import dev.shardkit.sharding.spi.CoordinatorEvent.ProxyTerminated;
import dev.shardkit.sharding.spi.CoordinatorEvent.RegionRegistered;
import dev.shardkit.sharding.spi.CoordinatorEvent.RegionTerminated;
import dev.shardkit.sharding.spi.CoordinatorEvent.ShardHomeAllocated;
import dev.shardkit.sharding.spi.CoordinatorEvent.ShardHomeDeallocated;
import dev.shardkit.sharding.spi.CoordinatorState;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.serialization.Serialization;
import org.apache.pekko.serialization.SerializationExtension;
import org.apache.pekko.serialization.Serializers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The stored form round-trips through Pekko serialization into another actor system, carries its
 * schema version, and refuses what it cannot read with a clear message.
 */
class StoredFormTest {
  private static ActorSystem<Void> writer;
  private static ActorSystem<Void> reader;
  private static ActorRef<Object> r1;
  private static ActorRef<Object> r2;
  private static ActorRef<Object> p1;

  @BeforeAll
  static void start() {
    writer = StoreTestSupport.system("Writer", "");
    reader = StoreTestSupport.system("Reader", "");
    r1 = writer.systemActorOf(Behaviors.empty(), "region-1", org.apache.pekko.actor.typed.Props.empty());
    r2 = writer.systemActorOf(Behaviors.empty(), "region-2", org.apache.pekko.actor.typed.Props.empty());
    p1 = writer.systemActorOf(Behaviors.empty(), "proxy-1", org.apache.pekko.actor.typed.Props.empty());
  }

  @AfterAll
  static void stop() {
    StoreTestSupport.terminate(writer);
    StoreTestSupport.terminate(reader);
  }

  /** Through the writer's serialization out and the reader's back, as through a journal. */
  private static Object viaSerialization(Object stored, String expectedManifestSuffix) {
    Serialization out = SerializationExtension.get(Adapter.toClassic(writer));
    var serializer = out.findSerializerFor(stored);
    String manifest = Serializers.manifestFor(serializer, stored);
    assertEquals(stored.getClass().getName() + expectedManifestSuffix, manifest);
    assertEquals(SerializationExtension.get(Adapter.toClassic(writer)).serializerByIdentity()
        .get(serializer.identifier()).get().getClass().getName(),
        "org.apache.pekko.serialization.jackson.JacksonJsonSerializer");
    byte[] bytes = out.serialize(stored).get();
    return SerializationExtension.get(Adapter.toClassic(reader)).deserialize(bytes, serializer.identifier(), manifest)
        .get();
  }

  @Test
  void everyEventRoundTripsIntoAnotherSystem() {
    StoredForm out = new StoredForm(writer);
    StoredForm in = new StoredForm(reader);
    List<CoordinatorEvent> events = List.of(new RegionRegistered(r1), new ProxyRegistered(p1),
        new ShardHomeAllocated("42", r1), new ShardHomeDeallocated("42"), new RegionTerminated(r1),
        new ProxyTerminated(p1));
    for (CoordinatorEvent e : events) {
      StoredEvent back = (StoredEvent) viaSerialization(out.toStored(e), "#" + StoredRecordVersion.CURRENT);
      CoordinatorEvent read = in.fromStored(back);
      // The same stored form again: the reader resolved the same references.
      assertEquals(out.toStored(e), in.toStored(read), e.toString());
    }
  }

  @Test
  void aBatchRoundTripsIntoAnotherSystemAsTheSameEventsInTheSameOrderWritingEachReferenceOnce() {
    StoredForm out = new StoredForm(writer);
    List<CoordinatorEvent> events = List.of(new RegionRegistered(r2), new ShardHomeAllocated("b", r1),
        new ShardHomeAllocated("a", r2), new ShardHomeAllocated("c", r1), new ShardHomeDeallocated("a"),
        new ProxyRegistered(p1), new ShardHomeAllocated("a", r1), new RegionTerminated(r2), new ProxyTerminated(p1));
    StoredEventsBatch stored = out.toStored(events);
    assertEquals(3, stored.refs().size(), "each reference once: " + stored.refs());
    assertEquals(List.of("b", "a", "c", "a", "a"), stored.shardIds());
    StoredEventsBatch back = (StoredEventsBatch) viaSerialization(stored, "#" + StoredRecordVersion.CURRENT);
    assertEquals(stored, back);
    List<CoordinatorEvent> read = new StoredForm(reader).fromStored(back);
    assertEquals(events.size(), read.size());
    for (int i = 0; i < events.size(); i++) {
      assertEquals(out.toStored(events.get(i)), new StoredForm(reader).toStored(read.get(i)), "event " + i);
    }
  }

  @Test
  void aBatchThatDoesNotAddUpIsRefusedNamingWhatIsWrongAndAnInvalidShardIdInItIsLeftOut() {
    StoredForm in = new StoredForm(reader);
    String ref = new StoredForm(writer).toStored(new RegionRegistered(r1)).ref();
    StoredEventsBatch.KindRun twoAllocations = new StoredEventsBatch.KindRun(StoredEvent.Kind.SHARD_HOME_ALLOCATED, 2);
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> in.fromStored(
        new StoredEventsBatch(List.of(ref), List.of(twoAllocations), List.of(0, 0), List.of("1"))));
    assertTrue(e.getMessage().contains("fewer shard ids"), e.getMessage());
    e = assertThrows(IllegalStateException.class, () -> in.fromStored(
        new StoredEventsBatch(List.of(ref), List.of(twoAllocations), List.of(0, 1), List.of("1", "2"))));
    assertTrue(e.getMessage().contains("valid reference"), e.getMessage());
    e = assertThrows(IllegalStateException.class, () -> in.fromStored(
        new StoredEventsBatch(List.of(ref), List.of(twoAllocations), List.of(0, 0), List.of("1", "2", "3"))));
    assertTrue(e.getMessage().contains("more references or shard ids"), e.getMessage());
    e = assertThrows(IllegalStateException.class, () -> in.fromStored(new StoredEventsBatch(List.of(),
        List.of(new StoredEventsBatch.KindRun(StoredEvent.Kind.TAKEN_OVER, 1)), List.of(), List.of())));
    assertTrue(e.getMessage().contains("not one of coordinator events"), e.getMessage());
    e = assertThrows(IllegalStateException.class,
        () -> in.fromStored(new StoredEventsBatch(List.of(ref), null, List.of(), List.of())));
    assertTrue(e.getMessage().contains("lacks its refs, kinds"), e.getMessage());

    List<CoordinatorEvent> read = in.fromStored(
        new StoredEventsBatch(List.of(ref), List.of(twoAllocations), List.of(0, 0), List.of("", "2")));
    assertEquals(List.of("2"), read.stream().map(ev -> ((ShardHomeAllocated) ev).shardId()).toList());
    IllegalArgumentException invalid = assertThrows(IllegalArgumentException.class,
        () -> new StoredForm(writer).toStored(List.of(new ShardHomeAllocated("ok", r1), new ShardHomeAllocated("", r1))));
    assertTrue(invalid.getMessage().contains("empty"), invalid.getMessage());
  }

  @Test
  void aStoredEventIsReadableJsonNamingItsKind() {
    StoredEvent stored = new StoredForm(writer).toStored(new ShardHomeAllocated("42", r1));
    String json = new String(SerializationExtension.get(Adapter.toClassic(writer)).serialize(stored).get(),
        StandardCharsets.UTF_8);
    assertTrue(json.contains("\"kind\":\"SHARD_HOME_ALLOCATED\""), json);
    assertTrue(json.contains("\"shardId\":\"42\""), json);
    assertTrue(json.contains("region-1"), json);
  }

  @Test
  void aStateRoundTripsThroughItsSnapshot() {
    CoordinatorState state = CoordinatorState.empty()
        .applied(new RegionRegistered(r1)).applied(new RegionRegistered(r2)).applied(new ProxyRegistered(p1))
        .applied(new ShardHomeAllocated("b", r1)).applied(new ShardHomeAllocated("a", r1))
        .applied(new ShardHomeAllocated("c", r2));
    StoredForm out = new StoredForm(writer);
    StoredSnapshot back = (StoredSnapshot) viaSerialization(out.toStored(state), "#" + StoredRecordVersion.CURRENT);
    CoordinatorState read = new StoredForm(reader).fromStored(back);
    assertEquals(out.toStored(state), new StoredForm(reader).toStored(read));
    assertEquals(3, read.shards().size());
    assertEquals(List.of("b", "a"), read.regions().get(StoreTestSupport.resolveIn(reader, writer, r1)),
        "a region's shards keep their allocation order");
  }

  @Test
  void aRecordOfANewerSchemaVersionIsRefusedSayingSo() {
    StoredEvent stored = new StoredForm(writer).toStored(new RegionRegistered(r1));
    Serialization serialization = SerializationExtension.get(Adapter.toClassic(reader));
    var serializer = serialization.findSerializerFor(stored);
    byte[] bytes = serialization.serialize(stored).get();
    String newer = StoredEvent.class.getName() + "#" + (StoredRecordVersion.CURRENT + 1);
    Throwable failure = serialization.deserialize(bytes, serializer.identifier(), newer).failed().get();
    String text = StoreTestSupport.fullText(failure);
    assertTrue(text.contains("has schema version " + (StoredRecordVersion.CURRENT + 1)), text);
    assertTrue(text.contains("written by a newer shardkit"), text);
    assertTrue(text.contains("RemoveShardingData"), text);
  }

  @Test
  void incompleteOrInconsistentRecordsAreRefusedNamingWhatIsWrong() {
    StoredForm form = new StoredForm(reader);
    String ref = new StoredForm(writer).toStored(new RegionRegistered(r1)).ref();
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> form.fromStored(new StoredEvent(StoredEvent.Kind.SHARD_HOME_ALLOCATED, ref, null)));
    assertTrue(e.getMessage().contains("lacks its shard id"), e.getMessage());
    e = assertThrows(IllegalStateException.class,
        () -> form.fromStored(new StoredEvent(StoredEvent.Kind.REGION_REGISTERED, null, null)));
    assertTrue(e.getMessage().contains("lacks an actor reference"), e.getMessage());
    e = assertThrows(IllegalStateException.class, () -> form.fromStored(new StoredEvent(null, ref, "1")));
    assertTrue(e.getMessage().contains("has no kind"), e.getMessage());
    // The same shard under two regions: the state's own rule refuses it.
    String other = new StoredForm(writer).toStored(new RegionRegistered(r2)).ref();
    e = assertThrows(IllegalStateException.class, () -> form.fromStored(new StoredSnapshot(List.of(
        new StoredSnapshot.Region(ref, List.of("1")), new StoredSnapshot.Region(other, List.of("1"))), List.of())));
    assertTrue(e.getMessage().contains("already has a home"), e.getMessage());
  }

  @Test
  void anInvalidShardIdIsNeverWrittenAndOneAlreadyStoredIsLeftOutSoTheStateStillLoads() {
    StoredForm out = new StoredForm(writer);
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> out.toStored(new ShardHomeAllocated("", r1)));
    assertTrue(e.getMessage().contains("persistence coordinator state store") && e.getMessage().contains("empty"),
        e.getMessage());
    CoordinatorState withEmpty = CoordinatorState.empty().applied(new RegionRegistered(r1))
        .applied(new ShardHomeAllocated("", r1));
    e = assertThrows(IllegalArgumentException.class, () -> out.toStored(withEmpty));
    assertTrue(e.getMessage().contains("shard id is empty"), e.getMessage());

    // What an older build may have stored: replay skips the event, a snapshot leaves the shard out.
    StoredForm in = new StoredForm(reader);
    String ref = out.toStored(new RegionRegistered(r1)).ref();
    assertTrue(in.eventAdapter().fromJournal(new StoredEvent(StoredEvent.Kind.SHARD_HOME_ALLOCATED, ref, ""), "")
        .events().isEmpty());
    assertTrue(in.eventAdapter().fromJournal(new StoredEvent(StoredEvent.Kind.SHARD_HOME_DEALLOCATED, null, null), "")
        .events().isEmpty());
    CoordinatorState loaded = in.fromStored(new StoredSnapshot(
        List.of(new StoredSnapshot.Region(ref, java.util.Arrays.asList("1", "", null, "2"))), List.of()));
    assertEquals(java.util.Set.of("1", "2"), loaded.shards().keySet());
  }
}
