package dev.shardkit.sharding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.testsupport.Recorder;
import dev.shardkit.sharding.testsupport.Recorder.Command;
import dev.shardkit.sharding.testsupport.Recorder.Msg;
import dev.shardkit.sharding.testkit.TestCluster;
import dev.shardkit.sharding.testkit.TestLease;
import dev.shardkit.sharding.testkit.TestLeaseControl;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Leave;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * With {@code coordinator-lease}, a coordinator acts only while its node holds the lease: one that
 * loses it stops (a new shard gets no home) and serves again once its node holds the lease again;
 * and when the oldest node changes while the lease is held elsewhere, no coordinator starts until
 * the lease is free. The lease is shardkit's {@link TestLease}, shared by the nodes of each test's cluster.
 */
class CoordinatorLeaseTest {
  static final int SHARDS = 50;
  // The default retry interval (5 s) would make each test wait that long for every retry; the
  // behaviour does not depend on it.
  static final String CONFIG = TestLease.CONFIG + """
      shardkit.sharding.coordinator-lease = %s
      shardkit.sharding.coordinator-lease-retry-interval = 200ms
      """.formatted(TestLease.CONFIG_PATH);

  @BeforeEach
  void reset() {
    Recorder.reset();
  }

  /** Starts sharding on every node, and entity "a" from {@code sender}: a coordinator serves, holding the lease. */
  private static TestLeaseControl startServing(TestCluster cluster, EntityTypeKey<Command> key,
      ActorSystem<Void> sender) {
    for (ActorSystem<Void> s : cluster.systems()) {
      // Shards placed on demand: a new shard needs an acting coordinator.
      ClusterSharding.get(s).start(Entity.of(key, Recorder::create).withSettings(ShardingSettings.create(s)
          .withNumberOfShards(SHARDS).withPlaceAllShardsAtStart(false)));
    }
    ClusterSharding.get(sender).entityRefFor(key, "a").tell(new Msg("sender", 1));
    Recorder.awaitReceived(sender, key, "a", 1);
    return cluster.lease("shardkit-coordinator-" + key.name());
  }

  /** An entity id whose shard differs from {@code other}'s, so that its first message needs a placement. */
  private static String inAnotherShard(String prefix, String other) {
    String otherShard = StableHashMessageExtractor.shardIdFor(other, SHARDS);
    for (int i = 0; ; i++) {
      if (!StableHashMessageExtractor.shardIdFor(prefix + i, SHARDS).equals(otherShard)) {
        return prefix + i;
      }
    }
  }

  /** Waits until {@code more} further requests for the lease were refused: that much time passed without it. */
  private static void awaitRefusals(TestLeaseControl lease, long more) {
    long target = lease.refusals() + more;
    TestCluster.await(Duration.ofSeconds(30), () -> lease.refusals() >= target, more + " more lease refusals");
  }

  private static boolean notStarted(String id) {
    AtomicInteger live = Recorder.LIVE.get(id);
    return live == null || live.get() == 0;
  }

  @Test
  void aCoordinatorThatLosesTheLeasePlacesNothingUntilItHoldsItAgain() throws Exception {
    EntityTypeKey<Command> key = EntityTypeKey.create(Command.class, "LeaseLost");
    try (TestCluster cluster = new TestCluster("LeaseLost")) {
      cluster.add(CONFIG);
      cluster.add(CONFIG);
      cluster.awaitUp(2);
      ActorSystem<Void> sender = cluster.system(1);
      TestLeaseControl lease = startServing(cluster, key, sender);
      assertEquals(Optional.of(cluster.address(0).hostPort()), lease.holder(), "the oldest node holds the lease");

      lease.refuseAll();
      lease.revoke();
      // The manager asks for the lease again only once the coordinator has stopped; every
      // refusal after that is time without a coordinator.
      awaitRefusals(lease, 1);
      String fresh = inAnotherShard("b-", "a");
      ClusterSharding.get(sender).entityRefFor(key, fresh).tell(new Msg("sender", 1));
      awaitRefusals(lease, 10);
      assertTrue(notStarted(fresh), "no shard is placed while no node holds the lease");
      ClusterSharding.get(sender).entityRefFor(key, "a").tell(new Msg("sender", 2));
      Recorder.awaitReceived(sender, key, "a", 2);

      lease.grantAll();
      Recorder.awaitReceived(sender, key, fresh, 1);
      assertEquals(Optional.of(cluster.address(0).hostPort()), lease.holder());
      assertTrue(Recorder.DOUBLE_INCARNATIONS.isEmpty(), "alive twice: " + Recorder.DOUBLE_INCARNATIONS);
    }
  }

  @Test
  void theNextOldestNodeStartsNoCoordinatorWhileTheLeaseIsHeldElsewhere() throws Exception {
    EntityTypeKey<Command> key = EntityTypeKey.create(Command.class, "LeaseHeld");
    try (TestCluster cluster = new TestCluster("LeaseHeld")) {
      // One after the other, so that node 1 is the next oldest.
      for (int i = 0; i < 3; i++) {
        cluster.add(CONFIG);
        cluster.awaitUp(i + 1);
      }
      ActorSystem<Void> sender = cluster.system(2);
      TestLeaseControl lease = startServing(cluster, key, sender);

      // The oldest node leaves (its shards are handed off by its coordinator, which still holds
      // the lease), and on the other side of a partition someone holds the lease meanwhile.
      lease.refuseAll();
      Cluster.get(cluster.system(0)).manager().tell(new Leave(cluster.address(0)));
      cluster.system(0).getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
      awaitRefusals(lease, 1);
      lease.holdElsewhere("the-other-side");
      lease.grantAll();

      String fresh = inAnotherShard("b-", "a");
      ClusterSharding.get(sender).entityRefFor(key, fresh).tell(new Msg("sender", 1));
      awaitRefusals(lease, 10);
      assertTrue(notStarted(fresh), "no coordinator placed a shard while the lease was held elsewhere");

      lease.free();
      Recorder.awaitReceived(sender, key, fresh, 1);
      assertEquals(Optional.of(cluster.address(1).hostPort()), lease.holder(), "the next oldest node took it");
      // "a" answers (a new incarnation if its shard was handed off from the node that left).
      assertEquals("a", Recorder.ask(sender, key, "a").entityId());
      assertTrue(Recorder.DOUBLE_INCARNATIONS.isEmpty(), "alive twice: " + Recorder.DOUBLE_INCARNATIONS);
    }
  }
}
