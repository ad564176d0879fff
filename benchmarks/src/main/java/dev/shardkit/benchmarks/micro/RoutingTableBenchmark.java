package dev.shardkit.benchmarks.micro;

import dev.shardkit.sharding.internal.RoutingTable;
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
 * makes, and the copy-on-write update the region makes when a home changes.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class RoutingTableBenchmark {
  private static final int SHARDS = 10_000;
  private RoutingTable table;
  private String[] shardIds;
  private int next;

  @Setup
  public void setup() {
    shardIds = new String[SHARDS];
    RoutingTable t = RoutingTable.empty();
    for (int i = 0; i < SHARDS; i++) {
      shardIds[i] = Integer.toString(i);
    }
    // Neither benchmark touches a home's actor, so none is needed.
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
}
