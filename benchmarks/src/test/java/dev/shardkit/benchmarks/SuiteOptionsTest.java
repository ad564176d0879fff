package dev.shardkit.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class SuiteOptionsTest {
  static final Path ROOT = Path.of("/repo");

  @Test
  void theFullModeWritesTheRepositorysDocsAndTheQuickOneNothing() {
    SuiteOptions full = SuiteOptions.parse(List.of(), ROOT);
    assertEquals(3, full.rounds());
    assertEquals(Optional.of(ROOT.resolve("docs")), full.docs());
    SuiteOptions quick = SuiteOptions.parse(List.of("--quick"), ROOT);
    assertEquals(1, quick.rounds());
    assertEquals(Optional.empty(), quick.docs());
    assertEquals(Optional.empty(), SuiteOptions.parse(List.of("--no-docs"), ROOT).docs());
    assertEquals(Optional.empty(), SuiteOptions.parse(List.of("--only", "local"), ROOT).docs(),
        "a partial run does not replace the published figures");
  }

  @Test
  void optionsWithValues() {
    SuiteOptions o = SuiteOptions.parse(List.of("--rounds=5", "--only", "local,micro", "--docs", "/tmp/d"), ROOT);
    assertEquals(5, o.rounds());
    assertEquals(Set.of("local", "micro"), o.only());
    assertTrue(o.runs("local") && !o.runs("memory"));
    assertEquals(Optional.of(Path.of("/tmp/d")), o.docs());
  }

  @Test
  void badOptionsAreNamed() {
    var e = assertThrows(IllegalArgumentException.class, () -> SuiteOptions.parse(List.of("--fast"), ROOT));
    assertTrue(e.getMessage().contains("[--fast]"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> SuiteOptions.parse(List.of("--rounds", "x"), ROOT));
    assertThrows(IllegalArgumentException.class, () -> SuiteOptions.parse(List.of("--rounds", "0"), ROOT));
    assertThrows(IllegalArgumentException.class, () -> SuiteOptions.parse(List.of("--only"), ROOT));
  }
}
