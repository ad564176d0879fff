package dev.shardkit.benchmarks.micro;

import com.typesafe.config.ConfigFactory;
import dev.shardkit.sharding.ddata.internal.CoordinatorStateHead;
import dev.shardkit.sharding.ddata.internal.CoordinatorStatePart;
import dev.shardkit.sharding.ddata.internal.CoordinatorStateRecord.Version;
import dev.shardkit.sharding.ddata.internal.PartVersions;
import dev.shardkit.sharding.ddata.internal.PartitionedCoordinatorState;
import dev.shardkit.sharding.spi.CoordinatorEvent;
import dev.shardkit.sharding.spi.CoordinatorEvent.RegionRegistered;
import dev.shardkit.sharding.spi.CoordinatorEvent.ShardHomeAllocated;
import dev.shardkit.sharding.spi.CoordinatorState;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorRefResolver;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.serialization.Serialization;
import org.apache.pekko.serialization.SerializationExtension;
import org.apache.pekko.serialization.SerializerWithStringManifest;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The ddata coordinator state store's own work at 100 000 shards (30-character ids) over 1 000
 * regions, without the network: what one event's write encodes (the parts it touches as
 * {@link PartitionedCoordinatorState} derives them, each part record and the head serialized), and
 * what a load decodes (the head and every part deserialized, the state rebuilt).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class DDataCoordinatorStateBenchmark {
  private static final int SHARDS = 100_000;
  private static final int REGIONS = 1_000;
  private static final String WRITER = "pekko://Bench@10.0.0.1:25520#1/1";
  private ActorSystem<Void> system;
  private SerializerWithStringManifest serializer;
  private Function<ActorRef<Object>, String> refs;
  private Function<String, ActorRef<Object>> resolve;
  private PartitionedCoordinatorState partitioned;
  private CoordinatorStateHead head;
  private List<byte[]> payloads;
  private List<CoordinatorEvent> allocate;
  private CoordinatorState afterAllocate;
  private byte[] headBytes;
  private List<byte[]> partBytes;

  @Setup
  public void setup() {
    system = ActorSystem.create(Behaviors.empty(), "Bench", ConfigFactory.parseString("""
        pekko.actor.provider = cluster
        pekko.remote.artery.canonical { hostname = 127.0.0.1, port = 0 }
        pekko.loglevel = WARNING
        """).withFallback(ConfigFactory.load()));
    ActorRefResolver resolver = ActorRefResolver.get(system);
    refs = resolver::toSerializationFormat;
    resolve = resolver::resolveActorRef;
    // Regions as a coordinator of a 1 000-node cluster knows them; they never receive anything.
    List<ActorRef<Object>> regions = new ArrayList<>();
    for (int r = 0; r < REGIONS; r++) {
      regions.add(resolver.resolveActorRef("pekko://Bench@10.0." + (r / 250) + "." + (r % 250)
          + ":25520/system/shardkit-region-Orders#" + (1_000_000_000L + r)));
    }
    CoordinatorState s = CoordinatorState.empty();
    for (ActorRef<Object> region : regions) {
      s = s.applied(new RegionRegistered(region));
    }
    for (int i = 0; i < SHARDS; i++) {
      s = s.applied(new ShardHomeAllocated(String.format("customer-order-shard-%010d", i), regions.get(i % REGIONS)));
    }
    partitioned = PartitionedCoordinatorState.sized(s, refs);
    Version taken = new Version(2, 0, WRITER);
    PartVersions parts = PartVersions.all(taken, partitioned.shardParts());
    head = new CoordinatorStateHead(taken, new Version(1, 9, WRITER), parts, null);
    payloads = new ArrayList<>();
    for (int i = 0; i <= partitioned.shardParts(); i++) {
      payloads.add(partitioned.payload(i, refs));
    }
    allocate = List.of(new ShardHomeAllocated("customer-order-shard-new-00001", regions.get(REGIONS / 2)));
    afterAllocate = s.applied(allocate.get(0));
    Serialization serialization = SerializationExtension.get(Adapter.toClassic(system));
    serializer = (SerializerWithStringManifest) serialization.findSerializerFor(head);
    headBytes = serializer.toBinary(head);
    partBytes = new ArrayList<>();
    for (int i = 0; i <= partitioned.shardParts(); i++) {
      partBytes.add(serializer.toBinary(new CoordinatorStatePart(taken, payloads.get(i), null, null)));
    }
  }

  @TearDown
  public void tearDown() {
    system.terminate();
  }

  /** One shard allocated: the touched part's record and the head, as bytes the replicator sends. */
  @Benchmark
  public int encodeOneEventsWrite() {
    PartitionedCoordinatorState.Change change = partitioned.after(allocate, afterAllocate);
    Version version = new Version(2, 1, WRITER);
    int bytes = 0;
    for (int index : change.touched()) {
      bytes += serializer.toBinary(new CoordinatorStatePart(version, change.after().payload(index, refs),
          head.parts().version(index), payloads.get(index))).length;
    }
    CoordinatorStateHead next = new CoordinatorStateHead(version, head.version(),
        head.parts().with(version, change.after().shardParts(), Set.copyOf(change.touched())), head.parts());
    return bytes + serializer.toBinary(next).length;
  }

  /** Every record of the state read back and the state rebuilt, as a successor's load does after its reads. */
  @Benchmark
  public CoordinatorState decodeWholeState() throws Exception {
    CoordinatorStateHead h = (CoordinatorStateHead) serializer.fromBinary(headBytes, "H");
    List<byte[]> read = new ArrayList<>();
    for (int i = 0; i <= h.parts().shardParts(); i++) {
      read.add(((CoordinatorStatePart) serializer.fromBinary(partBytes.get(i), "P")).payloadAt(h.parts().version(i))
          .orElseThrow());
    }
    return PartitionedCoordinatorState.decode(read.get(0), read.subList(1, read.size()), resolve);
  }
}
