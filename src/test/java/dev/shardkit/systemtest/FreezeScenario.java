package dev.shardkit.systemtest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Four node processes under steady traffic; nodes are frozen with SIGSTOP and thawed with SIGCONT
 * one after another, as a plan says: the oldest (which runs the coordinator) or a young one, for
 * less time than the cluster takes to down it, until it is downed, or until its entities have
 * started elsewhere. An external witness ({@link Witness}, one file per node, one clock) records
 * every incarnation's start and every message it processes, and every message sent;
 * {@link WitnessLog} then checks, over the whole run:
 * <ul>
 *   <li>no entity had two incarnations whose processing overlapped in time;
 *   <li>each sender's messages to each entity were processed in the order sent, none twice;
 *   <li>nothing was lost, except, for a freeze after which the node was downed, what another node
 *       handed on towards it before seeing it unreachable (that node's memory is gone for the
 *       cluster, as in a crash) and what the frozen node itself sent from just before the freeze.
 * </ul>
 */
final class FreezeScenario {

  /** Which node a freeze stops, by age at the start: the oldest runs the coordinator. */
  enum Target { OLDEST, YOUNGEST, SECOND_YOUNGEST }

  /**
   * How long a freeze lasts, plus {@code extra}: until every other node has seen the frozen one
   * unreachable (it is then seen reachable again); until one has seen it downed (it wakes as the
   * others are removing it); until every other node has seen it removed and one of them has
   * started one of its entities; or a fixed time.
   */
  enum Until { UNREACHABLE, DOWNED, REMOVED, FIXED }

  record Freeze(String name, Target target, Until until, Duration extra) {}

  /** @param config cluster configuration for every node, over {@link NodeSupport#config}'s */
  record Plan(int entities, int perSecond, String config, Duration warmUp, List<Freeze> freezes,
      Duration afterThaw) {}

  /** One freeze as it happened: the node (its index and port) and when, on the witness's clock. */
  private record Span(Freeze freeze, int node, int port, long start, long thaw) {}

  private static final int NODES = 4;
  private static final int NODE_DEADLINE_SECONDS = 600;
  /**
   * Slack around the moments that excuse a loss: a message handed to the transport just before
   * the freeze may still be in the frozen node's socket buffers, and a sender's region hears a node
   * is unreachable a moment after the sender's own listener does.
   */
  private static final long MARGIN_NANOS = Duration.ofSeconds(1).toNanos();

  private FreezeScenario() {}

  /** Runs the plan, prints what the witness saw and asserts the checks. */
  static void run(String testName, Plan plan) throws Exception {
    Path dir = Path.of("target", "freeze", testName);
    Path witnessDir = dir.resolve("witness");
    try (NodeGroup group = NodeGroup.start(NODES, FreezeNode.class, List.of(Integer.toString(NODES),
        Integer.toString(plan.entities()), Integer.toString(plan.perSecond()), Integer.toString(NODE_DEADLINE_SECONDS),
        witnessDir.toString(), plan.config()), dir.resolve("logs"))) {
      List<NodeProcess> nodes = group.nodes();
      Map<Integer, NodeProcess> byRank = new HashMap<>();
      Map<NodeProcess, Integer> ports = new HashMap<>();
      for (NodeProcess node : nodes) {
        Map<String, String> formed = node.await("FORMED", 240);
        byRank.put(Integer.parseInt(formed.get("rank")), node);
        ports.put(node, Integer.parseInt(formed.get("port")));
        if (formed.get("rank").equals("0")) {
          assertEquals("true", formed.get("coordinator"), "the oldest node runs the coordinator");
        }
      }
      assertEquals(Set.of(0, 1, 2, 3), byRank.keySet(), "four ranks of age");
      for (NodeProcess node : nodes) {
        node.command("TRAFFIC");
      }
      for (NodeProcess node : nodes) {
        node.await("STARTED", 30);
      }
      Thread.sleep(plan.warmUp().toMillis());

      List<Span> spans = new ArrayList<>();
      Set<NodeProcess> out = new HashSet<>();
      for (Freeze freeze : plan.freezes()) {
        NodeProcess victim = byRank.get(switch (freeze.target()) {
          case OLDEST -> 0;
          case YOUNGEST -> NODES - 1;
          case SECOND_YOUNGEST -> NODES - 2;
        });
        String port = Integer.toString(ports.get(victim));
        List<NodeProcess> others = new ArrayList<>(nodes);
        others.remove(victim);
        others.removeAll(out);
        long start = System.nanoTime();
        signal(victim, "STOP");
        switch (freeze.until()) {
          case UNREACHABLE -> awaitSaw(others, "unreachable", port);
          case DOWNED -> awaitAnySaw(others, "downed", port);
          case REMOVED -> {
            awaitSaw(others, "removed", port);
            awaitAny(others, "ADOPTED", m -> true, "started an entity of the removed node");
          }
          case FIXED -> { }
        }
        Thread.sleep(freeze.extra().toMillis());
        long thaw = System.nanoTime();
        signal(victim, "CONT");
        spans.add(new Span(freeze, FreezeNode.nodeIndex(victim.name), ports.get(victim), start, thaw));
        if (freeze.until() == Until.UNREACHABLE) {
          // The others take it back: it was not frozen long enough to be downed.
          awaitSaw(others, "reachable", port);
        }
        if (freeze.until() == Until.DOWNED || freeze.until() == Until.REMOVED) {
          out.add(victim);
        }
        Thread.sleep(plan.afterThaw().toMillis());
      }

      // Stop sending everywhere, let every region give up what it holds, then report.
      for (NodeProcess node : nodes) {
        node.command("STOP");
      }
      for (NodeProcess node : nodes) {
        assertEquals("0", node.await("STOPPED", 120).get("held"), node.name + " still holds messages");
      }
      for (NodeProcess node : nodes) {
        node.command("REPORT");
      }
      Map<Integer, Map<String, String>> reports = new HashMap<>();
      for (NodeProcess node : nodes) {
        reports.put(FreezeNode.nodeIndex(node.name), node.await("REPORT", 120));
      }

      WitnessLog log = WitnessLog.read(witnessDir, NODES);
      List<Span> downings = downings(log, spans);
      Map<String, String> lost = new HashMap<>();
      long unexcused = 0;
      for (int sender = 0; sender < NODES; sender++) {
        WitnessLog.Excuse excuse = excuse(log, downings);
        long[] l = log.lost(sender, excuse);
        unexcused += l[1];
        lost.put("node" + (sender + 1), "sent " + log.sentBy(sender) + ", lost " + l[0] + " (" + l[1] + " unexcused)");
      }
      List<String> timeline = new ArrayList<>();
      for (Span span : spans) {
        boolean downed = downings.contains(span);
        timeline.add(span.freeze().name() + ": node" + (span.node() + 1) + " (" + span.freeze().target() + ") frozen "
            + (span.thaw() - span.start()) / 1_000_000 + " ms, " + (downed ? "downed" : "let back in")
            + (downed ? ", " + log.movedAway(span.node(), span.start(), span.thaw())
                + " of its entities started elsewhere while it was frozen" : ""));
      }
      List<WitnessLog.Overlap> overlaps = log.overlaps();
      System.out.println(testName + ": " + String.join("; ", timeline) + "\n  nodes at the end: " + reports.values()
          + "\n  messages: " + lost + "\n  first overlaps: "
          + overlaps.stream().limit(5).map(WitnessLog.Overlap::toString).collect(Collectors.joining("; ")));
      System.out.println("  " + log.assertSingleWriterInOrder(testName));
      assertEquals(0, unexcused, "messages lost: " + lost);
      for (Span span : spans) {
        Until until = span.freeze().until();
        if (until == Until.UNREACHABLE) {
          assertTrue(!downings.contains(span), span.freeze().name() + ": let back in");
        }
        if (until == Until.DOWNED || until == Until.REMOVED) {
          assertTrue(downings.contains(span), span.freeze().name() + ": the others downed the frozen node");
          assertNotEquals("Up", reports.get(span.node()).get("status"),
              span.freeze().name() + ": the frozen node learned that it was downed");
        }
        if (until == Until.REMOVED) {
          assertTrue(log.movedAway(span.node(), span.start(), span.thaw()) > 0,
              span.freeze().name() + ": the frozen node's entities started elsewhere while it was frozen");
        }
      }
    }
  }

