package dev.shardkit.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The README's demo, run as a user runs it: {@link ClusterDemo}'s main in a JVM of its own, with
 * the examples' class path and so their {@code logback.xml}. It passes its checks, exits normally,
 * and prints no warning and no error: an ordinary run, shutdown included, reads as ordinary.
 */
class ClusterDemoTest {

  /** A log line at WARN or ERROR, in the pattern of the examples' {@code logback.xml}. */
  private static final Pattern PROBLEM = Pattern.compile("^\\d\\d:\\d\\d:\\d\\d\\.\\d{3} (WARN|ERROR) .*");

  /**
   * Pekko's reports that this JVM did not get the CPU in time to send or receive a cluster
   * heartbeat (the machine is loaded: builds running beside the test). They say nothing about the
   * demo, and are not the demo's to silence.
   */
  private static final List<String> HOST_STARVED = List.of(
      "PhiAccrualFailureDetector - heartbeat interval is growing too large",
      "Scheduled sending of heartbeat was delayed");

  @Test
  @Timeout(value = 300, unit = TimeUnit.SECONDS)
  void theDemoPassesItsChecksAndLogsNoWarning() throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process demo = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), ClusterDemo.class.getName())
        .redirectErrorStream(true).start();
    CompletableFuture<String> output = CompletableFuture.supplyAsync(() -> read(demo.getInputStream()));
    if (!demo.waitFor(280, TimeUnit.SECONDS)) {
      demo.destroyForcibly();
      fail("the demo still runs after 280 s:\n" + output.getNow("(no output)"));
    }
    String printed = output.get(30, TimeUnit.SECONDS);
    assertEquals(0, demo.exitValue(), printed);
    assertTrue(printed.contains("checks: 300 of 300 sampled counters read back correct; every entity lives on exactly "
        + "one node"), printed);
    List<String> problems = printed.lines()
        .filter(l -> PROBLEM.matcher(l).matches())
        .filter(l -> HOST_STARVED.stream().noneMatch(l::contains))
        .toList();
    assertEquals(List.of(), problems, printed);
  }

  private static String read(InputStream in) {
    try (in) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
