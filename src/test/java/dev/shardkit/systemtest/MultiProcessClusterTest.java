package dev.shardkit.systemtest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
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

  private final List<NodeProcess> nodes = new ArrayList<>();

  @AfterEach
  void killNodes() throws InterruptedException {
    for (NodeProcess node : nodes) {
      node.process.destroyForcibly();
    }
    for (NodeProcess node : nodes) {
      node.process.waitFor(20, TimeUnit.SECONDS);
    }
    nodes.clear();
  }

  @Test
  @Timeout(value = 450, unit = TimeUnit.SECONDS)
  void everyMessageArrivesOnceInOrderAndEveryEntityLivesOnOneNode() throws Exception {
    int[] ports = freePorts(NODES);
    String seeds = Integer.toString(ports[0]);
    for (int i = 0; i < NODES; i++) {
      nodes.add(NodeProcess.start("node" + (i + 1), ports[i], seeds));
    }

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

  /** Distinct free ports: all sockets are held open until every port is picked. */
  private static int[] freePorts(int n) throws IOException {
    List<ServerSocket> sockets = new ArrayList<>();
    try {
      int[] ports = new int[n];
      for (int i = 0; i < n; i++) {
        ServerSocket s = new ServerSocket(0);
        sockets.add(s);
        ports[i] = s.getLocalPort();
      }
      return ports;
    } finally {
      for (ServerSocket s : sockets) {
        s.close();
      }
    }
  }

  /** A node JVM: its stdin for commands, and a thread that reads its output. */
  private static final class NodeProcess {
    private static final int KEPT_LINES = 200;

    final String name;
    final Process process;
    private final Writer stdin;
    private final BlockingQueue<String> protocol = new LinkedBlockingQueue<>();
    private final Deque<String> recent = new ArrayDeque<>();

    private NodeProcess(String name, Process process) {
      this.name = name;
      this.process = process;
      this.stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
      Thread reader = new Thread(this::readOutput, "output-" + name);
      reader.setDaemon(true);
      reader.start();
    }

    static NodeProcess start(String name, int port, String seedPorts) throws IOException {
      String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
      List<String> command = List.of(java,
          "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
          "-cp", System.getProperty("java.class.path"),
          ClusterNode.class.getName(),
          Integer.toString(port), seedPorts, name, Integer.toString(NODES), Integer.toString(ENTITIES),
          Integer.toString(MESSAGES_PER_ENTITY), Integer.toString(NODE_DEADLINE_SECONDS));
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      return new NodeProcess(name, p);
    }

    private void readOutput() {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(),
          StandardCharsets.UTF_8))) {
        String line;
        while ((line = r.readLine()) != null) {
          synchronized (recent) {
            recent.addLast(line);
            if (recent.size() > KEPT_LINES) {
              recent.removeFirst();
            }
          }
          if (line.startsWith("FORMED") || line.startsWith("SENT") || line.startsWith("RESULT")
              || line.startsWith("ENTITIES") || line.startsWith("FAILED") || line.startsWith("DEADLINE")) {
            protocol.add(line);
          }
        }
      } catch (IOException e) {
        // The process is gone; await() reports it.
      }
    }

    void command(String line) throws IOException {
      stdin.write(line + "\n");
      stdin.flush();
    }

    /** Waits for the next protocol line with this keyword and returns its key=value pairs. */
    Map<String, String> await(String keyword, long timeoutSeconds) throws InterruptedException {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
      while (true) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          fail(name + ": no " + keyword + " line within " + timeoutSeconds + " s" + diagnostics());
        }
        String line = protocol.poll(Math.min(left, TimeUnit.SECONDS.toNanos(1)), TimeUnit.NANOSECONDS);
        if (line == null) {
          if (!process.isAlive() && protocol.isEmpty()) {
            fail(name + " exited with code " + process.exitValue() + " before printing " + keyword
                + diagnostics());
          }
          continue;
        }
        if (line.startsWith("FAILED") || line.startsWith("DEADLINE")) {
          fail(name + ": " + line + diagnostics());
        }
        if (line.startsWith(keyword + " ") || line.equals(keyword)) {
          return parse(line);
        }
      }
    }

    private String diagnostics() {
      synchronized (recent) {
        return "\n--- last output of " + name + " ---\n" + String.join("\n", recent);
      }
    }

    private static Map<String, String> parse(String line) {
      Map<String, String> values = new java.util.LinkedHashMap<>();
      for (String token : line.split(" ")) {
        int eq = token.indexOf('=');
        if (eq > 0) {
          values.put(token.substring(0, eq), token.substring(eq + 1));
        }
      }
      return values;
    }
  }
}
