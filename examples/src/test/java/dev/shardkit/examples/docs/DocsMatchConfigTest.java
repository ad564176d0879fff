package dev.shardkit.examples.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigRenderOptions;
import com.typesafe.config.ConfigUtil;
import com.typesafe.config.ConfigValue;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every setting in the {@code reference.conf} of a published module is documented, with the
 * default it has. The docs give settings in Markdown tables whose first column names the key (in
 * backquotes, as its full path or the end of it under a section the page names) and whose second
 * gives the default; a row may document a whole section at once (a map such as
 * {@code state-store-providers}), whose default then names each entry and its value.
 */
class DocsMatchConfigTest {
  static final Path ROOT = DocsSnippetsTest.ROOT;
  static final List<String> PUBLISHED = List.of("sharding-core", "sharding-ddata", "sharding-persistence");

  /** A documented key: a table row's key, the defaults it gives, the whole row, where it is. */
  record Row(String key, String defaults, String line, String where) {}

  static final Pattern ROW = Pattern.compile("^\\|\\s*([^|]*`[^|]*)\\|([^|]*)\\|.*$");
  /** The header of a table of settings: its first columns are the key and its default (or value). */
  static final Pattern SETTINGS_HEADER = Pattern.compile("^\\|\\s*key[^|]*\\|\\s*(default|value)\\s*\\|.*$");
  static final Pattern CODE = Pattern.compile("`([^`]+)`");

  /**
   * The settings a module's reference.conf itself sets, not what it copies in by substitution: the
   * entries of the merged reference configuration whose origin is that module's file (its jar or
   * its build output, on this test's class path).
   */
  static Map<String, ConfigValue> settingsOf(String module) {
    Map<String, ConfigValue> settings = new TreeMap<>();
    ConfigFactory.defaultReference().entrySet().forEach(e -> {
      java.net.URL origin = e.getValue().origin().url();
      if (origin != null && origin.toString().contains("/" + module + "/")
          && origin.toString().endsWith("reference.conf")) {
        settings.put(e.getKey(), e.getValue());
      }
    });
    assertTrue(settings.size() > 5, module + ": settings found: " + settings.keySet());
    return settings;
  }

  static List<Row> documentedRows() throws IOException {
    List<Row> rows = new ArrayList<>();
    List<Path> pages = new ArrayList<>();
    try (Stream<Path> list = Files.list(ROOT.resolve("docs"))) {
      list.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
    }
    for (Path page : pages) {
      List<String> lines = Files.readAllLines(page);
      boolean inSettings = false;
      for (int i = 0; i < lines.size(); i++) {
        String line = lines.get(i);
        if (!line.startsWith("|")) {
          inSettings = false;
          continue;
        }
        if (SETTINGS_HEADER.matcher(line).matches()) {
          inSettings = true;
          continue;
        }
        Matcher row = ROW.matcher(line);
        if (!inSettings || !row.matches()) {
          continue;
        }
        Matcher code = CODE.matcher(row.group(1));
        while (code.find()) {
          rows.add(new Row(code.group(1).trim(), row.group(2), line, ROOT.relativize(page) + ":" + (i + 1)));
        }
      }
    }
    return rows;
  }

  /** A key of the docs in the path's terms: each segment as HOCON writes it, quotes left out. */
  static List<String> segments(String path) {
    return ConfigUtil.splitPath(path);
  }

  /** Whether {@code key} is the end of {@code path} ("leaf") or a section on its way ("section"). */
  static String covers(String key, String path) {
    List<String> k;
    try {
      k = segments(key);
    } catch (RuntimeException notAPath) {
      return null;
    }
    List<String> p = segments(path);
    for (int start = 0; start + k.size() <= p.size(); start++) {
      if (p.subList(start, start + k.size()).equals(k)) {
        if (start + k.size() == p.size()) {
          return "leaf";
        }
        return "section";
      }
    }
    return null;
  }

