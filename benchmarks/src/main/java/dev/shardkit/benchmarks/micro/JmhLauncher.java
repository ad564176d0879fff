package dev.shardkit.benchmarks.micro;

import java.nio.file.Path;
import java.util.Arrays;

/**
 * Runs this package's JMH benchmarks with JMH's own options, e.g.
 * {@code mvn -q -pl benchmarks -am compile exec:java -Dexec.mainClass=dev.shardkit.benchmarks.micro.JmhLauncher
 * -Dexec.args="-f 2 -i 10"}. Without options it uses {@link MicroBenchmarks#SHORT}.
 */
public final class JmhLauncher {
  private JmhLauncher() {}

  public static void main(String[] args) throws Exception {
    var options = args.length == 0 ? MicroBenchmarks.SHORT : Arrays.asList(args);
    var scores = MicroBenchmarks.run(options, Path.of(System.getProperty("java.io.tmpdir"), "shardkit-jmh"));
    scores.forEach(s -> System.out.printf("%-40s %12.3f ± %.3f %s%n", s.benchmark(), s.score(), s.error(), s.unit()));
  }
}
