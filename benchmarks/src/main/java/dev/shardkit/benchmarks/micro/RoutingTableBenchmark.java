package dev.shardkit.benchmarks.micro;

import dev.shardkit.sharding.internal.RoutingTable;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The region's published routing table with 10 000 shards: the lookup every shortcut message
 * makes, the update the region makes when one home changes, and the one it makes when it learns
 * many homes at once (here every shard's, as when all homes placed up front arrive in one message).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class RoutingTableBenchmark {
  private static final int SHARDS = 10_000;
  private RoutingTable table;
  private String[] shardIds;
  private Map<String, RoutingTable.Home> allHomes;
  private int next;

  @Setup
  public void setup() {
    shardIds = new String[SHARDS];
    allHomes = new HashMap<>();
    for (int i = 0; i < SHARDS; i++) {
      shardIds[i] = Integer.toString(i);
      // No benchmark touches a home's actor, so none is needed.
      allHomes.put(shardIds[i], new RoutingTable.Local(null));
    }
    RoutingTable t = RoutingTable.empty();
    for (int i = 0; i < SHARDS; i++) {
      t = t.withHome(shardIds[i], new RoutingTable.Local(null));
    }
    table = t;
  }

  @Benchmark
  public RoutingTable.Home lookup() {
    int i = next++;
    if (next == SHARDS) {
      next = 0;
    }
    return table.home(shardIds[i]);
  }

  @Benchmark
  public RoutingTable withOneHomeChanged() {
    int i = next++;
    if (next == SHARDS) {
      next = 0;
    }
    return table.withHome(shardIds[i], new RoutingTable.Local(null));
  }

  /** Every one of the 10 000 homes learned in one change, into an empty table. */
  @Benchmark
  public RoutingTable withAllHomesAtOnce() {
    return RoutingTable.empty().withHomes(allHomes);
  }
}
