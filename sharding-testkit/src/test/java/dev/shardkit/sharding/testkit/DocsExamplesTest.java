package dev.shardkit.sharding.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * docs/testing.md shows the example tests as they are: each code block marked
 * {@code <!-- example: path -->} is that file, whole, and every file of the examples package is
 * shown. So the page's examples compile and run, as tests of this module.
 */
class DocsExamplesTest {
  /** The repository root, from this module's directory (where Maven runs the tests). */
  static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  static final Path EXAMPLES = Path.of("sharding-testkit/src/test/java/dev/shardkit/sharding/testkit/examples");
  static final Pattern EXAMPLE = Pattern.compile("<!-- example: (\\S+) -->\\n```java\\n(.*?)```\\n", Pattern.DOTALL);

  @Test
  void theTestingGuideShowsEveryExampleFileAsItIs() throws IOException {
    String page = Files.readString(ROOT.resolve("docs/testing.md"));
    Map<Path, String> shown = new LinkedHashMap<>();
    Matcher m = EXAMPLE.matcher(page);
    while (m.find()) {
      shown.put(Path.of(m.group(1)), m.group(2));
    }
    for (Map.Entry<Path, String> e : shown.entrySet()) {
      assertEquals(Files.readString(ROOT.resolve(e.getKey())), e.getValue(),
          "docs/testing.md shows " + e.getKey() + " as it is");
    }
    Set<Path> files;
    try (Stream<Path> list = Files.list(ROOT.resolve(EXAMPLES))) {
      files = list.map(p -> EXAMPLES.resolve(p.getFileName())).collect(Collectors.toCollection(TreeSet::new));
    }
    assertTrue(files.size() >= 7, "the examples: " + files);
    assertEquals(files, new TreeSet<>(shown.keySet()), "every example file is on the page, and nothing else");
  }
}
