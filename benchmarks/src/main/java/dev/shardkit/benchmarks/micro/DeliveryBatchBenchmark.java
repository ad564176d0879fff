package dev.shardkit.benchmarks.micro;

import dev.shardkit.benchmarks.harness.Nodes;
import dev.shardkit.benchmarks.workloads.Counter;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.Deliver;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.DeliveryBatch;
import dev.shardkit.sharding.internal.wire.ShardingSerializer;
import java.io.NotSerializableException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.ExtendedActorSystem;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.serialization.Serialization;
import org.apache.pekko.serialization.SerializationExtension;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * One remote delivery batch of 100 messages as the remote workload sends them (Jackson-CBOR
 * {@link Counter.Add} payloads, 100 entities over 10 shards), through the serializer Pekko binds
 * the batch to: written as a sending link writes it, read as the receiving region's node reads it,
 * and both. The payloads' own Jackson cost is in every figure, as it is on the wire.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class DeliveryBatchBenchmark {
  private static final int MESSAGES = 100;
  private ActorSystem<Object> system;
  private ExtendedActorSystem classic;
  private ShardingSerializer serializer;
  private DeliveryBatch batch;
  private byte[] bytes;
  private String manifest;

  @Setup
  public void setup() throws NotSerializableException {
    system = ActorSystem.create(Behaviors.empty(), Nodes.SYSTEM_NAME, Nodes.config("", List.of()));
    classic = (ExtendedActorSystem) Adapter.toClassic(system);
    Serialization serialization = SerializationExtension.get(classic);
    serializer = (ShardingSerializer) serialization.serializerFor(DeliveryBatch.class);
    List<Object> items = new ArrayList<>(MESSAGES);
    for (int i = 0; i < MESSAGES; i++) {
      items.add(new Deliver("counter", Integer.toString(i % 10), "entity-" + i, new Counter.Add("sender-1", i)));
    }
    // The batch's link: any ref of this system stands for the sending link's.
    ActorRef<Object> link = system.systemActorOf(Behaviors.empty(), "link-1", org.apache.pekko.actor.typed.Props.empty());
    batch = new DeliveryBatch(link, 1, items);
    manifest = serializer.manifest(batch);
    bytes = write();
    if (((DeliveryBatch) serializer.fromBinary(bytes, manifest)).items().size() != MESSAGES) {
      throw new IllegalStateException("the batch does not read back with its " + MESSAGES + " messages");
    }
  }

  @TearDown
  public void tearDown() {
    system.terminate();
  }

  @Benchmark
  public byte[] write() {
    // As remoting does around its own serialization (and the sending link around its own).
    return org.apache.pekko.serialization.Serialization$.MODULE$.withTransportInformation(classic,
        () -> serializer.toBinary(batch));
  }

  @Benchmark
  public Object read() throws NotSerializableException {
    return serializer.fromBinary(bytes, manifest);
  }

  @Benchmark
  public Object writeAndRead() throws NotSerializableException {
    return serializer.fromBinary(write(), manifest);
  }
}
