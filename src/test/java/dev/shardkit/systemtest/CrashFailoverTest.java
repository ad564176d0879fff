package dev.shardkit.systemtest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Four node processes under steady traffic; one is killed with SIGKILL and the split-brain
 * resolver (keep-majority) downs it. Done three times on fresh clusters: killing a node that does
 * not run the coordinator, killing the coordinator's node, and killing a node that does not run
 * the coordinator with {@code remote-delivery.redeliver-unacknowledged-after-crash} on.
 *
 * <p>A message a sender's link sent to the node in the moment between its death and the others
 * noticing, and that the node never acknowledged, is lost with it, whoever runs the coordinator;
 * what the link had not sent yet goes to the shards' new homes. Asserted: once a sender has seen
 * the node unreachable,
 * every message it sends arrives (held in its region, then delivered at the shard's new home);
 * killing the coordinator's node loses no more of the survivors' messages than killing another
 * node; with redelivery, at most a tenth of what the same kill loses without it (the
 * unacknowledged messages go to the new homes too, at least once); and, by an external witness
 * ({@link WitnessLog}), no entity ever had two incarnations processing at the same time, and every
 * sender's messages were processed in the order sent (with redelivery, a message the dead node
 * processed before its acknowledgement was lost may be processed once more, by the next
 * incarnation, in its place in the order).
 */
class CrashFailoverTest {
  private static final int NODES = 4;
  private static final int ENTITIES = 100;
  private static final int NODE_DEADLINE_SECONDS = 400;
  private static final String FAST_DOWNING = """
      pekko.cluster.failure-detector.acceptable-heartbeat-pause = 5s
      pekko.cluster.split-brain-resolver.stable-after = 5s
      """;

  private NodeGroup group;

  /** What the surviving senders reported for one kill, and what the witness saw. */
  private record Outcome(String killed, long sent, long lost, long lostAfterDetection, List<String> reports,
      String witness) {
    double lostPercent() {
      return 100.0 * lost / Math.max(1, sent);
    }
  }

  @AfterEach
  void killNodes() throws InterruptedException {
    if (group != null) {
      group.close();
    }
  }

  private static final String REDELIVER = "shardkit.sharding.remote-delivery.redeliver-unacknowledged-after-crash = on\n";

  @Test
  @Timeout(value = 900, unit = TimeUnit.SECONDS)
  void killingTheCoordinatorsNodeLosesNoMoreThanKillingAnotherAndRedeliveryLosesAlmostNothing() throws Exception {
    Outcome other = killOneUnderTraffic(false, false);
    killNodes();
    Outcome coordinator = killOneUnderTraffic(true, false);
    killNodes();
    Outcome redelivering = killOneUnderTraffic(false, true);
    System.out.printf("Killed a node without the coordinator: lost %d of %d (%.2f %%) of the survivors' messages%n",
        other.lost(), other.sent(), other.lostPercent());
    System.out.printf("Killed the coordinator's node:         lost %d of %d (%.2f %%) of the survivors' messages%n",
        coordinator.lost(), coordinator.sent(), coordinator.lostPercent());
    System.out.printf("Killed a node, redelivering:          lost %d of %d (%.2f %%) of the survivors' messages%n",
        redelivering.lost(), redelivering.sent(), redelivering.lostPercent());
    System.out.println(other.witness() + "\n" + coordinator.witness() + "\n" + redelivering.witness());
    assertEquals(0, other.lostAfterDetection(), "lost after the senders saw the node unreachable: " + other);
    assertEquals(0, coordinator.lostAfterDetection(), "lost after the senders saw the node unreachable: "
        + coordinator);
    // Both lose only what was on its way to the dead node before it was noticed; how long
    // noticing takes varies a little between runs, hence the slack.
    assertTrue(coordinator.lostPercent() <= 2 * other.lostPercent() + 0.5,
        "killing the coordinator's node lost " + coordinator + ", killing another node lost " + other);
    assertEquals(0, redelivering.lostAfterDetection(), "lost after the senders saw the node unreachable: "
        + redelivering);
    assertTrue(redelivering.lost() * 10 <= other.lost(), "with redelivery a kill lost " + redelivering
        + ", more than a tenth of what the kill without it lost: " + other);
  }

  private Outcome killOneUnderTraffic(boolean killCoordinator, boolean redeliver) throws Exception {
    java.nio.file.Path witnessDir = java.nio.file.Path.of("target", "crash",
        (killCoordinator ? "coordinator" : "other") + (redeliver ? "-redelivering" : ""), "witness");
    group = NodeGroup.start(NODES, FailoverNode.class, List.of(Integer.toString(NODES), Integer.toString(ENTITIES),
        Integer.toString(NODE_DEADLINE_SECONDS), FAST_DOWNING + (redeliver ? REDELIVER : ""), witnessDir.toString()),
        witnessDir.resolveSibling("logs"));
    List<NodeProcess> nodes = group.nodes();
    NodeProcess victim = null;
    for (NodeProcess node : nodes) {
      Map<String, String> formed = node.await("FORMED", 240);
      boolean runsCoordinator = Boolean.parseBoolean(formed.get("coordinator"));
      if (runsCoordinator == killCoordinator && (victim == null || !killCoordinator)) {
        victim = node;
      }
    }
    assertTrue(victim != null, "a node to kill (coordinator: " + killCoordinator + ")");
    for (NodeProcess node : nodes) {
      node.command("TRAFFIC");
    }
    for (NodeProcess node : nodes) {
      node.await("STARTED", 30);
    }
    // Steady traffic first: every entity has answered every sender, so every shard has a home
    // and every sender knows it.
    NodeProcess.awaitOnAll(nodes, "AWAIT ANSWERED", 120);
    List<NodeProcess> survivors = new ArrayList<>(nodes);
    survivors.remove(victim);
    for (NodeProcess node : survivors) {
      node.command("MARK");
    }
    victim.process.destroyForcibly();
    // Detection, downing, the coordinator's move and the shards' new homes, under traffic: each
    // survivor goes on until it has seen the killed node removed and every entity has answered
    // it a message sent after that; then it stops sending and reports once nothing it sent is
    // still held or unacknowledged anywhere (FailoverNode's STOP). Each node's output is kept in
    // target/crash/<case>/logs.
    NodeProcess.awaitOnAll(survivors, "AWAIT REMOVED", 240);
    for (NodeProcess node : survivors) {
      node.command("STOP");
    }
    long sent = 0;
    long lost = 0;
    long lostAfterDetection = 0;
    List<String> reports = new ArrayList<>();
    for (NodeProcess node : survivors) {
      Map<String, String> report = node.await("REPORT", 120);
      reports.add(report.toString());
      assertTrue(Integer.parseInt(report.get("unreachableAt")) >= 0, node.name + " saw the killed node unreachable: "
          + report);
      sent += Long.parseLong(report.get("sentSinceMark"));
      lost += Long.parseLong(report.get("lostSinceMark"));
      lostAfterDetection += Long.parseLong(report.get("lostAfterDetection"));
    }
    String witness = WitnessLog.read(witnessDir, NODES)
        .assertSingleWriterInOrder("killed " + victim.name + (killCoordinator ? " (the coordinator's node)" : "")
            + (redeliver ? ", redelivering" : ""), redeliver);
    return new Outcome(victim.name, sent, lost, lostAfterDetection, reports, witness);
  }
}
