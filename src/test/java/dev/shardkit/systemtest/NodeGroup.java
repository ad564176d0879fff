package dev.shardkit.systemtest;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The node processes of one cluster in a system test, on free ports of 127.0.0.1 with the first
 * as the seed; {@link #close} kills them all (SIGKILL).
 */
final class NodeGroup implements AutoCloseable {
  private final List<NodeProcess> nodes = new ArrayList<>();

  private NodeGroup() {}

  /**
   * Starts {@code count} processes of {@code mainClass}, named {@code node1}, {@code node2}, …;
   * each gets its port, the seed's port and its name, then {@code args}.
   */
  static NodeGroup start(int count, Class<?> mainClass, List<String> args) throws IOException {
    return start(count, mainClass, args, null);
  }

  /**
   * Like {@link #start(int, Class, List)}; with a {@code logDir}, each node's whole output is also
   * kept in {@code <logDir>/<name>.log}.
   */
  static NodeGroup start(int count, Class<?> mainClass, List<String> args, Path logDir) throws IOException {
    NodeGroup group = new NodeGroup();
    int[] ports = NodeProcess.freePorts(count);
    for (int i = 0; i < count; i++) {
      String name = "node" + (i + 1);
      List<String> all = new ArrayList<>(List.of(Integer.toString(ports[i]), Integer.toString(ports[0]), name));
      all.addAll(args);
      group.nodes.add(NodeProcess.start(name, mainClass, all, logDir == null ? null : logDir.resolve(name + ".log")));
    }
    return group;
  }

  List<NodeProcess> nodes() {
    return List.copyOf(nodes);
  }

  NodeProcess node(int i) {
    return nodes.get(i);
  }

  @Override
  public void close() throws InterruptedException {
    for (NodeProcess node : nodes) {
      node.process.destroyForcibly();
    }
    for (NodeProcess node : nodes) {
      node.process.waitFor(20, TimeUnit.SECONDS);
    }
  }
}
