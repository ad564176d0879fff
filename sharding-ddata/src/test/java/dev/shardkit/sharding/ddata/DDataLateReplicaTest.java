package dev.shardkit.sharding.ddata;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.shardkit.sharding.ClusterSharding;
import dev.shardkit.sharding.Entity;
import dev.shardkit.sharding.EntityTypeKey;
import dev.shardkit.sharding.testkit.LogCapture;
import dev.shardkit.sharding.testkit.Recorder;
import dev.shardkit.sharding.testkit.Recorder.Command;
import dev.shardkit.sharding.testkit.Recorder.Report;
import dev.shardkit.sharding.testkit.TestCluster;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A member of the role is a replica from the moment it is Up, but its replicator starts only with
 * its first entity type. A coordinator that starts before that waits for the replicator, not for
 * its read to time out; and while the replicator does not run, the read fails naming the node.
 */
class DDataLateReplicaTest {
  static final String CONFIG = "shardkit.sharding.state-store-mode = ddata\n";

  @Test
  void aCoordinatorThatStartsFirstServesAsSoonAsTheOtherNodeStartsSharding() throws Exception {
    EntityTypeKey<Command> key = EntityTypeKey.create(Command.class, "Late");
    // A read that waited for its timeout would take 30 s: far beyond the ask below.
    String config = CONFIG + "shardkit.sharding.ddata.read-timeout = 30s\n";
    try (LogCapture logs = new LogCapture(); TestCluster cluster = new TestCluster("DDataLate")) {
      startTwoNodes(cluster, config);
      ClusterSharding.get(cluster.system(0)).start(Entity.of(key, Recorder::create));
      // The coordinator has started reading its state, and node 1 runs no replicator yet.
      logs.await(Duration.ofSeconds(30), "Coordinator of entity type [Late] started on");
      Thread.sleep(500);
      ClusterSharding.get(cluster.system(1)).start(Entity.of(key, Recorder::create));

      Report report = ClusterSharding.get(cluster.system(0)).entityRefFor(key, "late-1")
          .<Report>ask(Recorder.Get::new, Duration.ofSeconds(10)).toCompletableFuture().get(15, TimeUnit.SECONDS);
      assertEquals("late-1", report.entityId());
      assertEquals(List.of(), logs.matching("reading the coordinator state", "failed"),
          "the coordinator's read did not time out");
    }
  }

  @Test
  void whileANodeRunsNoReplicatorTheReadFailsNamingIt() throws Exception {
    EntityTypeKey<Command> key = EntityTypeKey.create(Command.class, "Lonely");
    String config = CONFIG + "shardkit.sharding.ddata.read-timeout = 1s\n";
    try (LogCapture logs = new LogCapture(); TestCluster cluster = new TestCluster("DDataLonely")) {
      startTwoNodes(cluster, config);
      ClusterSharding.get(cluster.system(0)).start(Entity.of(key, Recorder::create));
      logs.await(Duration.ofSeconds(30), "Entity type [Lonely]: reading the coordinator state",
          "failed: shardkit's replicator shardkit-replicator does not run yet on [" + cluster.address(1) + "]",
          "(no entity type of this cluster started there yet?) within 1000 ms", "(attempt 1 of 4); trying again");
    }
  }

  /** Two nodes, Up; sharding started on neither. */
  static void startTwoNodes(TestCluster cluster, String config) {
    for (int i = 0; i < 2; i++) {
      cluster.add(config);
      cluster.awaitUp(i + 1);
    }
  }
}
