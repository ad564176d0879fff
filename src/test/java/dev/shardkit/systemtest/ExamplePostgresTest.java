package dev.shardkit.systemtest;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.testsupport.persistence.EmbeddedPostgresServer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The example cluster on the persistence mode against a real PostgreSQL, configured as the docs
 * tell a user to: {@code --config node-postgres.conf}, with the database's URL and user in
 * {@code SHARDKIT_DB_URL} and {@code SHARDKIT_DB_USER}, and the tables created by shardkit
 * ({@code create-schema = on}, the file's default) in an empty database. Two nodes and the client
 * run as in {@link ExampleProgramsTest}; then the coordinator's events must be in PostgreSQL's
 * journal.
 */
class ExamplePostgresTest {

  @Test
  @Timeout(value = 480, unit = TimeUnit.SECONDS)
  void theNodesKeepTheCoordinatorsStateInPostgres() throws Exception {
    try (EmbeddedPostgresServer postgres = EmbeddedPostgresServer.start()) {
      Map<String, String> env = Map.of("SHARDKIT_DB_URL", postgres.jdbcUrl(),
          "SHARDKIT_DB_USER", EmbeddedPostgresServer.USER);
      try (ExampleCluster cluster = ExampleCluster.start(List.of("--config", "node-postgres.conf"), env)) {
        cluster.runClient(20);
        for (ExampleProcess node : cluster.nodes()) {
          assertTrue(node.lines().stream().anyMatch(l -> l.contains("state store persistence")), node.output());
        }
      }
      // Registering the two regions and placing the shards were written to the journal.
      long events = postgres.eventRows("shardkit-coordinator-Account");
      assertTrue(events > 0, "coordinator events in PostgreSQL's event_journal: " + events);
    }
  }
}
