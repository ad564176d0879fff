package dev.shardkit.systemtest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Three JVM processes form a Pekko cluster on 127.0.0.1 and share a sharded {@link SeqCounter}
 * type. The test process does not join the cluster: it starts the nodes ({@link ClusterNode}),
 * tells them over stdin when to send and when to report, and checks what each one prints.
 *
 * <p>Every node sends {@value #MESSAGES_PER_ENTITY} numbered messages to each of
 * {@value #ENTITIES} entities through {@code EntityRef}s; the entities check each sender's
 * sequence. Asserted: every message delivered exactly once and in order per sender, and every
 * entity hosted on exactly one node. Then every process is killed with SIGKILL.
 */
class MultiProcessClusterTest {
  private static final int NODES = 3;
  private static final int ENTITIES = 300;
  private static final int MESSAGES_PER_ENTITY = 20;
  /** Each node process exits by itself after this, whatever happens to the test. */
  private static final int NODE_DEADLINE_SECONDS = 480;

  private NodeGroup group;

  @AfterEach
  void killNodes() throws InterruptedException {
    if (group != null) {
      group.close();
    }
  }

  @Test
  @Timeout(value = 450, unit = TimeUnit.SECONDS)
  void everyMessageArrivesOnceInOrderAndEveryEntityLivesOnOneNode() throws Exception {
    group = NodeGroup.start(NODES, ClusterNode.class, List.of(Integer.toString(NODES), Integer.toString(ENTITIES),
        Integer.toString(MESSAGES_PER_ENTITY), Integer.toString(NODE_DEADLINE_SECONDS)));
    List<NodeProcess> nodes = group.nodes();

    // Cluster formation can take long on a loaded machine: three JVMs start at once.
    for (NodeProcess node : nodes) {
      node.await("FORMED", 240);
    }
    for (NodeProcess node : nodes) {
      node.command("SEND");
    }
    for (NodeProcess node : nodes) {
      Map<String, String> sent = node.await("SENT", 120);
      assertEquals(ENTITIES * MESSAGES_PER_ENTITY, Integer.parseInt(sent.get("count")), node.name + " sent");
    }
    for (NodeProcess node : nodes) {
      node.command("REPORT");
    }
    List<Map<String, String>> results = new ArrayList<>();
    Map<String, String> hostOf = new HashMap<>();
    List<String> doubleHosted = new ArrayList<>();
    for (NodeProcess node : nodes) {
      Map<String, String> result = node.await("RESULT", 180);
      results.add(result);
      Map<String, String> hosted = node.await("ENTITIES", 30);
      String ids = hosted.getOrDefault("ids", "");
      for (String id : ids.isEmpty() ? List.<String>of() : Arrays.asList(ids.split(","))) {
        String other = hostOf.put(id, node.name);
        if (other != null) {
          doubleHosted.add(id + " on " + other + " and " + node.name);
        }
      }
      System.out.println("[" + node.name + "] " + result);
    }

    String summary = results.toString();
    long received = sum(results, "received");
    assertEquals(0, sum(results, "unanswered"), "entities that did not answer for their stats: " + summary);
    assertEquals(0, sum(results, "duplicates"), "messages delivered more than once: " + summary);
    assertEquals(0, sum(results, "outOfOrder"), "messages out of order (or missing) per sender: " + summary);
    assertEquals((long) NODES * ENTITIES * MESSAGES_PER_ENTITY, received, "messages received: " + summary);
    assertTrue(doubleHosted.isEmpty(), "entities hosted on two nodes: " + doubleHosted);
    assertEquals(ENTITIES, sum(results, "entitiesHostedHere"), "sum of entities hosted per node: " + summary);
    Set<String> expectedIds = new TreeSet<>();
    for (int e = 0; e < ENTITIES; e++) {
      expectedIds.add(ClusterNode.entityId(e));
    }
    assertEquals(expectedIds, new TreeSet<>(hostOf.keySet()), "the hosted entities are exactly the addressed ones");
    for (Map<String, String> result : results) {
      assertTrue(Integer.parseInt(result.get("entitiesHostedHere")) > 0,
          "every node hosts some entities (3 regions were registered before traffic): " + summary);
    }
  }

  private static long sum(List<Map<String, String>> results, String key) {
    return results.stream().mapToLong(r -> Long.parseLong(r.get(key))).sum();
  }
}
