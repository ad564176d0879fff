package dev.shardkit.systemtest;

import dev.shardkit.sharding.testsupport.PartitionScenario;
import dev.shardkit.sharding.testsupport.PartitionScenario.Plan;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The network partition of {@link PartitionScenario}, longer and larger than CI's
 * {@code PartitionTest}, outside CI ({@code mvn -Psoak}): five nodes split 3/2, 200 entities over
 * 100 shards, every node sending to each every 200 ms (1 000 messages a second per node), the
 * traffic going on for 30 s after the minority is downed. Once with the two youngest nodes cut
 * off, once with the two oldest (the coordinator's node among them, so the coordinator moves to
 * the majority too). The split-brain resolver keeps the majority with {@code stable-after = 3s}; the failure detector is the default.
 */
@Tag("soak")
class PartitionSoakTest {
  static final String CONFIG = "pekko.cluster.split-brain-resolver.stable-after = 3s\n";

  @Test
  @Timeout(value = 600, unit = TimeUnit.SECONDS)
  void theTwoYoungestNodesCutOff() throws Exception {
    PartitionScenario.run("soak-partition-youngest",
        new Plan(5, Set.of(3, 4), 200, 100, Duration.ofMillis(200), Duration.ofSeconds(30), CONFIG));
  }

  @Test
  @Timeout(value = 600, unit = TimeUnit.SECONDS)
  void theTwoOldestNodesCutOffWithTheCoordinator() throws Exception {
    PartitionScenario.run("soak-partition-oldest",
        new Plan(5, Set.of(0, 1), 200, 100, Duration.ofMillis(200), Duration.ofSeconds(30), CONFIG));
  }
}
