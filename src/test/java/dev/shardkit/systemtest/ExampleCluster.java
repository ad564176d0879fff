package dev.shardkit.systemtest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Two processes of the example {@code Node} on free ports of 127.0.0.1 (each other's seed nodes),
 * and the example {@code Client} run against them, as the README runs them: the real main classes
 * with command-line flags and environment variables.
 */
final class ExampleCluster implements AutoCloseable {
  static final String NODE = "dev.shardkit.examples.Node";
  static final String CLIENT = "dev.shardkit.examples.Client";
  /** Formation of a cluster can take long on a loaded machine where several JVMs start at once. */
  private static final int FORMATION_SECONDS = 240;
  private static final Pattern ANSWER = Pattern.compile("account-(\\d+): balance (\\d+) -> (\\d+) on (\\S+)");

  private final List<ExampleProcess> processes = new ArrayList<>();
  private final List<ExampleProcess> nodes = new ArrayList<>();
  private final List<String> nodeAddresses = new ArrayList<>();
  private final String seedNodes;
  private final List<String> sharedArgs;
  private final Map<String, String> environment;

  private ExampleCluster(String seedNodes, List<String> sharedArgs, Map<String, String> environment) {
    this.seedNodes = seedNodes;
    this.sharedArgs = sharedArgs;
    this.environment = environment;
  }

  /**
   * Starts two nodes with {@code sharedArgs} besides their port and seed nodes, and waits until
   * each has joined the cluster.
   */
  static ExampleCluster start(List<String> sharedArgs, Map<String, String> environment) throws Exception {
    int[] ports = NodeProcess.freePorts(2);
    ExampleCluster cluster = new ExampleCluster("127.0.0.1:" + ports[0] + ",127.0.0.1:" + ports[1], sharedArgs,
        environment);
    try {
      for (int i = 0; i < ports.length; i++) {
        List<String> args = new ArrayList<>(List.of("--port", Integer.toString(ports[i]),
            "--seed-nodes", cluster.seedNodes));
        args.addAll(sharedArgs);
        ExampleProcess node = ExampleProcess.start("node" + (i + 1), NODE, args, environment);
        cluster.processes.add(node);
        cluster.nodes.add(node);
        cluster.nodeAddresses.add("pekko://examples@127.0.0.1:" + ports[i]);
      }
      for (int i = 0; i < ports.length; i++) {
        cluster.nodes.get(i).await(Pattern.compile("member up: " + Pattern.quote(cluster.nodeAddresses.get(i))
            + " \\[backend\\] \\(this node\\)"), FORMATION_SECONDS);
      }
    } catch (Throwable t) {
      cluster.close();
      throw t;
    }
    return cluster;
  }

  List<ExampleProcess> nodes() {
    return List.copyOf(nodes);
  }

  /**
   * Runs the client for {@code accounts} accounts and checks what it prints: every account
   * answered, from one of the two nodes, with the balance it had before plus what the client
   * deposited (i + 10 for account-i); each node answered for some; and each account was started
   * on the node that answered for it and on no other.
   *
   * @return account id → the address of the node that answered
   */
  Map<String, String> runClient(int accounts) throws Exception {
    List<String> args = new ArrayList<>(List.of("--seed-nodes", seedNodes, "--accounts", Integer.toString(accounts),
        "--timeout", "180"));
    args.addAll(sharedArgs);
    ExampleProcess client = ExampleProcess.start("client", CLIENT, args, environment);
    processes.add(client);
    int status = client.awaitExit(FORMATION_SECONDS);
    String output = client.output();
    assertEquals(0, status, "the client's exit status" + output);

    Map<String, String> answeredBy = new TreeMap<>();
    for (Matcher m : client.matching(ANSWER)) {
      int i = Integer.parseInt(m.group(1));
      long before = Long.parseLong(m.group(2));
      long after = Long.parseLong(m.group(3));
      assertEquals(0, before, "a fresh cluster's account-" + i + " starts at 0" + output);
      assertEquals(i + 10, after, "account-" + i + " after deposits of " + i + " and 10" + output);
      assertTrue(nodeAddresses.contains(m.group(4)), "account-" + i + " answered from " + m.group(4)
          + ", not one of the nodes " + nodeAddresses + output);
      answeredBy.put("account-" + i, m.group(4));
    }
    Set<String> expected = new TreeSet<>();
    for (int i = 1; i <= accounts; i++) {
      expected.add("account-" + i);
    }
    assertEquals(expected, answeredBy.keySet(), "the accounts that answered" + output);
    assertEquals(Set.copyOf(nodeAddresses), Set.copyOf(answeredBy.values()),
        "both nodes host some of the " + accounts + " accounts (100 shards placed over both)" + output);

    // The node that answered is where the account started, and it started nowhere else.
    for (int n = 0; n < nodes.size(); n++) {
      ExampleProcess node = nodes.get(n);
      for (Map.Entry<String, String> e : answeredBy.entrySet()) {
        Pattern started = Pattern.compile(Pattern.quote(e.getKey()) + " started here");
        if (e.getValue().equals(nodeAddresses.get(n))) {
          node.await(started, 30);
        }
      }
    }
    for (int n = 0; n < nodes.size(); n++) {
      ExampleProcess node = nodes.get(n);
      for (Map.Entry<String, String> e : answeredBy.entrySet()) {
        Pattern started = Pattern.compile(Pattern.quote(e.getKey()) + " started here");
        int expectedStarts = e.getValue().equals(nodeAddresses.get(n)) ? 1 : 0;
        assertEquals(expectedStarts, node.matching(started).size(), e.getKey() + " started on " + node.name
            + node.output());
      }
    }
    return answeredBy;
  }

  @Override
  public void close() throws InterruptedException {
    for (ExampleProcess p : processes) {
      p.close();
    }
  }
}
