package dev.shardkit.benchmarks.micro;

import com.typesafe.config.ConfigFactory;
import dev.shardkit.sharding.LeastShardAllocationStrategy;
import dev.shardkit.sharding.internal.coordinator.Placement;
import dev.shardkit.sharding.spi.CoordinatorEvent;
import dev.shardkit.sharding.spi.CoordinatorEvent.RegionRegistered;
import dev.shardkit.sharding.spi.CoordinatorEvent.ShardHomeAllocated;
import dev.shardkit.sharding.spi.CoordinatorState;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorRefResolver;
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
 * The coordinator's {@link Placement} at 100 000 shards over 100 regions (each on a node of its
 * own), with the default allocation strategy ({@code LeastShardAllocationStrategy}):
 * <ul>
 *   <li>{@code placeOneNewShard}: the home of one more shard when 100 000 are placed (what a first
 *       message to an unplaced shard costs the coordinator, before the store write);
 *   <li>{@code placeAllUpFront}: homes for all 100 000 known shards at once, as the coordinator
 *       decides them when it has settled, and the placement's note that every region is told them
 *       ({@code tell-up-front-homes}, on by default) (microseconds per call is the whole placement;
 *       divide by 100 000 for one decision);
 *   <li>{@code rebalanceRound}: the shards one rebalance round moves when one region of the 100
 *       holds 1 000 more than the others (the strategy's plan over the whole view).
 * </ul>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class PlacementBenchmark {
  private static final int SHARDS = 100_000;
  private static final int REGIONS = 100;
  private ActorSystem<Void> system;
  private ActorRef<Object> coordinator;
  private CoordinatorState empty;
  private Placement.View placed;
  private Placement.View unbalanced;
  private Address self;

  @Setup
  public void setup() {
    // Remote-capable, so the regions can be references to 100 other nodes; it joins no cluster.
    system = ActorSystem.create(Behaviors.empty(), "PlacementBenchmark", ConfigFactory.parseString(
        "pekko.actor.provider = cluster\npekko.remote.artery.canonical.port = 0").withFallback(ConfigFactory.load()));
    self = system.address();
    coordinator = system.systemActorOf(Behaviors.empty(), "coordinator", Props.empty());
    ActorRefResolver resolver = ActorRefResolver.get(system);
    List<ActorRef<Object>> regions = new ArrayList<>();
    for (int r = 0; r < REGIONS; r++) {
      regions.add(resolver.resolveActorRef("pekko://PlacementBenchmark@10.0." + r / 250 + "." + (r % 250 + 1)
          + ":25520/system/shardkit-region-Bench#" + (r + 1)));
    }
    CoordinatorState s = CoordinatorState.empty();
    for (ActorRef<Object> region : regions) {
      s = s.applied(new RegionRegistered(region));
    }
    empty = s;
    CoordinatorState full = s;
    CoordinatorState skewed = s;
    for (int i = 0; i < SHARDS; i++) {
      full = full.applied(new ShardHomeAllocated(Integer.toString(i), regions.get(i % REGIONS)));
      // Region 0 takes 1 000 more than its share; the others share the rest evenly.
      int r = i < 2_000 ? 0 : 1 + (i - 2_000) % (REGIONS - 1);
      skewed = skewed.applied(new ShardHomeAllocated(Integer.toString(i), regions.get(r)));
    }
    placed = Placement.View.outsideCluster(full, self);
    unbalanced = Placement.View.outsideCluster(skewed, self);
  }

  @TearDown
  public void tearDown() {
    system.terminate();
  }

  private Placement placement(int knownShards) {
    return new Placement(new LeastShardAllocationStrategy(1, 20, 0.1), knownShards, coordinator,
        (problem, cause) -> {
          throw new IllegalStateException(problem, cause);
        });
  }

  @Benchmark
  public ActorRef<Object> placeOneNewShard() {
    return placement(0).chooseHome(placed, "new-shard", coordinator, null);
  }

  @Benchmark
  public List<CoordinatorEvent> placeAllUpFront() {
    Placement placement = placement(SHARDS);
    List<CoordinatorEvent> events = placement.placeAll(Placement.View.outsideCluster(empty, self));
    placement.told(events.stream().map(e -> ((ShardHomeAllocated) e).shardId()).toList());
    return events;
  }

  @Benchmark
  public List<String> rebalanceRound() {
    return placement(0).rebalance(unbalanced);
  }
}
