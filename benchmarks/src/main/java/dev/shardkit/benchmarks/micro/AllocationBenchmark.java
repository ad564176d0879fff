package dev.shardkit.benchmarks.micro;

import dev.shardkit.sharding.LeastShardAllocationStrategy;
import dev.shardkit.sharding.RegionInfo;
import dev.shardkit.sharding.ShardAllocation;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.Address;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * {@link LeastShardAllocationStrategy} at 10 000 shards over 100 regions: placing one new shard in
 * a balanced allocation, one rebalance round when a new empty region has joined (99 full ones),
 * and building the allocation view the strategy decides over.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class AllocationBenchmark {
  private static final int SHARDS = 10_000;
  private static final int REGIONS = 100;
  private final LeastShardAllocationStrategy strategy = new LeastShardAllocationStrategy();
  private Map<RegionInfo, List<String>> balancedMap;
  private ShardAllocation balanced;
  private ShardAllocation withNewRegion;
  private RegionInfo requester;

  @Setup
  public void setup() {
    List<RegionInfo> regions = new ArrayList<>();
    for (int r = 0; r < REGIONS; r++) {
      regions.add(new RegionInfo(new Address("pekko", "Bench", "127.0.0.1", 2551 + r), Set.of(), r));
    }
    balancedMap = new LinkedHashMap<>();
    Map<RegionInfo, List<String>> joined = new LinkedHashMap<>();
    for (RegionInfo r : regions) {
      balancedMap.put(r, new ArrayList<>());
      if (r.upNumber() < REGIONS - 1) {
        joined.put(r, new ArrayList<>());
      }
    }
    // One region fewer than shards-per-region: the balanced view leaves one shard to place.
    for (int s = 0; s < SHARDS - 1; s++) {
      balancedMap.get(regions.get(s % REGIONS)).add("s" + s);
      joined.get(regions.get(s % (REGIONS - 1))).add("s" + s);
    }
    joined.put(regions.get(REGIONS - 1), List.of());
    balanced = ShardAllocation.of(balancedMap);
    withNewRegion = ShardAllocation.of(joined);
    requester = regions.get(REGIONS / 2);
  }

  @Benchmark
  public RegionInfo allocateShard() {
    return strategy.allocateShard(requester, "new-shard", balanced);
  }

  @Benchmark
  public Set<String> rebalanceAfterJoin() {
    return strategy.rebalance(withNewRegion, Set.of());
  }

  @Benchmark
  public ShardAllocation buildView() {
    return ShardAllocation.of(balancedMap);
  }
}
