package dev.shardkit.systemtest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The README's walk-through of the example programs, run as a user runs it: two
 * {@code dev.shardkit.examples.Node} processes form a cluster from {@code node.conf} with their
 * port and seed nodes given on the command line, and a {@code dev.shardkit.examples.Client}
 * process joins it without hosting (a proxy), sends to 20 accounts and prints their balances,
 * which the test checks (see {@link ExampleCluster#runClient}).
 */
class ExampleProgramsTest {

  @Test
  @Timeout(value = 420, unit = TimeUnit.SECONDS)
  void twoNodesHostTheAccountsAndTheClientReadsWhatItDeposited() throws Exception {
    try (ExampleCluster cluster = ExampleCluster.start(List.of(), Map.of())) {
      cluster.runClient(20);
      // The nodes came from node.conf: the default store, the default role.
      for (ExampleProcess node : cluster.nodes()) {
        assertTrue(node.lines().stream().anyMatch(l -> l.startsWith("node pekko://examples@127.0.0.1:")
            && l.contains("with roles [backend], state store ddata")), node.output());
      }
    }
  }

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void aMalformedPortStopsTheNodeWithAMessageNamingTheArgument() throws Exception {
    try (ExampleProcess node = ExampleProcess.start("node", ExampleCluster.NODE, List.of("--port", "25x1"),
        Map.of())) {
      assertEquals(2, node.awaitExit(50), node.output());
      assertTrue(node.lines().stream().anyMatch(l -> l.equals(
          "Node: --port must be a whole number from 0 to 65535 (the node's TCP port (0 picks a free one)), got [25x1]")),
          node.output());
    }
    try (ExampleProcess client = ExampleProcess.start("client", ExampleCluster.CLIENT, List.of(),
        Map.of("SHARDKIT_SEED_NODES", "127.0.0.1"))) {
      assertEquals(2, client.awaitExit(50), client.output());
      assertTrue(client.lines().stream().anyMatch(l -> l.startsWith(
          "Client: environment variable SHARDKIT_SEED_NODES must be comma-separated host:port")), client.output());
    }
  }
}
