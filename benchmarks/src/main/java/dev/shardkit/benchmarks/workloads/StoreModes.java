package dev.shardkit.benchmarks.workloads;

import com.typesafe.config.ConfigFactory;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.persistence.jdbc.testkit.javadsl.SchemaUtils;

/**
 * Where each library keeps its coordinator state in a run, and the configuration for it. In the
 * persistence mode both libraries use the same journal plugin, pekko-persistence-jdbc, on one
 * in-memory H2 database shared by the nodes of the JVM, with one pool configuration.
 */
public final class StoreModes {
  private StoreModes() {}

  /** True when shardkit has a provider for the mode on the class path. */
  public static boolean shardkitHas(String mode) {
    return ConfigFactory.load().hasPath("shardkit.sharding.state-store-providers." + mode);
  }

  /** shardkit's default mode (ddata) when its module is there, otherwise the in-memory store. */
  public static String shardkitDefault() {
    return shardkitHas("ddata") ? "ddata" : "memory";
  }

  /** Configuration for a library in a mode ({@code ddata}, {@code persistence}, {@code memory}). */
  public static String config(String variant, String mode) {
    String journal = mode.equals("persistence") ? JDBC_JOURNAL : "";
    return switch (variant) {
      case "shardkit" -> "shardkit.sharding.state-store-mode = " + mode + "\n" + journal;
      case "pekko", "pekko-tuned" -> "pekko.cluster.sharding.state-store-mode = " + mode + "\n" + journal;
      default -> "";
    };
  }

  /** Creates the journal's tables (once per JVM is enough; later calls find them). */
  public static void prepare(ActorSystem<?> system, String mode) throws Exception {
    if (mode.equals("persistence")) {
      SchemaUtils.createIfNotExists(system).toCompletableFuture().get(60, TimeUnit.SECONDS);
    }
  }

  // One in-memory H2 database, one pool configuration: Pekko's sharding writes to it through the
  // default journal plugins, shardkit's persistence store through its own plugin ids.
  private static final String JDBC_JOURNAL = """
      pekko-persistence-jdbc.shared-databases.bench {
        profile = "slick.jdbc.H2Profile$"
        db {
          url = "jdbc:h2:mem:shardkit-bench;DATABASE_TO_UPPER=false;DB_CLOSE_DELAY=-1"
          user = "bench"
          password = "bench"
          driver = "org.h2.Driver"
          connectionPool = "HikariCP"
          numThreads = 4
          maxConnections = 4
          minConnections = 1
        }
      }
      pekko.persistence.journal.plugin = "jdbc-journal"
      pekko.persistence.snapshot-store.plugin = "jdbc-snapshot-store"
      jdbc-journal.use-shared-db = "bench"
      jdbc-snapshot-store.use-shared-db = "bench"
      jdbc-read-journal.use-shared-db = "bench"
      shardkit.sharding.persistence.jdbc-journal.use-shared-db = "bench"
      shardkit.sharding.persistence.jdbc-snapshot-store.use-shared-db = "bench"
      shardkit.sharding.persistence.jdbc-read-journal.use-shared-db = "bench"
      """;
}
