package dev.shardkit.benchmarks.micro;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

class MicroBenchmarksTest {
  @Test
  void readsJmhCsv() {
    List<MicroBenchmarks.Score> scores = MicroBenchmarks.parse(List.of(
        "\"Benchmark\",\"Mode\",\"Threads\",\"Samples\",\"Score\",\"Score Error (99.9%)\",\"Unit\"",
        "\"dev.shardkit.benchmarks.micro.ExtractorBenchmark.stableHash\",\"avgt\",1,5,21.5,0.75,\"ns/op\"",
        "\"dev.shardkit.benchmarks.micro.AllocationBenchmark.rebalanceAfterJoin\",\"avgt\",1,1,310.2,NaN,\"us/op\""));
    assertEquals(2, scores.size());
    assertEquals(new MicroBenchmarks.Score("ExtractorBenchmark.stableHash", "avgt", 21.5, 0.75, "ns/op"), scores.get(0));
    assertEquals("AllocationBenchmark.rebalanceAfterJoin", scores.get(1).benchmark());
    assertEquals(Double.NaN, scores.get(1).error());
  }

  @Test
  void namesABenchmarkWithItsParameters() {
    List<MicroBenchmarks.Score> scores = MicroBenchmarks.parse(List.of(
        "\"Benchmark\",\"Mode\",\"Threads\",\"Samples\",\"Score\",\"Score Error (99.9%)\",\"Unit\",\"Param: shards\"",
        "\"dev.shardkit.benchmarks.micro.RoutingTableBenchmark.withOneHomeChanged\",\"avgt\",1,3,2.5,0.1,\"us/op\",10000",
        "\"dev.shardkit.benchmarks.micro.ExtractorBenchmark.stableHash\",\"avgt\",1,3,21.5,0.75,\"ns/op\","));
    assertEquals("RoutingTableBenchmark.withOneHomeChanged [shards=10000]", scores.get(0).benchmark());
    assertEquals("ExtractorBenchmark.stableHash", scores.get(1).benchmark());
  }
}
