package dev.shardkit.systemtest;

import dev.shardkit.systemtest.FreezeScenario.Freeze;
import dev.shardkit.systemtest.FreezeScenario.Plan;
import dev.shardkit.systemtest.FreezeScenario.Until;
import dev.shardkit.systemtest.FreezeScenario.Target;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A frozen node (SIGSTOP, as a long garbage-collection pause or a suspended VM would) is thawed
 * (SIGCONT) while the others hold its shards' messages, and later after the others have downed it
 * and started its entities elsewhere; once for the oldest node, which runs the coordinator, and once
 * for the youngest. After the youngest is gone, another young node is frozen until the others down
 * it and thawed at that moment, so that it wakes up downed but not yet removed. {@link FreezeScenario}
 * says what is checked.
 *
 * <p>The short freeze lasts until every other node has seen the node unreachable, plus half a
 * second; the long one until every other node has seen it removed and one of them has started one of
 * its entities (after the removal margin), plus two seconds in which the others start too.
 */
class FreezeTest {
  /**
   * The failure detector's default pause (3 s), and a stable-after long enough that a node thawed
   * just after it was seen unreachable is seen reachable again well before the split-brain resolver
   * would decide. The removal margin is stable-after's, the default.
   */
  static final String CONFIG = """
      shardkit.sharding.number-of-shards = 100
      pekko.cluster.failure-detector.acceptable-heartbeat-pause = 3s
      pekko.cluster.split-brain-resolver.stable-after = 7s
      """;

  private static Plan plan(Freeze... freezes) {
    return new Plan(1000, 1000, CONFIG, Duration.ofSeconds(2), List.of(freezes), Duration.ofSeconds(3));
  }

  @Test
  @Timeout(value = 300, unit = TimeUnit.SECONDS)
  void freezingTheOldestNodeNeverRunsAnEntityTwice() throws Exception {
    FreezeScenario.run("oldest", plan(
        new Freeze("shorter than the downing", Target.OLDEST, Until.UNREACHABLE, Duration.ofMillis(500)),
        new Freeze("longer than the downing", Target.OLDEST, Until.REMOVED, Duration.ofSeconds(2))));
  }

  @Test
  @Timeout(value = 300, unit = TimeUnit.SECONDS)
  void freezingAYoungNodeNeverRunsAnEntityTwice() throws Exception {
    FreezeScenario.run("young", plan(
        new Freeze("shorter than the downing", Target.YOUNGEST, Until.UNREACHABLE, Duration.ofMillis(500)),
        new Freeze("longer than the downing", Target.YOUNGEST, Until.REMOVED, Duration.ofSeconds(2)),
        new Freeze("until the downing", Target.SECOND_YOUNGEST, Until.DOWNED, Duration.ZERO)));
  }
}
