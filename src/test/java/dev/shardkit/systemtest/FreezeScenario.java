package dev.shardkit.systemtest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Four node processes under steady traffic; one of them (the oldest, which runs the coordinator,
 * or the youngest) is frozen with SIGSTOP and thawed with SIGCONT, once for less time than the
 * cluster takes to down it and once for longer. An external witness ({@link Witness}, one file per
 * node, one clock) records every incarnation's start and every message it processes, and every
 * message sent; {@link WitnessLog} then checks, over the whole run:
 * <ul>
 *   <li>no entity had two incarnations whose processing overlapped in time;
 *   <li>each sender's messages to each entity were processed in the order sent, none twice;
 *   <li>nothing was lost, except what a sender handed on towards the frozen node before it saw the
 *       node unreachable, in the freeze after which the node was downed (that node's memory is
 *       gone for the cluster, as in a crash); for the frozen node's own messages, anything it sent
 *       from just before the freeze that was downed.
 * </ul>
 */
final class FreezeScenario {

  /** Which node is frozen. */
  enum Victim { OLDEST, YOUNGEST }

  /**
   * How long a freeze lasts: until every other node has seen the frozen one unreachable (plus
   * {@code extra}); until every other node has seen it removed and one of them has started one of
   * its entities (plus {@code extra}); or a fixed time.
   */
  record Freeze(String name, Until until, Duration extra) {}

  enum Until { UNREACHABLE, REMOVED, FIXED }

  /**
   * @param config cluster configuration for every node, over {@link NodeSupport#config}'s
   */
  record Plan(int entities, int perSecond, String config, Duration warmUp, List<Freeze> freezes,
      Duration afterThaw) {}

  private static final int NODES = 4;
  private static final int NODE_DEADLINE_SECONDS = 600;
  /**
   * Slack around the moments that excuse a loss: a message handed to the transport just before
   * the freeze may still be in the frozen node's socket buffers, and a sender's region hears a node
   * is unreachable a moment after the sender's own listener does.
   */
  private static final long MARGIN_NANOS = Duration.ofSeconds(1).toNanos();

  private FreezeScenario() {}

