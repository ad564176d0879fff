package dev.shardkit.sharding.ddata;

import static dev.shardkit.sharding.ddata.Replicas.get;
import static dev.shardkit.sharding.ddata.Replicas.storedState;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.ClusterSharding;
import dev.shardkit.sharding.Entity;
import dev.shardkit.sharding.EntityTypeKey;
import dev.shardkit.sharding.ShardingSettings;
import dev.shardkit.sharding.StableHashMessageExtractor;
import dev.shardkit.sharding.ddata.internal.CoordinatorStateReader;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.BeginHandOff;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.RegisterAck;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.ShardHome;
import dev.shardkit.sharding.spi.CoordinatorEvent.RegionRegistered;
import dev.shardkit.sharding.spi.CoordinatorEvent.ShardHomeAllocated;
import dev.shardkit.sharding.spi.CoordinatorState;
import dev.shardkit.sharding.spi.CoordinatorStateStore;
import dev.shardkit.sharding.spi.CoordinatorStateSupersededException;
import dev.shardkit.sharding.testsupport.Recorder;
import dev.shardkit.sharding.testsupport.Recorder.Command;
import dev.shardkit.sharding.testsupport.Recorder.Msg;
import dev.shardkit.sharding.testsupport.RegionRefs;
import dev.shardkit.sharding.testkit.TestCluster;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.junit.jupiter.api.Test;

/**
 * On five nodes with the ddata store: a coordinator that took over before the current one (so its
 * term is lower) writes late and tells the regions of a home, at its term. The replicas cannot
 * refuse every such write (ddata has no compare-and-set), so correctness rests on the terms: no
 * region acts on the home, the record a loading coordinator reads (by majority) is still the
 * current coordinator's, and sharding goes on with every entity alive once.
 */
class DDataFencingTest {
  static final EntityTypeKey<Command> KEY = EntityTypeKey.create(Command.class, "DDataFenced");
  static final int SHARDS = 20;
  // No rebalancing: every home in this test is one the coordinator gave on demand.
  static final String CONFIG = """
      shardkit.sharding.state-store-mode = ddata
      shardkit.sharding.ddata { write-timeout = 3s, read-timeout = 3s }
      shardkit.sharding.least-shard-allocation-strategy.rebalance-threshold = 1000
      """;
  static final DDataCoordinatorStateStoreProvider PROVIDER = new DDataCoordinatorStateStoreProvider();

  static ShardingSettings settings(ActorSystem<?> system) {
    return ShardingSettings.create(system).withNumberOfShards(SHARDS).withPlaceAllShardsAtStart(false);
  }

  @Test
  void aDeposedCoordinatorsLateWriteChangesNothingAnyRegionActsOn() throws Exception {
    Recorder.reset();
    try (TestCluster cluster = new TestCluster("DDataFence")) {
      for (int i = 0; i < 5; i++) {
        cluster.add(CONFIG);
      }
      cluster.awaitUp(5);
      for (ActorSystem<Void> s : cluster.systems()) {
        PROVIDER.startOnNode(s, KEY.name(), settings(s));
      }
      // A coordinator that took over and was deposed: its store loads on node 4 before sharding
      // starts, so the coordinator that then starts on node 0 takes over from it with a greater term.
      CoordinatorStateStore deposed = PROVIDER.create(cluster.system(4), KEY.name(), settings(cluster.system(4)));
      long deposedTerm = get(deposed.load()).term();
      for (ActorSystem<Void> s : cluster.systems()) {
        ClusterSharding.get(s).start(Entity.of(KEY, Recorder::create).withSettings(settings(s)));
      }
      ClusterSharding.get(cluster.system(1)).entityRefFor(KEY, "a").tell(new Msg("n1", 1));
      Recorder.awaitReceived(cluster.system(1), KEY, "a", 1);
      String shardOfA = StableHashMessageExtractor.shardIdFor("a", SHARDS);
      String other = null;
      for (int i = 0; other == null; i++) {
        if (!StableHashMessageExtractor.shardIdFor("x-" + i, SHARDS).equals(shardOfA)) {
          other = "x-" + i;
        }
      }
      String entity = other;
      String shard = StableHashMessageExtractor.shardIdFor(entity, SHARDS);
      CoordinatorStateReader.Stored current = storedState(cluster, 2, KEY.name());
      assertTrue(current.version().term() > deposedTerm, "the serving coordinator took over from the deposed one");

      // The late write: the deposed coordinator places the unused shard in node 4's region. Node 4's
      // replica refuses it if it has seen the take-over; else the replicas confirm it, and it loses
      // every merge against the current coordinator's records.
      ActorRef<Object> home = RegionRefs.regionOf(cluster, 4, 4, KEY.name());
      CoordinatorState late = CoordinatorState.empty().applied(new RegionRegistered(home))
          .applied(new ShardHomeAllocated(shard, home));
      try {
        get(deposed.store(List.of(new RegionRegistered(home), new ShardHomeAllocated(shard, home)), late));
      } catch (ExecutionException e) {
        // Refused by node 4's replica, or not confirmed in time (it may still have reached some).
        assertTrue(e.getCause() instanceof CoordinatorStateSupersededException
            || e.getCause() instanceof TimeoutException, String.valueOf(e.getCause()));
      }
      deposed.close();
      // ...and tells every region, at its term, as a deposed coordinator would.
      for (int node = 0; node < 5; node++) {
        ActorRef<Object> region = RegionRefs.regionOf(cluster, node, 4, KEY.name());
        region.tell(new RegisterAck(home, deposedTerm));
        region.tell(new ShardHome(shard, home, deposedTerm));
        region.tell(new BeginHandOff(shardOfA, home, Set.of(region), 1, deposedTerm));
      }
      for (int node = 0; node < 5; node++) {
        Set<String> hosted = RegionRefs.hostedShards(cluster, 4, RegionRefs.regionOf(cluster, node, 4, KEY.name()));
        assertFalse(hosted.contains(shard), "node " + node + " started shard " + shard + " from a stale home");
      }

      // What the next coordinator would load: still the current coordinator's record.
      CoordinatorStateReader.Stored read = storedState(cluster, 3, KEY.name());
      assertTrue(read.version().term() >= current.version().term(), read.version() + " after " + current.version());
      assertFalse(read.state().shards().containsKey(shard), "the late home is nowhere: " + read);
      assertTrue(read.state().shards().containsKey(shardOfA), read.toString());

      // Sharding goes on: the hand-off of a's shard was ignored, and the shard of the late write
      // gets its home from the current coordinator.
      ClusterSharding.get(cluster.system(2)).entityRefFor(KEY, "a").tell(new Msg("n2", 1));
      ClusterSharding.get(cluster.system(2)).entityRefFor(KEY, entity).tell(new Msg("n2", 1));
      Recorder.awaitReceived(cluster.system(1), KEY, "a", 2);
      Recorder.awaitReceived(cluster.system(1), KEY, entity, 1);
      assertTrue(Recorder.DOUBLE_INCARNATIONS.isEmpty(), "alive twice: " + Recorder.DOUBLE_INCARNATIONS);
    }
  }
}
