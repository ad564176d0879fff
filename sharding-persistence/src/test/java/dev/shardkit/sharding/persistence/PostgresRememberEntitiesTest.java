package dev.shardkit.sharding.persistence;

import dev.shardkit.sharding.testsupport.persistence.EmbeddedPostgresExtension;
import dev.shardkit.sharding.testsupport.RememberEntitiesScenario;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * sharding-core's remember-entities scenario in persistence mode: the coordinator's state and the
 * remembered entities in a real PostgreSQL, which outlives the cluster's restart.
 */
class PostgresRememberEntitiesTest extends RememberEntitiesScenario {
  @RegisterExtension
  static final EmbeddedPostgresExtension POSTGRES = new EmbeddedPostgresExtension();

  @Override
  protected String nodeConfig(int node) {
    return POSTGRES.server().storeConfig()
        + "shardkit.sharding.state-store-mode = persistence\n"
        + "shardkit.sharding.remember-entities-store = persistence\n";
  }

  @Override
  protected String rememberStore() {
    return "persistence";
  }
}
