package dev.shardkit.sharding.internal.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.internal.wire.WireGolden.Sample;
import dev.shardkit.sharding.internal.wire.WireGolden.Version;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.serialization.SerializerWithStringManifest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Bytes that earlier shardkit builds put on the wire (committed under
 * {@code golden/<serializer>/v<format>/}, see {@link WireGolden}) still read as the messages
 * they were written from, for every format version; and this build writes its own format
 * version's golden bytes exactly.
 */
class WireGoldenTest {
  /** Samples holding a set of several elements, whose order on the wire follows the set's. */
  private static final Set<String> UNORDERED = Set.of("Register", "CurrentRegions", "BeginHandOff",
      "BeginHandOffWithTerm");

  private static ActorSystem<Void> system;

  @BeforeAll
  static void start() {
    system = WireGolden.system();
  }

  @AfterAll
  static void stop() {
    system.terminate();
  }

  private static Path golden(String serializer) throws URISyntaxException {
    return Path.of(WireGoldenTest.class.getResource("/golden/" + serializer).toURI());
  }

  private static List<Path> versions(String serializer) throws IOException, URISyntaxException {
    try (Stream<Path> dirs = Files.list(golden(serializer))) {
      return dirs.filter(Files::isDirectory).sorted().toList();
    }
  }

  private static void assertEveryVersionReads(String serializer, List<Sample> samples)
      throws Exception {
    Map<String, Object> expected = samples.stream().collect(Collectors.toMap(Sample::name, Sample::value));
    SerializerWithStringManifest reader = WireGolden.serializerFor(system, samples.get(0).value());
    List<Path> versions = versions(serializer);
    assertFalse(versions.isEmpty(), "no golden files for " + serializer);
    for (Path dir : versions) {
      Version version = Version.read(dir);
      assertFalse(version.manifests().isEmpty(), dir.toString());
      for (Map.Entry<String, String> sample : version.manifests().entrySet()) {
        Object value = expected.get(sample.getKey());
        assertNotNull(value, "a golden file of " + dir + " has no sample any more: " + sample.getKey());
        Object read = reader.fromBinary(version.bytes(sample.getKey()), sample.getValue());
        assertEquals(value, read, dir.getFileName() + "/" + sample.getKey());
      }
    }
  }

  /**
   * @param samples those this build writes, each exactly as its golden file
   * @param onlyRead those whose files an earlier build of the version wrote, read but not written
   */
  private static void assertCurrentVersionIsWrittenExactly(String serializer, int current, List<Sample> samples,
      List<Sample> onlyRead) throws Exception {
    Path dir = golden(serializer).resolve("v" + current);
    assertTrue(Files.isDirectory(dir), "the current format version " + current + " of " + serializer + " has no "
        + "golden files: run WireGolden.main to write them");
    Version version = Version.read(dir);
    assertEquals(Stream.concat(samples.stream(), onlyRead.stream()).map(Sample::name).collect(Collectors.toSet()),
        version.manifests().keySet(), "every message type has a golden file of the current version");
    for (Sample sample : samples) {
      SerializerWithStringManifest writer = WireGolden.serializerFor(system, sample.value());
      String name = sample.name();
      assertEquals(version.manifests().get(name), writer.manifest(sample.value()), name);
      byte[] written = writer.toBinary(sample.value());
      byte[] golden = version.bytes(name);
      if (UNORDERED.contains(name)) {
        assertEquals(golden.length, written.length, name);
      } else {
        assertArrayEquals(golden, written, name + ": this build writes other bytes than its format version's "
            + "golden file; a change that old readers cannot read needs a new format version");
      }
    }
  }

  @Test
  void everyVersionOfTheShardingSerializersGoldenBytesReads() throws Exception {
    assertEveryVersionReads(WireGolden.SHARDING, Stream.concat(WireGolden.shardingSamples(system).stream(),
        WireGolden.shardingSamplesBeforeTerms(system).stream()).toList());
  }

  @Test
  void everyVersionOfTheGateSerializersGoldenBytesReads() throws Exception {
    assertEveryVersionReads(WireGolden.GATE, WireGolden.gateSamples(system));
  }

  @Test
  void theShardingSerializerWritesItsCurrentVersionsGoldenBytes() throws Exception {
    assertCurrentVersionIsWrittenExactly(WireGolden.SHARDING, WireGolden.shardingVersion(),
        WireGolden.shardingSamples(system), WireGolden.shardingSamplesBeforeTerms(system));
  }

  @Test
  void theGateSerializerWritesItsCurrentVersionsGoldenBytes() throws Exception {
    assertCurrentVersionIsWrittenExactly(WireGolden.GATE, WireGolden.gateVersion(), WireGolden.gateSamples(system),
        List.of());
  }

  @Test
  void everyManifestOfTheShardingSerializerHasASample() {
    Set<String> manifests = WireGolden.shardingSamples(system).stream()
        .map(s -> WireGolden.serializerFor(system, s.value()).manifest(s.value()))
        .collect(Collectors.toSet());
    assertEquals(23, manifests.size(), manifests.toString());
  }
}
