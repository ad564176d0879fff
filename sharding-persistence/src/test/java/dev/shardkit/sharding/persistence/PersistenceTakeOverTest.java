package dev.shardkit.sharding.persistence;

import static dev.shardkit.sharding.testsupport.persistence.StoreTestSupport.await;
import static dev.shardkit.sharding.testsupport.persistence.StoreTestSupport.storeAll;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.ClusterSharding;
import dev.shardkit.sharding.Entity;
import dev.shardkit.sharding.EntityTypeKey;
import dev.shardkit.sharding.ShardingSettings;
import dev.shardkit.sharding.StableHashMessageExtractor;
import dev.shardkit.sharding.testsupport.persistence.EmbeddedPostgresServer;
import dev.shardkit.sharding.spi.CoordinatorEvent.ShardHomeAllocated;
import dev.shardkit.sharding.spi.CoordinatorStateStore;
import dev.shardkit.sharding.spi.LoadedCoordinatorState;
import dev.shardkit.sharding.spi.ShardingEvent;
import dev.shardkit.sharding.testsupport.Recorder;
import dev.shardkit.sharding.testsupport.Recorder.Command;
import dev.shardkit.sharding.testsupport.Recorder.Msg;
import dev.shardkit.sharding.testkit.TelemetryRecorder;
import dev.shardkit.sharding.testkit.TestCluster;
import java.time.Duration;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.junit.jupiter.api.Test;

/**
 * With {@code state-store-mode = persistence} on a real PostgreSQL, another coordinator of the
 * type loads (takes over) and writes while the serving one still runs, as in a partition. The
 * serving coordinator's next write lands after its successor's: the store refuses it as
 * superseded, and the coordinator loads again and goes on serving, instead of retrying the
 * refused write from its stale state for ever.
 */
class PersistenceTakeOverTest {
  static final EntityTypeKey<Command> KEY = EntityTypeKey.create(Command.class, "TakenOver");
  static final int SHARDS = 20;

  @Test
  void aCoordinatorWhoseWriteLandsAfterItsSuccessorsLoadsAgainAndServes() throws Exception {
    Recorder.reset();
    try (EmbeddedPostgresServer postgres = EmbeddedPostgresServer.start();
        TestCluster cluster = new TestCluster("PersistenceTakeOver")) {
      String config = postgres.storeConfig() + """
          shardkit.sharding.state-store-mode = persistence
          shardkit.sharding.rebalance-interval = 1h
          """;
      // One node is enough: the successor's store is another instance, as on another node.
      cluster.add(config);
      cluster.awaitUp(1);
      for (ActorSystem<Void> s : cluster.systems()) {
        ClusterSharding.get(s).start(Entity.of(KEY, Recorder::create).withSettings(ShardingSettings.create(s)
            .withNumberOfShards(SHARDS).withPlaceAllShardsAtStart(false)));
      }
      ActorSystem<Void> sender = cluster.system(0);
      ClusterSharding.get(sender).entityRefFor(KEY, "a").tell(new Msg("n1", 1));
      Recorder.awaitReceived(sender, KEY, "a", 1);

      // Another coordinator takes over and stores a home (for a shard no message uses).
      CoordinatorStateStore successor = new PersistenceCoordinatorStateStoreProvider().create(sender, KEY.name(),
          ShardingSettings.create(sender));
      LoadedCoordinatorState taken = await(successor.load());
      ActorRef<Object> region = taken.state().regions().keySet().iterator().next();
      storeAll(successor, taken.state(), new ShardHomeAllocated("not-a-stable-hash-shard", region));
      successor.close();

      String shardOfA = StableHashMessageExtractor.shardIdFor("a", SHARDS);
      String fresh = null;
      for (int i = 0; fresh == null; i++) {
        if (!StableHashMessageExtractor.shardIdFor("b-" + i, SHARDS).equals(shardOfA)) {
          fresh = "b-" + i;
        }
      }
      // Its home is a write of the serving coordinator, which its successor has superseded.
      ClusterSharding.get(sender).entityRefFor(KEY, fresh).tell(new Msg("n1", 1));
      TelemetryRecorder.of(sender).await(Duration.ofSeconds(30), ShardingEvent.CoordinatorSuperseded.class,
          KEY.name());
      Recorder.awaitReceived(sender, KEY, fresh, 1);
      ClusterSharding.get(sender).entityRefFor(KEY, "a").tell(new Msg("n1", 2));
      Recorder.awaitReceived(sender, KEY, "a", 2);
      assertTrue(Recorder.DOUBLE_INCARNATIONS.isEmpty(), "alive twice: " + Recorder.DOUBLE_INCARNATIONS);
    }
  }
}
