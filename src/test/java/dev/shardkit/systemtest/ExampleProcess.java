package dev.shardkit.systemtest;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One of the example programs ({@code dev.shardkit.examples.Node}, {@code Client}) in a JVM of its
 * own, started the way a user starts it: its main class with command-line flags and environment
 * variables. Everything it prints (stdout and stderr) is kept, and a test waits for lines in it.
 */
final class ExampleProcess implements AutoCloseable {
  final String name;
  private final Process process;
  private final List<String> lines = new ArrayList<>();
  private final Thread reader;

  private ExampleProcess(String name, Process process) {
    this.name = name;
    this.process = process;
    this.reader = new Thread(this::read, "output-" + name);
    reader.setDaemon(true);
    reader.start();
  }

  /**
   * Starts {@code mainClass} with this JVM's class path (which holds the examples module), the
   * {@code args}, and this process's environment without any {@code SHARDKIT_*} variable plus
   * {@code environment}.
   */
  static ExampleProcess start(String name, String mainClass, List<String> args, Map<String, String> environment)
      throws IOException {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> command = new ArrayList<>(List.of(java, "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
        "-cp", System.getProperty("java.class.path"), mainClass));
    command.addAll(args);
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
    builder.environment().keySet().removeIf(k -> k.startsWith("SHARDKIT_"));
    builder.environment().putAll(environment);
    return new ExampleProcess(name, builder.start());
  }

  private void read() {
    try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(),
        StandardCharsets.UTF_8))) {
      String line;
      while ((line = r.readLine()) != null) {
        synchronized (lines) {
          lines.add(line);
          lines.notifyAll();
        }
      }
    } catch (IOException e) {
      // The process is gone; the waits report it.
    }
  }

  /** Every line printed so far. */
  List<String> lines() {
    synchronized (lines) {
      return List.copyOf(lines);
    }
  }

  /** Every line printed so far that matches {@code pattern} as a whole. */
  List<Matcher> matching(Pattern pattern) {
    List<Matcher> found = new ArrayList<>();
    for (String line : lines()) {
      Matcher m = pattern.matcher(line);
      if (m.matches()) {
        found.add(m);
      }
    }
    return found;
  }

  /** Waits for a line that matches {@code pattern} as a whole; fails the test if none comes in time. */
  Matcher await(Pattern pattern, long timeoutSeconds) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
    int seen = 0;
    synchronized (lines) {
      while (true) {
        for (; seen < lines.size(); seen++) {
          Matcher m = pattern.matcher(lines.get(seen));
          if (m.matches()) {
            return m;
          }
        }
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          fail(name + ": no line matching [" + pattern + "] within " + timeoutSeconds + " s" + output());
        }
        if (!process.isAlive()) {
          // Let the reader catch up with the last lines, then give up.
          lines.wait(500);
          if (seen == lines.size()) {
            fail(name + " exited with status " + process.exitValue() + " before printing a line matching ["
                + pattern + "]" + output());
          }
          continue;
        }
        lines.wait(Math.max(1, Math.min(TimeUnit.NANOSECONDS.toMillis(left), 1000)));
      }
    }
  }

  /**
   * Waits for the process to exit and returns its status, with everything it printed read; fails
   * the test if it runs too long.
   */
  int awaitExit(long timeoutSeconds) throws InterruptedException {
    if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
      fail(name + " still runs after " + timeoutSeconds + " s" + output());
    }
    reader.join(TimeUnit.SECONDS.toMillis(10));
    return process.exitValue();
  }

  /** Its output, for a failure message. */
  String output() {
    return "\n--- output of " + name + " ---\n" + String.join("\n", lines());
  }

  /** Kills the process (SIGKILL) and waits for it to go. */
  @Override
  public void close() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor(20, TimeUnit.SECONDS);
  }
}
