package dev.shardkit.sharding.ddata.internal;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.internal.util.ShardIds;
import dev.shardkit.sharding.spi.CoordinatorState;
import dev.shardkit.sharding.testsupport.GoldenFiles.Sample;
import dev.shardkit.sharding.testsupport.SerializerFuzz;
import dev.shardkit.sharding.testsupport.SerializerFuzz.Golden;
import dev.shardkit.sharding.testsupport.SerializerFuzz.Report;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.serialization.SerializationExtension;
import org.apache.pekko.serialization.SerializerWithStringManifest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Whatever bytes the replicator hands the ddata serializer, it answers with a record whose regions,
 * proxies and shard ids are all valid, or with a {@link java.io.NotSerializableException}; never
 * another exception, and never an allocation the bytes cannot justify. Both formats it reads are
 * fuzzed: format 2 from this build's samples, format 1 from a record laid out as format 1 writers
 * wrote it; and so are the split state's heads and parts (manifests H and P), from their golden samples. Seeded and reproducible (see {@link SerializerFuzz}).
 */
class DDataFuzzTest {
  private static ActorSystem<Void> system;

  @BeforeAll
  static void start() {
    system = DDataGolden.system();
  }

  @AfterAll
  static void stop() {
    system.terminate();
  }

  /** A format 1 record: one region with two shards and one proxy. */
  private static byte[] format1() throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeByte(1);
      for (int i = 0; i < 2; i++) {
        out.writeLong(3);
        out.writeLong(17 - i);
        out.writeUTF("writer");
      }
      out.writeInt(1);
      out.writeUTF("pekko://Golden@10.0.0.1:25520/system/sharding/Cart#101");
      out.writeInt(2);
      out.writeUTF("42");
      out.writeUTF("ü");
      out.writeInt(1);
      out.writeUTF("pekko://Golden@10.0.0.3:25520/system/sharding/CartProxy#303");
    }
    return bytes.toByteArray();
  }

  private static Optional<String> problem(Object message) {
    if (message instanceof CoordinatorStateHead head) {
      // Its constructor holds what a head must: parts of its own term and writer, seqs >= 0.
      return head.parts().term() == head.version().term() ? Optional.empty() : Optional.of("a foreign head " + head);
    }
    if (message instanceof CoordinatorStatePart part) {
      return part.previousVersion().isEmpty() || part.previousVersion().get().compareTo(part.version()) < 0
          ? Optional.empty() : Optional.of("a part whose previous version is not older: " + part);
    }
    if (!(message instanceof CoordinatorStateRecord record)) {
      return Optional.of("not a record: " + message);
    }
    CoordinatorState state = record.state();
    if (state.regions().containsKey(null) || state.proxies().contains(null)) {
      return Optional.of("a null ref in " + record);
    }
    return state.shards().keySet().stream().filter(id -> !ShardIds.isValid(id)).findFirst()
        .map(id -> "an invalid shard id in " + record);
  }

  @Test
  void theDDataSerializerRefusesEveryMalformedRecordWithANotSerializableException() throws Exception {
    var serialization = SerializationExtension.get(Adapter.toClassic(system));
    List<Golden> goldens = new ArrayList<>();
    SerializerWithStringManifest serializer = null;
    for (Sample sample : DDataGolden.coordinatorStateSamples(system)) {
      serializer = (SerializerWithStringManifest) serialization.findSerializerFor(sample.value());
      goldens.add(new Golden(serializer.manifest(sample.value()), serializer.toBinary(sample.value())));
    }
    for (Sample sample : DDataGolden.splitSamples(system)) {
      goldens.add(new Golden(serializer.manifest(sample.value()), serializer.toBinary(sample.value())));
    }
    goldens.add(new Golden(DDataSerializer.COORDINATOR_STATE, format1()));
    long seed = SerializerFuzz.seed("DDataFuzzTest");
    Report report = SerializerFuzz.run(serializer, goldens, List.of(DDataSerializer.COORDINATOR_STATE,
        DDataSerializer.COORDINATOR_STATE_HEAD, DDataSerializer.COORDINATOR_STATE_PART, "C2", "X"),
        DDataFuzzTest::problem, seed, SerializerFuzz.inputs(100_000));
    assertTrue(report.failures().isEmpty(), "seed " + report.seed() + ": " + report.failures().size()
        + " input(s) broke the promise, e.g. " + report.failures().subList(0, Math.min(5, report.failures().size())));
    assertTrue(report.read() > report.inputs() / 100 && report.refused() > report.inputs() / 10,
        "read " + report.read() + ", refused " + report.refused() + " of " + report.inputs());
  }
}