  /** The freezes during which the others downed the node: the last of its freezes before they saw it downed. */
  private static List<Span> downings(WitnessLog log, List<Span> spans) {
    List<Span> downings = new ArrayList<>();
    for (Span span : spans) {
      long seen = Long.MAX_VALUE;
      for (int node = 0; node < NODES; node++) {
        if (node != span.node()) {
          long t = log.firstSaw(node, Witness.SAW_DOWNED, span.port(), Long.MIN_VALUE);
          seen = t < 0 ? seen : Math.min(seen, t);
        }
      }
      Span last = null;
      for (Span s : spans) {
        if (s.node() == span.node() && s.start() <= seen) {
          last = s;
        }
      }
      if (seen != Long.MAX_VALUE && last == span) {
        downings.add(span);
      }
    }
    return downings;
  }

  /**
   * A lost message is excused if it went towards a node that was then downed: the frozen node's own
   * from just before its freeze on, another's from then until it saw the node unreachable.
   */
  private static WitnessLog.Excuse excuse(WitnessLog log, List<Span> downings) {
    return (sender, sentAt) -> {
      for (Span d : downings) {
        if (sentAt < d.start() - MARGIN_NANOS) {
          continue;
        }
        if (sender == d.node()) {
          return true;
        }
        long sawUnreachable = log.firstSaw(sender, Witness.SAW_UNREACHABLE, d.port(), d.start());
        if (sawUnreachable < 0 || sentAt <= sawUnreachable + MARGIN_NANOS) {
          return true;
        }
      }
      return false;
    };
  }

  /** Waits until each of {@code nodes} has seen the node on {@code port} in {@code event}. */
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

  /** Waits until one of {@code nodes} has seen the node on {@code port} in {@code event}. */
  private static void awaitAnySaw(List<NodeProcess> nodes, String event, String port) throws InterruptedException {
    awaitAny(nodes, "SAW", m -> event.equals(m.get("event")) && port.equals(m.get("port")),
        "saw port " + port + " " + event);
  }

  private static void awaitAny(List<NodeProcess> nodes, String keyword,
      java.util.function.Predicate<Map<String, String>> matching, String what) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
    while (System.nanoTime() < deadline) {
      for (NodeProcess node : nodes) {
        if (node.poll(keyword, matching) != null) {
          return;
        }
      }
      Thread.sleep(20);
    }
    throw new AssertionError("no node " + what + " within 120 s");
  }

  private static void signal(NodeProcess node, String signal) throws Exception {
    Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(node.process.pid())).inheritIO().start();
    assertEquals(0, kill.waitFor(), "kill -" + signal);
  }
}
