package dev.shardkit.sharding.ddata.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.testsupport.GoldenFiles;
import dev.shardkit.sharding.testsupport.GoldenFiles.Sample;
import dev.shardkit.sharding.testsupport.GoldenFiles.Stored;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.pekko.actor.typed.ActorRefResolver;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.cluster.ddata.DurableStore.DurableDataEnvelope;
import org.apache.pekko.cluster.ddata.ORSet;
import org.apache.pekko.serialization.SerializationExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What earlier builds replicated and kept in LMDB (committed under {@code golden/}, see
 * {@link DDataGolden}) still reads as the values it was written from, for every version; and this
 * build writes its current versions' golden bytes exactly.
 */
class DDataGoldenTest {
  private static ActorSystem<Void> system;

  @BeforeAll
  static void start() {
    system = DDataGolden.system();
  }

  @AfterAll
  static void stop() {
    system.terminate();
  }

  private static void assertEveryVersionReads(String format, List<Sample> samples) {
    assertEveryVersionReads(format, samples, Function.identity());
  }

  /**
   * @param content what of a value must survive the trip; equal for a sample and what its file
   *     reads as
   */
  private static void assertEveryVersionReads(String format, List<Sample> samples, Function<Object, Object> content) {
    Map<String, Object> expected = samples.stream().collect(Collectors.toMap(Sample::file, Sample::value));
    List<Path> versions = GoldenFiles.versions(GoldenFiles.resource(DDataGoldenTest.class, "/golden/" + format));
    assertFalse(versions.isEmpty(), "no golden files for " + format);
    for (Path version : versions) {
      List<Stored> stored = GoldenFiles.read(version);
      assertFalse(stored.isEmpty(), version.toString());
      for (Stored file : stored) {
        Object value = expected.get(file.file());
        assertNotNull(value, "a golden file of " + version + " has no sample any more: " + file.file());
        assertEquals(content.apply(value), content.apply(GoldenFiles.deserialize(system, value, file)),
            version.getFileName() + "/" + file.file());
      }
    }
  }

  private static void assertWrittenExactly(String format, int current, List<Sample> samples) {
    Path version = GoldenFiles.resource(DDataGoldenTest.class, "/golden/" + format + "/v" + current);
    Map<String, Stored> stored = GoldenFiles.read(version).stream()
        .collect(Collectors.toMap(Stored::file, s -> s));
    assertEquals(samples.stream().map(Sample::file).collect(Collectors.toSet()), stored.keySet());
    var serialization = SerializationExtension.get(Adapter.toClassic(system));
    for (Sample sample : samples) {
      assertArrayEquals(stored.get(sample.file()).bytes(), serialization.serialize(sample.value()).get(),
          sample.file() + ": this build writes other bytes than its version's golden file; a change that old "
              + "readers cannot read needs a new format version");
    }
  }

  @Test
  void everyVersionOfTheCoordinatorStateRecordReads() {
    assertEveryVersionReads(DDataGolden.COORDINATOR_STATE, DDataGolden.coordinatorStateSamples(system));
  }

  @Test
  void theCoordinatorStateRecordIsWrittenInItsCurrentVersionsGoldenBytes() {
    assertWrittenExactly(DDataGolden.COORDINATOR_STATE, DDataGolden.coordinatorStateFormat(),
        DDataGolden.coordinatorStateSamples(system));
  }

  @Test
  void everyVersionOfTheSplitCoordinatorStateReads() {
    assertEveryVersionReads(DDataGolden.SPLIT_COORDINATOR_STATE, DDataGolden.splitSamples(system));
  }

  @Test
  void theSplitCoordinatorStateIsWrittenInItsCurrentVersionsGoldenBytes() {
    assertWrittenExactly(DDataGolden.SPLIT_COORDINATOR_STATE, DDataSerializer.SPLIT_FORMAT,
        DDataGolden.splitSamples(system));
  }

  @Test
  void theGoldenPartsPayloadsMakeTheSampleState() {
    // The payloads inside the parts have a format of their own; a change to it would make every
    // stored part unreadable even though the records still deserialize.
    Path version = GoldenFiles.resource(DDataGoldenTest.class, "/golden/" + DDataGolden.SPLIT_COORDINATOR_STATE
        + "/v" + DDataSerializer.SPLIT_FORMAT);
    List<Sample> samples = DDataGolden.splitSamples(system);
    Map<String, CoordinatorStatePart> parts = new TreeMap<>();
    for (Stored file : GoldenFiles.read(version)) {
      Object value = GoldenFiles.deserialize(system, samples.get(0).value(), file);
      if (value instanceof CoordinatorStatePart part) {
        parts.put(file.file(), part);
      }
    }
    ActorRefResolver resolver = ActorRefResolver.get(system);
    assertEquals(DDataGolden.sampleState(system), PartitionedCoordinatorState.decode(
        parts.get("Directory.bin").payload(), List.of(parts.get("FirstShardPart.bin").payload(),
            parts.get("ShardPart.bin").payload()), resolver::resolveActorRef));
  }

  @Test
  void rememberedEntitiesAsReplicatedAndAsKeptInLmdbRead() {
    // Pekko's serializer writes these bytes (not always in the same order), so only reading is
    // checked: it guards remembered entities kept in LMDB across an upgrade of Pekko.
    assertEveryVersionReads(DDataGolden.REMEMBER_ENTITIES, DDataGolden.rememberEntitiesSamples(),
        DDataGoldenTest::rememberedIds);
  }

  /**
   * The ids a set holds and whether it came wrapped for LMDB. Not the whole set: its version
   * counters come from a counter Pekko keeps per JVM, so a sample built after other tests have
   * updated sets carries other counters than the file written in a fresh JVM.
   */
  private static Object rememberedIds(Object value) {
    if (value instanceof DurableDataEnvelope envelope) {
      return List.of("durable", rememberedIds(envelope.data()));
    }
    return ((ORSet<?>) value).getElements();
  }

  @Test
  void rememberedEntitiesStayUnderTheKeysTheyWereWrittenUnder() throws Exception {
    // A changed key (name, encoding, bucket count or hash) would hide every id stored before.
    for (Path version : GoldenFiles.versions(GoldenFiles.resource(DDataGoldenTest.class,
        "/golden/" + DDataGolden.REMEMBER_ENTITIES))) {
      Properties keys = new Properties();
      try (Reader in = Files.newBufferedReader(version.resolve(DDataGolden.KEYS), StandardCharsets.UTF_8)) {
        keys.load(in);
      }
      Map<String, String> golden = new TreeMap<>();
      keys.stringPropertyNames().forEach(k -> golden.put(k, keys.getProperty(k)));
      assertTrue(golden.size() > DDataGolden.ENTITY_IDS.size(), golden.toString());
      assertEquals(golden, DDataGolden.keys(), version.toString());
    }
  }
}
