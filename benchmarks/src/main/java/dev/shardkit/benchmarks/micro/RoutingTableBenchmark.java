package dev.shardkit.benchmarks.micro;

import dev.shardkit.sharding.internal.RoutingTable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
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
 * The region's published routing table with 10 000 and 100 000 shards: the lookup every shortcut
 * message makes, the update the region makes when one home changes, and the one it makes when it
 * learns many homes at once (every shard's, spread over 100 other regions, as when the homes placed
 * up front arrive: in one message, or in 128 KiB messages one after the other).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class RoutingTableBenchmark {
  /** The regions the homes placed up front are spread over, as in the up-front workload. */
  private static final int REGIONS = 100;
  /** About as many homes as one 128 KiB {@code ShardHomes} message carries (100 000 shards take 16). */
  private static final int HOMES_PER_CHUNK = 6_250;

  @Param({"10000", "100000"})
  public int shards;

  private ActorSystem<Void> system;
  private RoutingTable table;
  private String[] shardIds;
  private Map<String, RoutingTable.Home> allHomes;
  private List<Map<String, RoutingTable.Home>> chunks;
  private int next;

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
    shardIds = new String[shards];
    allHomes = new HashMap<>();
    for (int i = 0; i < shards; i++) {
      shardIds[i] = Integer.toString(i);
      allHomes.put(shardIds[i], regions[i % REGIONS]);
    }
    chunks = new ArrayList<>();
    for (int from = 0; from < shards; from += HOMES_PER_CHUNK) {
      Map<String, RoutingTable.Home> chunk = new HashMap<>();
      for (int i = from; i < Math.min(shards, from + HOMES_PER_CHUNK); i++) {
        chunk.put(shardIds[i], allHomes.get(shardIds[i]));
      }
      chunks.add(chunk);
    }
    RoutingTable t = RoutingTable.empty();
    for (int i = 0; i < shards; i++) {
      t = t.withHome(shardIds[i], new RoutingTable.Local(null));
    }
    table = t;
  }

  @TearDown
  public void tearDown() {
    system.terminate();
  }

  @Benchmark
  public RoutingTable.Home lookup() {
    int i = next++;
    if (next == shards) {
      next = 0;
    }
    return table.home(shardIds[i]);
  }

  @Benchmark
  public RoutingTable withOneHomeChanged() {
    int i = next++;
    if (next == shards) {
      next = 0;
    }
    return table.withHome(shardIds[i], new RoutingTable.Local(null));
  }

  /** Every shard's home, each in one of 100 other regions, learned in one change into an empty table. */
  @Benchmark
  public RoutingTable withAllHomesAtOnce() {
    return RoutingTable.empty().withHomes(allHomes);
  }

  /**
   * The same homes as {@link #withAllHomesAtOnce}, learned as a region learns them: one message of
   * about 6 250 at a time, each into the table the ones before it made.
   */
  @Benchmark
  public RoutingTable withAllHomesInChunks() {
    RoutingTable t = RoutingTable.empty();
    for (Map<String, RoutingTable.Home> chunk : chunks) {
      t = t.withHomes(chunk);
    }
    return t;
  }
}
