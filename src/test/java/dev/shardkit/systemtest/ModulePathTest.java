package dev.shardkit.systemtest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * sharding-core and sharding-ddata as named modules: an application module
 * ({@code src/test/resources/module-path-app}) is compiled against them on the module path and run
 * in a JVM of its own with nothing on the class path. It starts one node, asks three entities, and
 * serializes a {@code ShardingEnvelope}: so Pekko could create shardkit's serializers and mailbox,
 * sharding-core could create sharding-ddata's store provider, and the application could not see
 * {@code dev.shardkit.sharding.internal}.
 */
class ModulePathTest {

  /**
   * The runtime dependencies of sharding-ddata (which include sharding-core's), by artifact id:
   * {@code mvn -pl sharding-ddata dependency:build-classpath -DincludeScope=runtime}; and logback
   * for the node's log. Only these go on the module path: every automatic module there would be
   * resolved, whether the application needs it or not.
   */
  private static final List<String> MODULE_PATH_ARTIFACTS = List.of(
      "sharding-core", "sharding-ddata", "jspecify",
      "pekko-actor_", "pekko-actor-typed_", "pekko-cluster_", "pekko-cluster-typed_", "pekko-cluster-tools_",
      "pekko-coordination_", "pekko-distributed-data_", "pekko-remote_", "pekko-stream_", "pekko-protobuf-v3_",
      "pekko-pki_", "pekko-slf4j_", "scala-library", "config", "ssl-config-core_", "reactive-streams", "asn-one",
      "agrona", "lmdbjava", "jnr-", "jffi", "asm", "slf4j-api", "logback-classic", "logback-core");

  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void anApplicationModuleAsksEntitiesWithShardkitOnTheModulePath(@TempDir Path dir) throws Exception {
    List<String> modulePath = modulePath();
    Path app = Path.of(ModulePathTest.class.getResource("/module-path-app/module-info.java").toURI()).getParent();
    Path classes = dir.resolve("app");
    List<String> sources;
    try (Stream<Path> files = Files.walk(app)) {
      sources = files.filter(p -> p.toString().endsWith(".java")).map(Path::toString).collect(Collectors.toList());
    }
    List<String> javacArgs = new ArrayList<>(List.of("--module-path", String.join(File.pathSeparator, modulePath),
        "-d", classes.toString()));
    javacArgs.addAll(sources);
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    assertEquals(0, javac.run(null, null, null, javacArgs.toArray(String[]::new)), "the application compiles");

    Path output = dir.resolve("output.txt");
    String logback = Path.of(ModulePathTest.class.getResource("/logback-test.xml").toURI()).toString();
    List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Dlogback.configurationFile=" + logback,
        "--module-path", classes + File.pathSeparator + String.join(File.pathSeparator, modulePath),
        "-m", "dev.shardkit.modulepathapp/dev.shardkit.modulepathapp.ModulePathApp");
    Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile()).start();
    try {
      assertTrue(process.waitFor(90, TimeUnit.SECONDS), "the application ends within 90 s\n" + read(output));
    } finally {
      process.destroyForcibly();
    }
    String out = read(output);
    assertEquals(0, process.exitValue(), out);
    List<String> lines = out.lines().collect(Collectors.toList());
    assertTrue(lines.containsAll(List.of("ANSWER e-0:ping-0", "ANSWER e-1:ping-1", "ANSWER e-2:ping-2")), out);
    assertTrue(lines.contains("MODULES core=dev.shardkit.sharding ddata=dev.shardkit.sharding.ddata"
        + " app=dev.shardkit.modulepathapp api-exported=true internal-exported=false"), out);
    assertTrue(lines.contains("SERIALIZED dev.shardkit.sharding.internal.wire.ShardingSerializer true"), out);
  }

  private static List<String> modulePath() {
    List<String> path = new ArrayList<>();
    for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
      Path p = Path.of(entry);
      // A jar, by its file name; a module's target/classes (a build that did not package), by the module's directory.
      String name = Files.isDirectory(p) ? p.getParent().getParent().getFileName() + "-" : p.getFileName().toString();
      if (MODULE_PATH_ARTIFACTS.stream().anyMatch(name::startsWith)) {
        path.add(entry);
      }
    }
    return path;
  }

  private static String read(Path file) throws IOException {
    return Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
  }
}
