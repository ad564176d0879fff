package dev.shardkit.benchmarks.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RunSpecTest {
  @Test
  void argumentsRoundTrip() {
    RunSpec spec = new RunSpec("local", "shardkit", 2, Map.of("entities", "10000", "store", "memory"));
    assertEquals(spec, RunSpec.fromArgs(spec.toArgs()));
    assertEquals(10000, spec.intParam("entities"));
    assertEquals("ddata", spec.with("store", "ddata").param("store"));
  }

  @Test
  void badArgumentsAreNamed() {
    var e = assertThrows(IllegalArgumentException.class, () -> RunSpec.fromArgs(List.of("local", "pekko", "1", "oops")));
    assertTrue(e.getMessage().contains("[oops]"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> RunSpec.fromArgs(List.of("local")));
    var missing = assertThrows(IllegalArgumentException.class,
        () -> new RunSpec("local", "pekko", 1, Map.of()).param("entities"));
    assertTrue(missing.getMessage().contains("[entities]"), missing.getMessage());
  }

  @Test
  void resultLineRoundTrip() {
    Map<String, Double> values = Map.of("p50_ms", 12.5, "lost", 0.0);
    assertEquals(values, RunResult.parseResultLine(RunResult.resultLine(values)));
    assertThrows(IllegalArgumentException.class, () -> RunResult.parseResultLine("RESULT x"));
    assertThrows(IllegalArgumentException.class, () -> RunResult.resultLine(Map.of("a b", 1.0)));
  }

  @Test
  void alternationRotatesWhoGoesFirst() {
    List<RunSpec> plan = Results.alternate("w", 3, List.of("a", "b", "c"), Map.of());
    assertEquals(List.of("a", "b", "c", "b", "c", "a", "c", "a", "b"),
        plan.stream().map(RunSpec::variant).toList());
    assertEquals(List.of(1, 1, 1, 2, 2, 2, 3, 3, 3), plan.stream().map(RunSpec::round).toList());
  }
}
