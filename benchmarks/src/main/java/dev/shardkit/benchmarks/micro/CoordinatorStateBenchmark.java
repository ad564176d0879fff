package dev.shardkit.benchmarks.micro;

import dev.shardkit.sharding.spi.CoordinatorEvent;
import dev.shardkit.sharding.spi.CoordinatorEvent.RegionRegistered;
import dev.shardkit.sharding.spi.CoordinatorEvent.ShardHomeAllocated;
import dev.shardkit.sharding.spi.CoordinatorEvent.ShardHomeDeallocated;
import dev.shardkit.sharding.spi.CoordinatorState;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * One coordinator event applied to a {@link CoordinatorState} of 100 000 shards over 1 000
 * regions: what the coordinator pays per stored event, and a store per replayed one. A shard
 * allocated to a region, one deallocated from the middle of its region's list, and a region
 * registered.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class CoordinatorStateBenchmark {
  private static final int SHARDS = 100_000;
  private static final int REGIONS = 1_000;
  private ActorSystem<Void> system;
  private CoordinatorState state;
  private CoordinatorEvent allocate;
  private CoordinatorEvent deallocate;
  private CoordinatorEvent register;

  @Setup
  public void setup() {
    system = ActorSystem.create(Behaviors.empty(), "CoordinatorStateBenchmark");
    // Distinct live refs, as the coordinator's regions are; they never receive anything.
    List<ActorRef<Object>> regions = new ArrayList<>();
    for (int r = 0; r <= REGIONS; r++) {
      regions.add(system.systemActorOf(Behaviors.empty(), "region-" + r, Props.empty()));
    }
    CoordinatorState s = CoordinatorState.empty();
    for (int r = 0; r < REGIONS; r++) {
      s = s.applied(new RegionRegistered(regions.get(r)));
    }
    for (int i = 0; i < SHARDS; i++) {
      s = s.applied(new ShardHomeAllocated("shard-" + i, regions.get(i % REGIONS)));
    }
    state = s;
    allocate = new ShardHomeAllocated("new-shard", regions.get(REGIONS / 2));
    // Shard 50 042 sits in the middle of region 42's list of 100.
    deallocate = new ShardHomeDeallocated("shard-" + (SHARDS / 2 + 42));
    register = new RegionRegistered(regions.get(REGIONS));
  }

  @TearDown
  public void tearDown() {
    system.terminate();
  }

  @Benchmark
  public CoordinatorState shardHomeAllocated() {
    return state.applied(allocate);
  }

  @Benchmark
  public CoordinatorState shardHomeDeallocated() {
    return state.applied(deallocate);
  }

  @Benchmark
  public CoordinatorState regionRegistered() {
    return state.applied(register);
  }
}
