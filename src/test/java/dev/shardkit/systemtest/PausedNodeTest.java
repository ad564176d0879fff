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
 * A node process is frozen with SIGSTOP under traffic for long enough that the others mark it
 * unreachable, then thawed with SIGCONT before the split-brain resolver would down it. While it
 * is unreachable, the other regions hold the messages for its shards; when it is reachable again
 * they send them on. Asserted: the other regions held messages for it while it was unreachable,
 * no message from any node is lost, the frozen node was really seen unreachable, and, by an external
 * witness ({@link WitnessLog}), no entity had two incarnations processing at the same time and every
 * sender's messages were processed in the order sent.
 */
class PausedNodeTest {
  private static final int NODES = 3;
  private static final int ENTITIES = 60;
  private static final int NODE_DEADLINE_SECONDS = 300;
  /** Unreachable after about 5 s of silence; downed only after 30 s more of an unchanged view. */
  private static final String SLOW_DOWNING = """
      pekko.cluster.failure-detector.acceptable-heartbeat-pause = 4s
      pekko.cluster.split-brain-resolver.stable-after = 30s
      """;

  private NodeGroup group;

  @AfterEach
  void killNodes() throws InterruptedException {
    if (group != null) {
      group.close();
    }
  }

  @Test
  @Timeout(value = 400, unit = TimeUnit.SECONDS)
  void messagesForAnUnreachableNodeAreHeldAndDeliveredWhenItIsBack() throws Exception {
    java.nio.file.Path witnessDir = java.nio.file.Path.of("target", "paused", "witness");
    group = NodeGroup.start(NODES, FailoverNode.class, List.of(Integer.toString(NODES), Integer.toString(ENTITIES),
        Integer.toString(NODE_DEADLINE_SECONDS), SLOW_DOWNING, witnessDir.toString()));
    List<NodeProcess> nodes = group.nodes();
    for (NodeProcess node : nodes) {
      node.await("FORMED", 240);
    }
    for (NodeProcess node : nodes) {
      node.command("TRAFFIC");
    }
    for (NodeProcess node : nodes) {
      node.await("STARTED", 30);
    }
    // Every shard has a home every sender knows before the freeze.
    NodeProcess.awaitOnAll(nodes, "AWAIT ANSWERED", 60);
    NodeProcess frozen = nodes.get(NODES - 1);
    List<NodeProcess> others = nodes.subList(0, NODES - 1);
    long frozenAt = System.nanoTime();
    signal(frozen, "STOP");
    // Unreachable after about 5 s of silence, far from being downed (30 s of an unchanged view more).
    NodeProcess.awaitOnAll(others, "AWAIT UNREACHABLE", 60);
    NodeProcess watcher = nodes.get(0);
    long held = 0;
    // The region hears of the unreachable node just after the listener did; from then on it holds.
    while (held == 0 && System.nanoTime() - frozenAt < TimeUnit.SECONDS.toNanos(20)) {
      watcher.command("HELD");
      held = Long.parseLong(watcher.await("HELD", 30).get("buffered"));
      if (held == 0) {
        Thread.sleep(50);
      }
    }
    signal(frozen, "CONT");
    long frozenMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - frozenAt);
    // Back: each of the others saw it reachable again and then had every entity answer it; the
    // thawed node itself has every entity answer it again.
    NodeProcess.awaitOnAll(others, "AWAIT REACHABLE", 120);
    NodeProcess.awaitOnAll(List.of(frozen), "AWAIT ANSWERED", 120);
    for (NodeProcess node : nodes) {
      node.command("STOP");
    }
    long sent = 0;
    long lost = 0;
    List<String> reports = new ArrayList<>();
    for (NodeProcess node : nodes) {
      Map<String, String> report = node.await("REPORT", 120);
      reports.add(node.name + " " + report);
      sent += Long.parseLong(report.get("sentSinceMark"));
      lost += Long.parseLong(report.get("lostSinceMark"));
      if (node != frozen) {
        assertTrue(Integer.parseInt(report.get("unreachableAt")) >= 0,
            node.name + " saw the frozen node unreachable: " + report);
      }
    }
    System.out.println("Froze a node for " + frozenMillis + " ms: " + watcher.name + " held " + held + " messages for it; lost " + lost
        + " of " + sent + " messages; " + reports);
    assertTrue(held > 0, "while the node was unreachable, messages for its shards were held, not sent: " + held);
    assertEquals(0, lost, "messages lost: " + reports);
    System.out.println(WitnessLog.read(witnessDir, NODES).assertSingleWriterInOrder("froze " + frozen.name));
  }

  private static void signal(NodeProcess node, String signal) throws Exception {
    Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(node.process.pid())).inheritIO().start();
    assertEquals(0, kill.waitFor(), "kill -" + signal);
  }
}
