package dev.shardkit.sharding.persistence.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import dev.shardkit.sharding.testsupport.persistence.StoreTestSupport;
import dev.shardkit.sharding.spi.CoordinatorState;
import dev.shardkit.sharding.testsupport.GoldenFiles;
import dev.shardkit.sharding.testsupport.GoldenFiles.Sample;
import dev.shardkit.sharding.testsupport.GoldenFiles.Stored;
import java.io.NotSerializableException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.serialization.SerializationExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Journal events and snapshots that earlier builds wrote (committed under
 * {@code golden/persistence/}, see {@link PersistenceGolden}) still read as the records they were
 * written from, and the coordinator's ones as the events and state they stored, for every schema
 * version; and this build writes its current version's golden files exactly.
 */
class PersistenceGoldenTest {
  private static ActorSystem<Void> system;

  @BeforeAll
  static void start() {
    system = PersistenceGolden.system();
  }

  @AfterAll
  static void stop() {
    StoreTestSupport.terminate(system);
  }

  private static Path format() {
    return GoldenFiles.resource(PersistenceGoldenTest.class, "/golden/" + PersistenceGolden.FORMAT);
  }

  @Test
  void everyVersionReadsAsTheRecordsAndTheCoordinatorEventsAndStateItWasWrittenFrom() {
    Map<String, Object> expected = PersistenceGolden.samples().stream()
        .collect(Collectors.toMap(Sample::file, Sample::value));
    StoredForm form = new StoredForm(system);
    List<Path> versions = GoldenFiles.versions(format());
    assertFalse(versions.isEmpty());
    for (Path version : versions) {
      for (Stored file : GoldenFiles.read(version)) {
        Object value = expected.get(file.file());
        assertNotNull(value, "a golden file of " + version + " has no sample any more: " + file.file());
        Object read = GoldenFiles.deserialize(system, value, file);
        String where = version.getFileName() + "/" + file.file();
        assertEquals(value, read, where);
        // What the stores make of it: the same references, shards and order come back.
        // A take-over or keep-alive is no change of the state; a snapshot's term is the journal's,
        // beside the state.
        if (read instanceof StoredEvent event && event.kind() != StoredEvent.Kind.TAKEN_OVER
            && event.kind() != StoredEvent.Kind.KEPT_ALIVE) {
          assertEquals(event, form.toStored(form.fromStored(event)), where);
        } else if (read instanceof StoredEventsBatch batch) {
          assertEquals(batch, form.toStored(form.fromStored(batch)), where);
        } else if (read instanceof StoredSnapshot snapshot) {
          CoordinatorState state = form.fromStored(snapshot);
          StoredSnapshot again = form.toStored(state);
          assertEquals(snapshot, snapshot.term() == null ? again : again.withTerm(snapshot.term(), snapshot.node()),
              where);
        }
      }
    }
  }

  @Test
  void theCurrentVersionIsWrittenExactly() {
    Map<String, Stored> stored = GoldenFiles.read(format().resolve("v" + StoredRecordVersion.CURRENT)).stream()
        .collect(Collectors.toMap(Stored::file, s -> s));
    List<Sample> samples = PersistenceGolden.samples();
    assertEquals(samples.stream().map(Sample::file).collect(Collectors.toSet()), stored.keySet());
    var serialization = SerializationExtension.get(Adapter.toClassic(system));
    for (Sample sample : samples) {
      assertArrayEquals(stored.get(sample.file()).bytes(), serialization.serialize(sample.value()).get(),
          sample.file() + ": this build writes other JSON than its schema version's golden file");
    }
  }

  private static Object read(String json, Class<?> type, String version) throws NotSerializableException {
    var serialization = SerializationExtension.get(Adapter.toClassic(system));
    int id = serialization.serializerFor(type).identifier();
    return serialization.deserialize(json.getBytes(StandardCharsets.UTF_8), id, type.getName() + version).get();
  }

  @Test
  void fieldsALaterVersionAddsAreIgnoredByThisReader() throws NotSerializableException {
    // A later shardkit may add fields (a zone, a draining flag, a load) without raising
    // the schema version; journals it wrote must still replay here during a rolling upgrade.
    assertEquals(new StoredEvent(StoredEvent.Kind.SHARD_HOME_ALLOCATED, PersistenceGolden.R1, "17"),
        read("{\"kind\":\"SHARD_HOME_ALLOCATED\",\"ref\":\"" + PersistenceGolden.R1
            + "\",\"shardId\":\"17\",\"term\":4,\"load\":{\"cpu\":0.5}}", StoredEvent.class, "#1"));
    assertEquals(new StoredSnapshot(List.of(new StoredSnapshot.Region(PersistenceGolden.R2, List.of("3"))),
            List.of(PersistenceGolden.P1)),
        read("{\"regions\":[{\"ref\":\"" + PersistenceGolden.R2 + "\",\"zone\":\"eu-1\",\"shards\":[\"3\"],"
            + "\"draining\":true}],\"proxies\":[\"" + PersistenceGolden.P1 + "\"],\"epoch\":4}",
            StoredSnapshot.class, "#1"));
    assertEquals(new StoredEntitiesChange(List.of("a"), List.of()),
        read("{\"started\":[\"a\"],\"stopped\":[],\"at\":12}", StoredEntitiesChange.class, "#1"));
    assertEquals(new StoredEntitiesSnapshot(List.of("a")),
        read("{\"entityIds\":[\"a\"],\"more\":[1,2]}", StoredEntitiesSnapshot.class, "#1"));
  }

  @Test
  void aRecordWithoutASchemaVersionReadsAsTheFirst() throws NotSerializableException {
    assertEquals(new StoredEvent(StoredEvent.Kind.SHARD_HOME_DEALLOCATED, null, "17"),
        read("{\"kind\":\"SHARD_HOME_DEALLOCATED\",\"shardId\":\"17\"}", StoredEvent.class, ""));
  }
}
