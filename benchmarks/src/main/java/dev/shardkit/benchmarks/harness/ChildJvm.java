package dev.shardkit.benchmarks.harness;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A JVM started for one run (or one node of a run), on this program's class path. Its stdout
 * carries protocol lines ({@code RESULT ...}, {@code ADDRESS ...}); its stderr (the logs) goes to
 * a file.
 */
public final class ChildJvm implements AutoCloseable {
  /** The system property that tells a child JVM where the suite keeps the run's logs. */
  public static final String LOG_DIR_PROPERTY = "shardkit.bench.logs";

  private static final String EOF = "\u0000EOF";

  private final Process process;
  private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
  private final PrintWriter stdin;
  private final Path log;

  private ChildJvm(Process process, Path log) {
    this.process = process;
    this.log = log;
    this.stdin = new PrintWriter(new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8), true);
    Thread reader = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(),
          StandardCharsets.UTF_8))) {
        String line;
        while ((line = r.readLine()) != null) {
          lines.add(line);
        }
      } catch (IOException e) {
        lines.add("ERROR reading the child's output: " + e);
      } finally {
        lines.add(EOF);
      }
    }, "child-stdout-" + process.pid());
    reader.setDaemon(true);
    reader.start();
  }

  /**
   * Starts {@code mainClass} in a new JVM.
   *
   * @param log where the child's stderr goes (created, with its folder)
   */
  public static ChildJvm start(String mainClass, List<String> jvmOptions, List<String> args, Path log)
      throws IOException {
    Files.createDirectories(log.toAbsolutePath().getParent());
    List<String> command = new ArrayList<>();
    command.add(ClassPath.javaExecutable());
    command.addAll(jvmOptions);
    command.add("-cp");
    command.add(ClassPath.current());
    command.add(mainClass);
    command.addAll(args);
    ProcessBuilder pb = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.to(log.toFile()));
    return new ChildJvm(pb.start(), log);
  }

  /**
   * Waits for the next stdout line that starts with one of {@code prefixes}; other lines are
   * skipped.
   *
   * @throws IllegalStateException if the child exits first or the wait times out; the message
   *     names the log file
   */
  public String awaitLine(Duration timeout, String... prefixes) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      long left = deadline - System.nanoTime();
      String line = left <= 0 ? null : lines.poll(left, TimeUnit.NANOSECONDS);
      if (line == null) {
        throw new IllegalStateException("no " + String.join("/", prefixes) + " line within " + timeout
            + "; see " + log);
      }
      if (line.equals(EOF)) {
        lines.add(EOF);
        throw new IllegalStateException("the child JVM exited (code " + exitCode() + ") before printing "
            + String.join("/", prefixes) + "; see " + log);
      }
      for (String p : prefixes) {
        if (line.startsWith(p)) {
          return line;
        }
      }
    }
  }

  /**
   * Writes a line to the child's stdin and waits for its answer: the next stdout line that starts
   * with {@code replyPrefix}, returned without the prefix (for workloads that query a node in
   * another JVM while they run).
   *
   * @throws IllegalStateException as {@link #awaitLine}
   */
  public String request(String line, String replyPrefix, Duration timeout) throws InterruptedException {
    stdin.println(line);
    return awaitLine(timeout, replyPrefix).substring(replyPrefix.length());
  }

  private String exitCode() throws InterruptedException {
    return process.waitFor(5, TimeUnit.SECONDS) ? Integer.toString(process.exitValue()) : "still running";
  }

  public Path log() {
    return log;
  }

  /** Closes the child's stdin (its signal to stop) and kills it if it is still there after 20 s. */
  @Override
  public void close() {
    stdin.close();
    try {
      if (!process.waitFor(20, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }
}
