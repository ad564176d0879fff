package dev.shardkit.sharding.persistence;

import dev.shardkit.sharding.testsupport.persistence.EmbeddedPostgresExtension;
import dev.shardkit.sharding.testsupport.CoordinatorFailoverScenario;
import org.junit.jupiter.api.extension.RegisterExtension;

/** sharding-core's coordinator failover scenario with the persistence store on a real PostgreSQL. */
class PostgresCoordinatorFailoverTest extends CoordinatorFailoverScenario {
  @RegisterExtension
  static final EmbeddedPostgresExtension POSTGRES = new EmbeddedPostgresExtension();

  @Override
  protected String storeConfig() {
    return POSTGRES.server().storeConfig() + "shardkit.sharding.state-store-mode = persistence\n";
  }

  @Override
  protected boolean storeOutlivesCoordinator() {
    return true;
  }
}
