package dev.shardkit.systemtest;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A cluster node in a JVM process of its own, driven by a system test: commands go to its stdin,
 * and the machine-readable lines it prints (a keyword, then {@code key=value} pairs) come back
 * through {@link #await}. Other output is kept for diagnostics.
 */
final class NodeProcess {
  private static final int KEPT_LINES = 200;
  private static final List<String> KEYWORDS = List.of("FORMED", "SENT", "RESULT", "ENTITIES", "FAILED", "DEADLINE",
      "STARTED", "STOPPED", "REPORT", "HELD", "SAW", "ADOPTED", "REACHED");

  final String name;
  final Process process;
  private final Writer stdin;
  private final BlockingQueue<String> protocol = new LinkedBlockingQueue<>();
  private final Deque<String> recent = new ArrayDeque<>();
  /** Every line the process prints, when the test keeps a log of it; else null. */
  private final Writer log;

  private NodeProcess(String name, Process process, Path logFile) throws IOException {
    this.name = name;
    this.process = process;
    this.stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
    if (logFile != null) {
      Files.createDirectories(logFile.getParent());
      this.log = Files.newBufferedWriter(logFile, StandardCharsets.UTF_8);
    } else {
      this.log = null;
    }
    Thread reader = new Thread(this::readOutput, "output-" + name);
    reader.setDaemon(true);
    reader.start();
  }

  /**
   * Starts {@code mainClass} in a new JVM with this JVM's class path and a small heap.
   *
   * @param args the main class's arguments
   */
  static NodeProcess start(String name, Class<?> mainClass, List<String> args) throws IOException {
    return start(name, mainClass, args, null);
  }

  /** Like {@link #start(String, Class, List)}, keeping all the process's output in {@code logFile} too. */
  static NodeProcess start(String name, Class<?> mainClass, List<String> args, Path logFile) throws IOException {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> command = new ArrayList<>(List.of(java,
        "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
        "-cp", System.getProperty("java.class.path"),
        mainClass.getName()));
    command.addAll(args);
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    return new NodeProcess(name, p, logFile);
  }

  /** Distinct free ports: all sockets are held open until every port is picked. */
  static int[] freePorts(int n) throws IOException {
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

  private void readOutput() {
    try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(),
        StandardCharsets.UTF_8))) {
      String line;
      while ((line = r.readLine()) != null) {
        if (log != null) {
          log.write(line);
          log.write('\n');
          log.flush();
        }
        synchronized (recent) {
          recent.addLast(line);
          if (recent.size() > KEPT_LINES) {
            recent.removeFirst();
          }
        }
        if (KEYWORDS.contains(line.split(" ", 2)[0])) {
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

  /**
   * Gives each node an {@code AWAIT …} command (a {@code FailoverNode}'s), then waits until every
   * one has answered {@code REACHED}: the event it names has happened on each.
   */
  static void awaitOnAll(java.util.List<NodeProcess> nodes, String command, long timeoutSeconds) throws Exception {
    for (NodeProcess node : nodes) {
      node.command(command);
    }
    for (NodeProcess node : nodes) {
      node.await("REACHED", timeoutSeconds);
    }
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

  /**
   * The first protocol line with this keyword whose values match, that has come and not been
   * taken yet, taken now (other lines stay queued); null if there is none. Does not wait.
   */
  Map<String, String> poll(String keyword, java.util.function.Predicate<Map<String, String>> matching) {
    for (java.util.Iterator<String> it = protocol.iterator(); it.hasNext(); ) {
      String line = it.next();
      if ((line.startsWith(keyword + " ") || line.equals(keyword)) && matching.test(parse(line))) {
        it.remove();
        return parse(line);
      }
    }
    return null;
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
