package dev.shardkit.sharding.ddata;

import static dev.shardkit.sharding.ddata.Replicas.canonical;
import static dev.shardkit.sharding.ddata.Replicas.fakeRegion;
import static dev.shardkit.sharding.ddata.Replicas.get;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.ShardingSettings;
import dev.shardkit.sharding.ddata.internal.CoordinatorStateHead;
import dev.shardkit.sharding.ddata.internal.CoordinatorStateKeys;
import dev.shardkit.sharding.ddata.internal.PartitionedCoordinatorState;
import dev.shardkit.sharding.ddata.internal.Replicators;
import dev.shardkit.sharding.spi.CoordinatorEvent;
import dev.shardkit.sharding.spi.CoordinatorEvent.RegionRegistered;
import dev.shardkit.sharding.spi.CoordinatorEvent.ShardHomeAllocated;
import dev.shardkit.sharding.spi.CoordinatorEvent.ShardHomeDeallocated;
import dev.shardkit.sharding.spi.CoordinatorState;
import dev.shardkit.sharding.spi.CoordinatorStateStore;
import dev.shardkit.sharding.spi.LoadedCoordinatorState;
import dev.shardkit.sharding.testkit.TestCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorRefResolver;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.cluster.ddata.Key;
import org.apache.pekko.cluster.ddata.Replicator;
import org.apache.pekko.pattern.Patterns;
import org.apache.pekko.serialization.SerializationExtension;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * 100 000 shards with 30-character ids over 1 000 regions in ddata mode, far more than one replicated record could
 * carry (Artery's frame is 256 KiB): a coordinator's store on the oldest node stores them as the
 * coordinator does (every home placed up front in one write, then single events), each record it
 * replicates stays far below the frame, and when the oldest node leaves, the next coordinator's
 * store on another node loads every home.
 */
class DDataLargeCoordinatorStateTest {
  private static final Logger LOG = LoggerFactory.getLogger(DDataLargeCoordinatorStateTest.class);
  static final String TYPE = "DDataLarge";
  static final int SHARDS = 100_000;
  static final int REGIONS = 1000;
  static final DDataCoordinatorStateStoreProvider PROVIDER = new DDataCoordinatorStateStoreProvider();

  static ShardingSettings settings(ActorSystem<?> system) {
    return ShardingSettings.create(system);
  }

  static String shardId(int i) {
    return String.format("customer-order-shard-%010d", i);
  }

  /** The serialized size of the record under {@code key} in node {@code node}'s replica. */
  static int storedBytes(TestCluster cluster, int node, Key<?> key) throws Exception {
    ActorSystem<Void> system = cluster.system(node);
    Object reply = get(Patterns.ask(Replicators.get(system).replicatorFor(Optional.empty()),
        new Replicator.Get<>(key, Replicator.readLocal()), Duration.ofSeconds(10)));
    Object data = ((Replicator.GetSuccess<?>) reply).dataValue();
    return SerializationExtension.get(Adapter.toClassic(system)).serialize(data).get().length;
  }

  @Test
  void aHundredThousandShardsAreStoredInPartsFarBelowTheFrameAndTheNextCoordinatorLoadsEveryHome()
      throws Exception {
    try (TestCluster cluster = new TestCluster("DDataLarge")) {
      for (int i = 0; i < 3; i++) {
        cluster.add("shardkit.sharding.state-store-mode = ddata");
        cluster.awaitUp(i + 1);
      }
      for (ActorSystem<Void> s : cluster.systems()) {
        PROVIDER.startOnNode(s, TYPE, settings(s));
      }
      // Regions as the coordinator on node 0 knows them: two real ones on the nodes that stay,
      // and as many more refs on those nodes as a large cluster's regions would take (they are
      // only stored, never sent to).
      List<ActorRef<Object>> regions = new ArrayList<>();
      regions.add(fakeRegion(cluster, 1, "large-region", 0));
      regions.add(fakeRegion(cluster, 2, "large-region", 0));
      ActorRefResolver resolver = ActorRefResolver.get(cluster.system(0));
      for (int i = 2; i < REGIONS; i++) {
        regions.add(resolver.resolveActorRef(cluster.address(1 + i % 2) + "/system/shardkit-region-" + TYPE + "-" + i
            + "#" + (1_000_000_000L + i)));
      }
      CoordinatorStateStore oldest = PROVIDER.create(cluster.system(0), TYPE, settings(cluster.system(0)));
      LoadedCoordinatorState first = get(oldest.load());
      List<CoordinatorEvent> upFront = new ArrayList<>();
      CoordinatorState state = first.state();
      for (ActorRef<Object> region : regions) {
        upFront.add(new RegionRegistered(region));
      }
      for (int i = 0; i < SHARDS; i++) {
        upFront.add(new ShardHomeAllocated(shardId(i), regions.get(i % REGIONS)));
      }
      for (CoordinatorEvent e : upFront) {
        state = state.applied(e);
      }
      get(oldest.store(upFront, state));
      // Then single events, each rewriting one part and the head.
      // (Durations are logged for the report only; the benchmarks module measures speed.)
      long started = System.nanoTime();
      for (CoordinatorEvent e : List.of(new ShardHomeDeallocated(shardId(7)),
          new ShardHomeAllocated(shardId(7), regions.get(3)), new ShardHomeAllocated("one-more", regions.get(0)))) {
        state = state.applied(e);
        get(oldest.store(List.of(e), state));
      }
      LOG.info("3 single events stored in {} ms", (System.nanoTime() - started) / 1_000_000);

      // Every record a replica holds is far below Artery's 256 KiB frame.
      Object head = ((Replicator.GetSuccess<?>) get(Patterns.ask(Replicators.get(cluster.system(2))
          .replicatorFor(Optional.empty()), new Replicator.Get<>(CoordinatorStateKeys.head(TYPE),
          Replicator.readLocal()), Duration.ofSeconds(10)))).dataValue();
      int parts = ((CoordinatorStateHead) head).parts().shardParts();
      int largest = 0;
      for (int i = 1; i <= parts; i++) {
        largest = Math.max(largest, storedBytes(cluster, 2, CoordinatorStateKeys.part(TYPE, i)));
      }
      int headBytes = storedBytes(cluster, 2, CoordinatorStateKeys.head(TYPE));
      int directoryBytes = storedBytes(cluster, 2, CoordinatorStateKeys.part(TYPE, 0));
      LOG.info("{} shards with 30-character ids in {} shard parts: head {} bytes, directory {} bytes, largest shard "
          + "part record {} bytes", SHARDS + 1, parts, headBytes, directoryBytes, largest);
      assertTrue(largest <= 2 * PartitionedCoordinatorState.PART_LIMIT + 1024 && largest < 128 * 1024,
          "largest part record " + largest + " bytes");
      // The directory grows with the regions only: about 80 bytes each, twice (now and as confirmed).
      assertTrue(headBytes < 4 * 1024 && directoryBytes < 2 * 100 * REGIONS, "head " + headBytes + ", directory "
          + directoryBytes);

      // The oldest node leaves (and the cluster's indexes shift down); the next coordinator's
      // store, on the next oldest node, loads every home.
      Replicas.Canonical stored = canonical(cluster, state, 0);
      cluster.leave(cluster.system(0));
      CoordinatorStateStore next = PROVIDER.create(cluster.system(0), TYPE, settings(cluster.system(0)));
      started = System.nanoTime();
      LoadedCoordinatorState loaded = get(next.load());
      LOG.info("loaded and taken over in {} ms", (System.nanoTime() - started) / 1_000_000);
      assertTrue(loaded.term() > first.term(), loaded.term() + " after " + first.term());
      assertEquals(SHARDS + 1, loaded.state().shards().size());
      assertEquals(stored, canonical(cluster, loaded.state(), 0));
      // ...and stores in its own term, one part at a time.
      CoordinatorState after = loaded.state().applied(new ShardHomeDeallocated("one-more"));
      get(next.store(List.of(new ShardHomeDeallocated("one-more")), after));
      next.close();
    }
  }
}
