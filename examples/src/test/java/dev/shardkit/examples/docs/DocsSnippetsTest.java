package dev.shardkit.examples.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The Java code the docs show is code the build compiles. Each {@code ```java} block of a checked
 * page is preceded by a marker saying where its code lives:
 *
 * <ul>
 *   <li>{@code <!-- example: path -->}: the whole file at {@code path} (from the repository root);
 *   <li>{@code <!-- snippet: file#region, file#region -->}: the regions of Java files under
 *       {@value #SNIPPETS}, each the lines between {@code // docs:start region} and
 *       {@code // docs:end region} less their common indentation, joined by a blank line.
 * </ul>
 *
 * <p>The files are test sources of this module or of the testkit's, so they compile against the
 * API as it is (and the testkit's examples run as tests); this test checks that each page shows
 * them as they are, that no Java block goes unchecked, and that every region is shown somewhere.
 */
class DocsSnippetsTest {
  /** The repository root, from this module's directory (where Maven runs the tests). */
  static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  static final String SNIPPETS = "examples/src/test/java/dev/shardkit/examples/docs/";
  static final List<String> PAGES = List.of("README.md", "docs/getting-started.md", "docs/migrating-from-pekko.md",
      "docs/testing.md");
  /** The testkit's example tests, each shown whole on the testing page. */
  static final String TESTKIT_EXAMPLES = "sharding-testkit/src/test/java/dev/shardkit/sharding/testkit/examples";

  static final Pattern JAVA_BLOCK = Pattern.compile("(?:<!-- (example|snippet): ([^>]+?) -->\\n)?```java\\n(.*?)```\\n",
      Pattern.DOTALL);
  static final Pattern REGION_START = Pattern.compile("^\\s*// docs:start (\\S+)\\s*$");
  static final Pattern REGION_END = Pattern.compile("^\\s*// docs:end (\\S+)\\s*$");

  /** One Java block of a page. */
  record Block(String page, int line, String kind, String source, String code) {
    String where() {
      return page + ":" + line;
    }
  }

  static List<Block> blocks(String page) {
    String text = read(ROOT.resolve(page));
    List<Block> blocks = new ArrayList<>();
    Matcher m = JAVA_BLOCK.matcher(text);
    while (m.find()) {
      int line = (int) text.substring(0, m.start()).chars().filter(c -> c == '\n').count() + 1;
      blocks.add(new Block(page, line, m.group(1), m.group(2), m.group(3)));
    }
    return blocks;
  }

  static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Every region of a Java file, by name, dedented. */
  static Map<String, String> regions(Path file) {
    Map<String, String> regions = new LinkedHashMap<>();
    List<String> lines = read(file).lines().toList();
    String open = null;
    List<String> body = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i);
      Matcher start = REGION_START.matcher(line);
      Matcher end = REGION_END.matcher(line);
      if (start.matches()) {
        assertEquals(null, open, file + ":" + (i + 1) + ": region " + start.group(1) + " starts inside " + open);
        open = start.group(1);
        body.clear();
      } else if (end.matches()) {
        assertEquals(open, end.group(1), file + ":" + (i + 1) + ": the region that ends");
        regions.put(open, dedent(body));
        open = null;
      } else if (open != null) {
        body.add(line);
      }
    }
    assertEquals(null, open, file + ": region " + open + " never ends");
    return regions;
  }

  static String dedent(List<String> lines) {
    int indent = lines.stream().filter(l -> !l.isBlank())
        .mapToInt(l -> l.length() - l.stripLeading().length()).min().orElse(0);
    return lines.stream().map(l -> l.isBlank() ? "" : l.substring(indent)).collect(Collectors.joining("\n")) + "\n";
  }

  /** The code a snippet marker names. */
  static String snippet(String source, Set<String> used) {
    List<String> parts = new ArrayList<>();
    for (String ref : source.split(",")) {
      String[] fileAndRegion = ref.trim().split("#", 2);
      assertEquals(2, fileAndRegion.length, "a snippet names file#region: " + ref);
      Path file = ROOT.resolve(SNIPPETS).resolve(fileAndRegion[0]);
      assertTrue(Files.isRegularFile(file), "no snippet file " + file);
      String code = regions(file).get(fileAndRegion[1]);
      assertTrue(code != null, "no region " + fileAndRegion[1] + " in " + file);
      used.add(fileAndRegion[0] + "#" + fileAndRegion[1]);
      parts.add(code);
    }
    return String.join("\n", parts);
  }

  @Test
  void everyJavaBlockOfThePagesIsCodeTheBuildCompiles() {
    Set<String> used = new TreeSet<>();
    List<String> mismatches = new ArrayList<>();
    int checked = 0;
    for (String page : PAGES) {
      for (Block block : blocks(page)) {
        assertTrue(block.kind() != null, block.where() + ": a Java block with no <!-- example: --> or "
            + "<!-- snippet: --> marker before it; put its code where the build compiles it");
        String expected = block.kind().equals("example") ? read(ROOT.resolve(block.source().trim()))
            : snippet(block.source(), used);
        checked++;
        if (!expected.equals(block.code())) {
          mismatches.add(block.where() + " shows " + block.source() + " otherwise than it is:\n" + expected);
        }
      }
    }
    assertTrue(checked >= 20, "Java blocks checked: " + checked);
    assertEquals(List.of(), mismatches);
    Set<String> defined = new TreeSet<>();
    try (Stream<Path> files = Files.walk(ROOT.resolve(SNIPPETS))) {
      for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
        String name = ROOT.resolve(SNIPPETS).relativize(file).toString().replace('\\', '/');
        regions(file).keySet().forEach(region -> defined.add(name + "#" + region));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    defined.removeAll(used);
    assertEquals(Set.of(), defined, "regions no page shows");
  }

  @Test
  void theTestingGuideShowsEveryExampleTestOfTheTestkit() throws IOException {
    Set<Path> shown = new TreeSet<>();
    for (Block block : blocks("docs/testing.md")) {
      if ("example".equals(block.kind())) {
        shown.add(Path.of(block.source().trim()));
      }
    }
    Set<Path> files;
    try (Stream<Path> list = Files.list(ROOT.resolve(TESTKIT_EXAMPLES))) {
      files = list.map(p -> Path.of(TESTKIT_EXAMPLES).resolve(p.getFileName()))
          .collect(Collectors.toCollection(TreeSet::new));
    }
    assertTrue(files.size() >= 7, "the examples: " + files);
    assertEquals(files, shown, "every example file of the testkit is on the page, and nothing else");
  }
}
