package dev.shardkit.sharding;

import dev.shardkit.sharding.testsupport.PartitionScenario;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Five nodes split 3/2 by a network partition (both directions cut) under traffic from every node;
 * the split-brain resolver (keep-majority, {@code stable-after = 3s}) downs the two youngest. No
 * entity is ever alive twice, and every message the majority sends once it has seen the minority
 * downed arrives, once. See {@link PartitionScenario}; a longer variant runs in the soak profile.
 */
class PartitionTest {

  @Test
  void aMinorityCutOffIsDownedWithoutAnEntityAliveTwiceAndTheMajorityLosesNothingAfterwards() throws Exception {
    // stable-after is the resolver's, not a transport setting: short, so the test is.
    PartitionScenario.run("Partition", new PartitionScenario.Plan(5, Set.of(3, 4), 30, 30, Duration.ofMillis(50),
        Duration.ofSeconds(5), "pekko.cluster.split-brain-resolver.stable-after = 3s\n"));
  }
}