  static List<Row> mostSpecific(List<Row> rows, String path, String how) {
    int longest = rows.stream().filter(row -> how.equals(covers(row.key(), path)))
        .mapToInt(row -> segments(row.key()).size()).max().orElse(0);
    return rows.stream().filter(row -> how.equals(covers(row.key(), path)) && segments(row.key()).size() == longest)
        .toList();
  }

  static List<String> defaults(Row row) {
    List<String> defaults = new ArrayList<>();
    Matcher code = CODE.matcher(row.defaults());
    while (code.find()) {
      defaults.add(normal(code.group(1)));
    }
    return defaults;
  }

  static String normal(String text) {
    return text.replace("\"", "").replace(" ", "").replace("\\$", "$");
  }

  static String rendered(ConfigValue value) {
    Object raw = value.unwrapped();
    return raw instanceof String s ? s : value.render(ConfigRenderOptions.concise());
  }

  @Test
  void everySettingOfThePublishedModulesIsDocumentedWithItsDefault() throws IOException {
    List<Row> rows = documentedRows();
    List<String> problems = new ArrayList<>();
    Set<String> checked = new TreeSet<>();
    for (String module : PUBLISHED) {
      for (Map.Entry<String, ConfigValue> setting : settingsOf(module).entrySet()) {
        String path = setting.getKey();
        String value = normal(rendered(setting.getValue()));
        checked.add(path);
        // The most specific rows count: those with the longest key that is the end of the path,
        // else those with the longest section on its way; one of them must give the value.
        List<Row> leaves = mostSpecific(rows, path, "leaf");
        List<Row> sections = mostSpecific(rows, path, "section");
        if (!leaves.isEmpty()) {
          if (leaves.stream().noneMatch(row -> defaults(row).contains(value))) {
            problems.add(module + ": " + path + " = " + value + ", but " + leaves.stream()
                .map(row -> row.where() + " gives " + defaults(row)).toList());
          }
        } else if (!sections.isEmpty()) {
          List<String> p = segments(path);
          String entry = p.get(p.size() - 1);
          String simpleEntry = normal(entry.substring(entry.lastIndexOf('.') + 1));
          String simpleValue = value.substring(value.lastIndexOf('.') + 1);
          if (sections.stream().map(row -> normal(row.line()))
              .noneMatch(doc -> doc.contains(simpleEntry) && doc.contains(simpleValue))) {
            problems.add(module + ": " + path + " = " + value + " is not in the section rows "
                + sections.stream().map(Row::where).toList());
          }
        } else {
          problems.add(module + ": " + path + " = " + value + " is documented nowhere");
        }
      }
    }
    assertTrue(checked.size() > 60, "settings checked: " + checked.size());
    assertEquals(List.of(), problems, problems.size() + " settings undocumented or documented with another default:\n"
        + String.join("\n", problems) + "\n");
  }

  /** Maps of implementations a store module fills in: nothing a Pekko user migrates. */
  static final Set<String> NOT_MIGRATED = Set.of("state-store-providers", "state-store-artifacts",
      "remember-entities-store-providers");

  @Test
  void theMigrationGuideNamesEverySettingOfShardkit() throws IOException {
    String page = Files.readString(ROOT.resolve("docs/migrating-from-pekko.md"));
    int from = page.indexOf("## Configuration side by side");
    String table = page.substring(from, page.indexOf("\n## ", from + 1));
    Set<String> missing = new TreeSet<>();
    for (String module : PUBLISHED) {
      for (String path : settingsOf(module).keySet()) {
        List<String> p = segments(path);
        if (p.size() < 3 || !p.get(0).equals("shardkit") || !p.get(1).equals("sharding")
            || NOT_MIGRATED.contains(p.get(2))) {
          continue;
        }
        String top = p.get(2);
        if (!Pattern.compile("`" + Pattern.quote(top) + "[`.]").matcher(table).find()) {
          missing.add(top);
        }
      }
    }
    assertEquals(Set.of(), missing, "settings of shardkit.sharding that the migration guide's table does not name, "
        + "as a counterpart of Pekko's or as shardkit's only");
  }
}
