package dev.shardkit.benchmarks.micro;

import dev.shardkit.benchmarks.harness.Nodes;
import dev.shardkit.benchmarks.workloads.Counter;
import dev.shardkit.sharding.ClusterSharding;
import dev.shardkit.sharding.Entity;
import dev.shardkit.sharding.EntityRef;
import dev.shardkit.sharding.EntityTypeKey;
import dev.shardkit.sharding.ShardingSettings;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.pekko.actor.typed.ActorSystem;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Local {@code EntityRef.tell} on one node with the JDK Flight Recorder telemetry binding on and
 * off ({@code shardkit.sharding.telemetry.jfr}), no recording running: a batch of messages told
 * round-robin to entities whose shards are hosted here, timed until the entities have counted
 * them all. What the binding could cost a routed message shows as a difference between the two.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class TelemetryTellBenchmark {
  private static final int ENTITIES = 100;
  private static final int BATCH = 10_000;
  private static final EntityTypeKey<Counter.Command> KEY = EntityTypeKey.create(Counter.Command.class, "Telemetry");
  private static final Counter.Add MESSAGE = new Counter.Add("bench", 0);
  private static final AtomicLong COUNTED = new AtomicLong();

  @Param({"on", "off"})
  public String jfr;

  private ActorSystem<Void> system;
  private EntityRef<Counter.Command>[] refs;
  private long expected;

  @Setup(Level.Trial)
  @SuppressWarnings("unchecked")
  public void start() {
    system = Nodes.start("shardkit.sharding.telemetry.jfr = " + jfr + "\n", List.of(), null);
    Nodes.awaitUp(system, 1, Duration.ofSeconds(30));
    ClusterSharding.get(system).start(Entity.of(KEY, ctx -> Counter.create(ctx.entityId(),
        (id, add, count) -> COUNTED.incrementAndGet())).withSettings(ShardingSettings.create(system)
        .withNumberOfShards(ENTITIES)));
    refs = new EntityRef[ENTITIES];
    for (int i = 0; i < ENTITIES; i++) {
      refs[i] = ClusterSharding.get(system).entityRefFor(KEY, "e-" + i);
    }
    expected = COUNTED.get();
    tellBatch();
  }

  @TearDown(Level.Trial)
  public void stop() {
    Nodes.terminate(List.of(system));
  }

  @Benchmark
  @OperationsPerInvocation(BATCH)
  public void tellBatch() {
    for (int i = 0; i < BATCH; i++) {
      refs[i % ENTITIES].tell(MESSAGE);
    }
    expected += BATCH;
    while (COUNTED.get() < expected) {
      Thread.onSpinWait();
    }
  }
}
