package dev.shardkit.systemtest;

import dev.shardkit.sharding.testsupport.persistence.StoreOutageScenario;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The coordinator's PostgreSQL is down for two minutes under traffic, outside CI
 * ({@code mvn -Psoak}): the same checks as the 20-second {@code StoreOutageClusterTest} in
 * sharding-persistence ({@link StoreOutageScenario}), over an outage six times as long, so that
 * memory that grows with the outage's length would show.
 */
@Tag("soak")
class StoreOutageSoakTest {
  @Test
  @Timeout(value = 600, unit = TimeUnit.SECONDS)
  void theDatabaseIsDownForTwoMinutesUnderTraffic() throws Exception {
    StoreOutageScenario.run("Outage2m", Duration.ofMinutes(2));
  }
}
