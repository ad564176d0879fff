package dev.shardkit.benchmarks.micro;

import dev.shardkit.sharding.internal.region.RoutingTable;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The region's published routing table: with 10 000 shards, the lookup every shortcut message
 * makes and the update the region makes when one home changes; with 10 000 and 100 000 shards,
 * the one it makes when it learns every shard's home, spread over 100 other regions, as when the
 * homes placed up front arrive in one message. A region is told them in 128 KiB messages, about
 * 6 250 homes each; that case is left to the up-front workload, as a benchmark of its own would
 * cost the quick mode in CI one more forked JVM.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class RoutingTableBenchmark {
  private static final int SHARDS = 10_000;
  private RoutingTable table;
  private String[] shardIds;
  private int next;

  /** Every shard's home, each in one of 100 other regions. */
  @State(Scope.Thread)
  public static class UpFrontHomes {
    /** The regions the homes placed up front are spread over, as in the up-front workload. */
    private static final int REGIONS = 100;

    @Param({"10000", "100000"})
    public int shards;

    private ActorSystem<Void> system;
    private Map<String, RoutingTable.Home> all;

    @Setup
    public void setup() {
      // Real refs: the table indexes remote homes by region, so their identities must hash and compare.
      system = ActorSystem.create(Behaviors.empty(), "routing-table-benchmark");
      RoutingTable.Home[] regions = new RoutingTable.Home[REGIONS];
      for (int r = 0; r < REGIONS; r++) {
        ActorRef<Object> region = system.systemActorOf(Behaviors.empty(), "region-" + r, Props.empty());
        // No benchmark sends anything, so no outbox is needed.
        regions[r] = new RoutingTable.Remote(region, null);
      }
      all = new HashMap<>();
      for (int i = 0; i < shards; i++) {
        all.put(Integer.toString(i), regions[i % REGIONS]);
      }
    }

    @TearDown
    public void tearDown() {
      system.terminate();
    }
  }

  @Setup
  public void setup() {
    shardIds = new String[SHARDS];
    RoutingTable t = RoutingTable.empty();
    for (int i = 0; i < SHARDS; i++) {
      shardIds[i] = Integer.toString(i);
      // No benchmark touches a home's actor, so none is needed.
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

  /** Every shard's home learned in one change into an empty table. */
  @Benchmark
  public RoutingTable withAllHomesAtOnce(UpFrontHomes homes) {
    return RoutingTable.empty().withHomes(homes.all);
  }
}