  /** Runs the plan, prints what the witness saw and asserts the three checks. */
  static void run(String testName, Victim victimKind, Plan plan) throws Exception {
    Path dir = Path.of("target", "freeze", testName);
    Path witnessDir = dir.resolve("witness");
    try (NodeGroup group = NodeGroup.start(NODES, FreezeNode.class, List.of(Integer.toString(NODES),
        Integer.toString(plan.entities()), Integer.toString(plan.perSecond()), Integer.toString(NODE_DEADLINE_SECONDS),
        witnessDir.toString(), plan.config()), dir.resolve("logs"))) {
      List<NodeProcess> nodes = group.nodes();
      Map<NodeProcess, Map<String, String>> formed = new HashMap<>();
      for (NodeProcess node : nodes) {
        formed.put(node, node.await("FORMED", 240));
      }
      NodeProcess victim = null;
      for (NodeProcess node : nodes) {
        int rank = Integer.parseInt(formed.get(node).get("rank"));
        if (victimKind == Victim.OLDEST ? rank == 0 : rank == NODES - 1) {
          victim = node;
        }
      }
      assertTrue(victim != null, "a node of rank " + victimKind + " in " + formed.values());
      if (victimKind == Victim.OLDEST) {
        assertEquals("true", formed.get(victim).get("coordinator"), "the oldest node runs the coordinator");
      }
      String victimPort = formed.get(victim).get("port");
      List<NodeProcess> others = new ArrayList<>(nodes);
      others.remove(victim);
      for (NodeProcess node : nodes) {
        node.command("TRAFFIC");
      }
      for (NodeProcess node : nodes) {
        node.await("STARTED", 30);
      }
      Thread.sleep(plan.warmUp().toMillis());

      List<String> timeline = new ArrayList<>();
      List<long[]> frozen = new ArrayList<>();
      for (Freeze freeze : plan.freezes()) {
        long start = System.nanoTime();
        signal(victim, "STOP");
        switch (freeze.until()) {
          case UNREACHABLE -> awaitSaw(others, "unreachable", victimPort);
          case REMOVED -> {
            awaitSaw(others, "removed", victimPort);
            awaitAnyAdopted(others);
          }
          case FIXED -> { }
        }
        Thread.sleep(freeze.extra().toMillis());
        long thaw = System.nanoTime();
        signal(victim, "CONT");
        frozen.add(new long[] {start, thaw});
        timeline.add(freeze.name() + ": frozen " + (thaw - start) / 1_000_000 + " ms");
        if (freeze.until() == Until.UNREACHABLE) {
          // The others take it back: it was not frozen long enough to be downed.
          awaitSaw(others, "reachable", victimPort);
        }
        Thread.sleep(plan.afterThaw().toMillis());
      }

      for (NodeProcess node : nodes) {
        node.command("STOP");
      }
      Map<String, String> victimReport = null;
      for (NodeProcess node : nodes) {
        Map<String, String> report = node.await("REPORT", 120);
        if (node == victim) {
          victimReport = report;
        }
      }

      WitnessLog log = WitnessLog.read(witnessDir, NODES);
      int victimIndex = FreezeNode.nodeIndex(victim.name);
      int port = Integer.parseInt(victimPort);
      // The freeze during which the others downed the node, if one did: the last to begin before
      // the first of them saw it downed.
      long downedSeen = Long.MAX_VALUE;
      for (int node = 0; node < NODES; node++) {
        if (node != victimIndex) {
          long seen = log.firstSaw(node, Witness.SAW_DOWNED, port, Long.MIN_VALUE);
          downedSeen = seen < 0 ? downedSeen : Math.min(downedSeen, seen);
        }
      }
      long[] downing = null;
      for (long[] f : frozen) {
        if (f[0] <= downedSeen) {
          downing = downedSeen == Long.MAX_VALUE ? null : f;
        }
      }
      long downedAt = downing == null ? -1 : downing[0];
      Map<String, String> lost = new HashMap<>();
      long unexcused = 0;
      for (int sender = 0; sender < NODES; sender++) {
        int s = sender;
        long sawUnreachable = downedAt < 0 ? -1 : log.firstSaw(sender, Witness.SAW_UNREACHABLE, port, downedAt);
        WitnessLog.Excuse excuse = (from, sentAt) -> downedAt >= 0 && sentAt >= downedAt - MARGIN_NANOS
            && (s == victimIndex || sawUnreachable < 0 || sentAt <= sawUnreachable + MARGIN_NANOS);
        long[] l = log.lost(sender, excuse);
        unexcused += l[1];
        lost.put("node" + (sender + 1), "sent " + log.sentBy(sender) + ", lost " + l[0] + " (" + l[1] + " unexcused)");
      }
      long moved = downing == null ? 0 : log.movedAway(victimIndex, downing[0], downing[1]);
      List<WitnessLog.Overlap> overlaps = log.overlaps();
      System.out.println(testName + ": froze " + victim.name + " (" + victimKind + "); " + timeline
          + "; frozen node at the end: " + victimReport + "\n  entities of the frozen node started elsewhere "
          + "while it was frozen: " + moved + "\n  messages: " + lost + "\n  first overlaps: "
          + overlaps.stream().limit(5).map(WitnessLog.Overlap::toString).collect(Collectors.joining("; ")));
      System.out.println("  " + log.assertSingleWriterInOrder(testName));
      assertEquals(0, unexcused, "messages lost: " + lost);
      if (plan.freezes().get(plan.freezes().size() - 1).until() == Until.REMOVED) {
        assertTrue(downedAt >= 0, "the others downed the frozen node: " + victimReport);
        assertTrue(!"Up".equals(victimReport.get("status")), "the frozen node learned it was downed: " + victimReport);
        assertTrue(moved > 0, "the frozen node's entities started elsewhere while it was frozen");
      }
    }
  }

  private static void awaitSaw(List<NodeProcess> nodes, String event, String port) throws InterruptedException {
    for (NodeProcess node : nodes) {
      while (true) {
        Map<String, String> saw = node.await("SAW", 120);
        if (event.equals(saw.get("event")) && port.equals(saw.get("port"))) {
          break;
        }
      }
    }
  }

  /** Waits until one of {@code nodes} has started an entity since it saw a node removed. */
  private static void awaitAnyAdopted(List<NodeProcess> nodes) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
    while (System.nanoTime() < deadline) {
      for (NodeProcess node : nodes) {
        if (node.poll("ADOPTED") != null) {
          return;
        }
      }
      Thread.sleep(50);
    }
    throw new AssertionError("no node started an entity of the removed node within 120 s");
  }

  private static void signal(NodeProcess node, String signal) throws Exception {
    Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(node.process.pid())).inheritIO().start();
    assertEquals(0, kill.waitFor(), "kill -" + signal);
  }
}
