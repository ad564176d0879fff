package dev.shardkit.benchmarks.harness;

import java.io.File;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.Set;

/** The class path of this program, to start child JVMs with. */
public final class ClassPath {
  private ClassPath() {}

  /**
   * The class path that loaded the suite. Under {@code mvn exec:java} that is a class loader of
   * the plugin's, not {@code java.class.path} (which then names Maven's own launcher), so the URLs
   * of every URL class loader up the chain come first.
   */
  public static String current() {
    Set<String> entries = new LinkedHashSet<>();
    for (ClassLoader cl = ClassPath.class.getClassLoader(); cl != null; cl = cl.getParent()) {
      if (cl instanceof URLClassLoader ucl) {
        for (URL url : ucl.getURLs()) {
          if ("file".equals(url.getProtocol())) {
            try {
              entries.add(Path.of(url.toURI()).toString());
            } catch (URISyntaxException e) {
              throw new IllegalStateException("unreadable class path entry " + url, e);
            }
          }
        }
      }
    }
    for (String e : System.getProperty("java.class.path", "").split(File.pathSeparator)) {
      if (!e.isEmpty()) {
        entries.add(e);
      }
    }
    return String.join(File.pathSeparator, entries);
  }

  /** The {@code java} executable of the running JVM. */
  public static String javaExecutable() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }
}
