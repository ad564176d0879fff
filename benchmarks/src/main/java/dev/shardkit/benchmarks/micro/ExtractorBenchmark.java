package dev.shardkit.benchmarks.micro;

import dev.shardkit.sharding.HashCodeMessageExtractor;
import dev.shardkit.sharding.StableHashMessageExtractor;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Entity id → shard id with both shipped extractors, 1 000 shards, over 1 024 different ids.
 * {@code String.hashCode} is cached in the string, as it is for an id that is reused.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class ExtractorBenchmark {
  private final StableHashMessageExtractor<Object> stable = new StableHashMessageExtractor<>(1000);
  private final HashCodeMessageExtractor<Object> hashCode = new HashCodeMessageExtractor<>(1000);
  private String[] ids;
  private int next;

  @Setup
  public void setup() {
    ids = new String[1024];
    for (int i = 0; i < ids.length; i++) {
      ids[i] = "customer-" + (i * 7919L + 100_000);
    }
  }

  @Benchmark
  public String stableHash() {
    return stable.shardId(ids[next++ & 1023]);
  }

  @Benchmark
  public String hashCodeModulo() {
    return hashCode.shardId(ids[next++ & 1023]);
  }
}
