package dev.shardkit.sharding.persistence;

import dev.shardkit.sharding.persistence.testkit.EmbeddedPostgresServer;
import dev.shardkit.sharding.testkit.RememberEntitiesScenario;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * sharding-core's remember-entities scenario in persistence mode: the coordinator's state and the
 * remembered entities in a real PostgreSQL, which outlives the cluster's restart.
 */
class PostgresRememberEntitiesTest extends RememberEntitiesScenario {
  private static EmbeddedPostgresServer postgres;

  @BeforeAll
  static void startPostgres() {
    postgres = EmbeddedPostgresServer.start();
  }

  @AfterAll
  static void stopPostgres() {
    if (postgres != null) {
      postgres.close();
    }
  }

  @Override
  protected String nodeConfig(int node) {
    return postgres.storeConfig()
        + "shardkit.sharding.state-store-mode = persistence\n"
        + "shardkit.sharding.remember-entities-store = persistence\n";
  }

  @Override
  protected String rememberStore() {
    return "persistence";
  }
}
