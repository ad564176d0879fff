package dev.shardkit.sharding.persistence;

import dev.shardkit.sharding.testsupport.persistence.StoreOutageScenario;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The coordinator's PostgreSQL is down for 20 seconds under traffic: known shards keep serving,
 * the coordinator's memory stays bounded, and every message held for a new shard is delivered
 * once afterwards ({@link StoreOutageScenario}; the two-minute variant runs in the soak profile).
 */
class StoreOutageClusterTest {
  @Test
  void theDatabaseIsDownForTwentySecondsUnderTraffic() throws Exception {
    StoreOutageScenario.run("Outage20s", Duration.ofSeconds(20));
  }
}
