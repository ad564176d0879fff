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
 * resolver (keep-majority) downs it. Done twice on fresh clusters: killing a node that does not
 * run the coordinator, then killing the coordinator's node.
 *
 * <p>A message sent to a node in the moment between its death and the others noticing is lost
 * with it, whoever runs the coordinator. Asserted: once a sender has seen the node unreachable,
 * every message it sends arrives (held in its region, then delivered at the shard's new home);
 * killing the coordinator's node loses no more of the survivors' messages than killing another
 * node; and, by an external witness ({@link WitnessLog}), no entity ever had two incarnations
 * processing at the same time, and every sender's messages were processed in the order sent.
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

  @Test
  @Timeout(value = 600, unit = TimeUnit.SECONDS)
  void killingTheCoordinatorsNodeLosesNoMoreThanKillingAnother() throws Exception {
    Outcome other = killOneUnderTraffic(false);
    killNodes();
    Outcome coordinator = killOneUnderTraffic(true);
    System.out.printf("Killed a node without the coordinator: lost %d of %d (%.2f %%) of the survivors' messages%n",
        other.lost(), other.sent(), other.lostPercent());
    System.out.printf("Killed the coordinator's node:         lost %d of %d (%.2f %%) of the survivors' messages%n",
        coordinator.lost(), coordinator.sent(), coordinator.lostPercent());
    System.out.println(other.witness() + "\n" + coordinator.witness());
    assertEquals(0, other.lostAfterDetection(), "lost after the senders saw the node unreachable: " + other);
    assertEquals(0, coordinator.lostAfterDetection(), "lost after the senders saw the node unreachable: "
        + coordinator);
    // Both lose only what was on its way to the dead node before it was noticed; how long
    // noticing takes varies a little between runs, hence the slack.
    assertTrue(coordinator.lostPercent() <= 2 * other.lostPercent() + 0.5,
        "killing the coordinator's node lost " + coordinator + ", killing another node lost " + other);
  }

  private Outcome killOneUnderTraffic(boolean killCoordinator) throws Exception {
    java.nio.file.Path witnessDir = java.nio.file.Path.of("target", "crash", killCoordinator ? "coordinator" : "other",
        "witness");
    group = NodeGroup.start(NODES, FailoverNode.class, List.of(Integer.toString(NODES), Integer.toString(ENTITIES),
        Integer.toString(NODE_DEADLINE_SECONDS), FAST_DOWNING, witnessDir.toString()));
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
    // Steady traffic first, so every shard has a home and every sender knows it.
    Thread.sleep(5_000);
    List<NodeProcess> survivors = new ArrayList<>(nodes);
    survivors.remove(victim);
    for (NodeProcess node : survivors) {
      node.command("MARK");
    }
    victim.process.destroyForcibly();
    // Detection, downing, the coordinator's move and the shards' new homes, under traffic.
    Thread.sleep(30_000);
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
        .assertSingleWriterInOrder("killed " + victim.name + (killCoordinator ? " (the coordinator's node)" : ""));
    return new Outcome(victim.name, sent, lost, lostAfterDetection, reports, witness);
  }
}
