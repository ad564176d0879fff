package dev.shardkit.sharding.persistence;

import dev.shardkit.sharding.persistence.testkit.EmbeddedPostgresServer;
import dev.shardkit.sharding.testkit.CoordinatorFailoverScenario;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** sharding-core's coordinator failover scenario with the persistence store on a real PostgreSQL. */
class PostgresCoordinatorFailoverTest extends CoordinatorFailoverScenario {
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
  protected String storeConfig() {
    return postgres.storeConfig() + "shardkit.sharding.state-store-mode = persistence\n";
  }

  @Override
  protected boolean storeOutlivesCoordinator() {
    return true;
  }
}
