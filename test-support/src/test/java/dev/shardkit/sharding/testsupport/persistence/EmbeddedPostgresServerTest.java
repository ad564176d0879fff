package dev.shardkit.sharding.testsupport.persistence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

/** The helper runs a real PostgreSQL, and a stopped server comes back with its data on its port. */
class EmbeddedPostgresServerTest {

  @Test
  void stopsAndRestartsOnTheSamePortWithTheSameData() throws Exception {
    try (EmbeddedPostgresServer server = EmbeddedPostgresServer.start()) {
      int port = server.port();
      try (Connection c = server.connect(); Statement s = c.createStatement()) {
        s.executeUpdate("CREATE TABLE kept (v INT)");
        s.executeUpdate("INSERT INTO kept VALUES (42)");
      }

      server.stop();
      assertFalse(server.isRunning());
      assertThrows(SQLException.class, server::connect, "no server while stopped");

      server.restart();
      assertEquals(port, server.port());
      try (Connection c = server.connect(); Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("SELECT v FROM kept")) {
        assertTrue(rs.next());
        assertEquals(42, rs.getInt(1));
      }
    }
  }
}
