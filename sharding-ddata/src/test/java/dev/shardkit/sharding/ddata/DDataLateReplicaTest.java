package dev.shardkit.sharding.ddata;

import static org.junit.jupiter.api.Assertions.assertEquals;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import dev.shardkit.sharding.ClusterSharding;
import dev.shardkit.sharding.Entity;
import dev.shardkit.sharding.EntityTypeKey;
import dev.shardkit.sharding.spi.ShardingEvent;
import dev.shardkit.sharding.testsupport.LogCapture;
import dev.shardkit.sharding.testsupport.Recorder;
import dev.shardkit.sharding.testsupport.Recorder.Command;
import dev.shardkit.sharding.testsupport.Recorder.Report;
import dev.shardkit.sharding.testkit.TelemetryRecorder;
import dev.shardkit.sharding.testkit.TestCluster;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * A member of the role is a replica from the moment it is Up, but its replicator starts only with
 * its first entity type. A coordinator that starts before that waits for the replicator, not for
 * its read to time out; and while the replicator does not run, the read fails naming the node.
 */
class DDataLateReplicaTest {
  static final String CONFIG = "shardkit.sharding.state-store-mode = ddata\n";
  /**
   * The logger of Pekko's log of the messages a node of the cluster {@code DDataLate} receives over
   * Artery: Pekko names it after the class and the actor system.
   */
  static final String RECEIVED_LOG = "org.apache.pekko.remote.artery.MessageDispatcher(pekko://DDataLate)";

  @Test
  void aCoordinatorThatStartsFirstServesAsSoonAsTheOtherNodeStartsSharding() throws Exception {
    EntityTypeKey<Command> key = EntityTypeKey.create(Command.class, "Late");
    // A read that waited for its timeout would take 30 s: far beyond the ask below.
    String config = CONFIG + "shardkit.sharding.ddata.read-timeout = 30s\n";
    // Node 1 logs what reaches it over the network (Pekko's own debug log of received messages),
    // so that the test sees the coordinator's read asking it whether its replicator runs.
    Logger received = (Logger) LoggerFactory.getLogger(RECEIVED_LOG);
    received.setLevel(Level.DEBUG);
    try (LogCapture logs = new LogCapture(); TestCluster cluster = new TestCluster("DDataLate")) {
      // Only to the capture, not the console: node 1 receives a few hundred messages meanwhile.
      received.setAdditive(false);
      received.addAppender(logs);
      cluster.add(config);
      cluster.awaitUp(1);
      cluster.add(config + "pekko.loglevel = DEBUG\npekko.remote.artery.log-received-messages = on\n");
      cluster.awaitUp(2);
      ClusterSharding.get(cluster.system(0)).start(Entity.of(key, Recorder::create));
      // Before it reads, the coordinator's store asks node 1 whether the replicator runs there, and
      // asks again only after the answer "not yet": a second question means the read is waiting
      // for node 1, the interleaving this test is about, however slow the machine.
      logs.awaitCount(Duration.ofSeconds(30), 2, "received message", "Identify(/system/shardkit-replicator)");
      ClusterSharding.get(cluster.system(1)).start(Entity.of(key, Recorder::create));

      Report report = ClusterSharding.get(cluster.system(0)).entityRefFor(key, "late-1")
          .<Report>ask(Recorder.Get::new, Duration.ofSeconds(10)).toCompletableFuture().get(15, TimeUnit.SECONDS);
      assertEquals("late-1", report.entityId());
      assertEquals(List.of(), logs.matching("reading the coordinator state", "failed"),
          "the coordinator's read did not time out");
    } finally {
      received.detachAndStopAllAppenders();
      received.setAdditive(true);
      received.setLevel(null);
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
      // Shown. Node 1's replicator now starts, so that the coordinator loads and the region on
      // node 0 can hand off and stop when the cluster closes, instead of waiting out the
      // shutdown phase's timeout.
      ClusterSharding.get(cluster.system(1)).start(Entity.of(key, Recorder::create));
      TelemetryRecorder.of(cluster.system(0)).await(Duration.ofSeconds(30), ShardingEvent.CoordinatorLoaded.class,
          "Lonely");
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
