package dev.shardkit.benchmarks.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReportTest {
  static Report.Suite suite() {
    Row row = Row.compare("Local", "tell", "M msg/s", 2, Row.Better.HIGHER, Map.of(1, 0.6), Map.of(1, 0.2), 2.5);
    return new Report.Suite(false, 1, List.of(new Report.Section("Local", "How it runs.", List.of(row), List.of())),
        List.of(new Report.Micro("ExtractorBenchmark.stableHash", "20.1 ± 0.3", "ns/op")), "JMH options `-f 1`",
        null, Map.of("CPU", "test"), "1.0 1.0 1.0", "1.1 1.0 1.0", Duration.ofSeconds(75), "mvn ...",
        ZonedDateTime.now());
  }

  @Test
  void theGeneratedBlockReplacesOnlyItselfAndKeepsTheHandWrittenText(@TempDir Path dir) throws Exception {
    Path doc = dir.resolve("performance.md");
    Files.writeString(doc, "# Performance\n\nIntro.\n\n" + Report.BEGIN + "\nold figures\n" + Report.END
        + "\n\n## Analysis\n\nHand-written.\n");
    Report.updateDocument(doc, Report.generatedBlock(suite(), "performance.png"));
    String text = Files.readString(doc);
    assertTrue(text.startsWith("# Performance\n\nIntro.\n\n" + Report.BEGIN), text);
    assertTrue(text.endsWith(Report.END + "\n\n## Analysis\n\nHand-written.\n"), text);
    assertTrue(!text.contains("old figures"), text);
    assertTrue(text.contains("| Local | tell | 0.60 M msg/s | 0.20 M msg/s | 3.00× |"), text);
    assertTrue(text.contains("ExtractorBenchmark.stableHash"), text);
    // A second run finds its own markers again.
    Report.updateDocument(doc, Report.generatedBlock(suite(), "performance.png"));
    String again = Files.readString(doc);
    assertEquals(1, again.split(java.util.regex.Pattern.quote(Report.BEGIN), -1).length - 1);
    assertTrue(again.endsWith("Hand-written.\n"), again);
  }

  @Test
  void theBlockMarksEveryIssueTargetAndSaysHowManyRoundsASwingingFigureTook() {
    Row row = Row.compare("Local routed throughput", "`EntityRef.tell`", "M msg/s", 2, Row.Better.HIGHER,
        Map.of(1, 3.0), Map.of(1, 1.0), 3.0);
    Report.Suite s = suite();
    Report.Suite withRounds = new Report.Suite(false, 3, List.of(new Report.Section("Local routed throughput",
        "How it runs.", List.of(row), List.of(), "4 round(s); spread of the same-round ratios 1.10×")), s.micro(),
        s.microSettings(), null, s.machine(), s.loadBefore(), s.loadAfter(), s.elapsed(), s.command(), s.finished());
    String block = Report.generatedBlock(withRounds, "performance.png");
    assertTrue(block.contains("- Local routed throughput: 4 round(s); spread of the same-round ratios 1.10×"), block);
    assertTrue(block.contains("| local `EntityRef.tell` | ≥ 3× | 3.00× | met |"), block);
    assertTrue(block.contains("| remote `EntityRef.tell` | ≥ 1.5× | not measured in this run | no data |"), block);
    assertEquals(Targets.issue17().size(), block.lines().filter(l -> l.endsWith("| met |")
        || l.endsWith("| **not met** |") || l.endsWith("| no data |")).count() - 1, block);
  }

  @Test
  void aMissingDocumentIsCreatedAndTheChartIsAPng(@TempDir Path dir) throws Exception {
    Path doc = dir.resolve("performance.md");
    Report.updateDocument(doc, Report.generatedBlock(suite(), "performance.png"));
    assertTrue(Files.readString(doc).contains(Report.END));
    Path png = dir.resolve("performance.png");
    Chart.write(Report.rows(suite()), "title", png);
    var img = ImageIO.read(png.toFile());
    assertTrue(img.getWidth() > 500 && img.getHeight() > 50);
  }
}
