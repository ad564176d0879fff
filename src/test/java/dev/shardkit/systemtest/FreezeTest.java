package dev.shardkit.systemtest;

import dev.shardkit.systemtest.FreezeScenario.Freeze;
import dev.shardkit.systemtest.FreezeScenario.Plan;
import dev.shardkit.systemtest.FreezeScenario.Until;
import dev.shardkit.systemtest.FreezeScenario.Victim;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A frozen node (SIGSTOP, as a long garbage-collection pause or a suspended VM would) is thawed
 * (SIGCONT) while the others hold its shards' messages, and later after the others have downed it
 * and started its entities elsewhere. Once for the oldest node, which runs the coordinator, and
 * once for the youngest. {@link FreezeScenario} says what is checked.
 *
 * <p>Each test runs one cluster through both freezes, the short one first: frozen until every
 * other node has seen it unreachable, plus a second; then frozen until every other node has seen it
 * removed and one of them has started one of its entities (after the removal margin), plus two
 * seconds in which the others start too.
 */
class FreezeTest {
  /**
   * The failure detector's default pause (3 s) and a stable-after long enough that a node thawed a
   * second after it was seen unreachable is seen reachable again well before the split-brain
   * resolver would decide.
   */
  static final String CONFIG = """
      shardkit.sharding.number-of-shards = 100
      pekko.cluster.failure-detector.acceptable-heartbeat-pause = 3s
      pekko.cluster.split-brain-resolver.stable-after = 7s
      """;

  static final Plan PLAN = new Plan(1000, 1000, CONFIG, Duration.ofSeconds(3), List.of(
      new Freeze("shorter than the downing", Until.UNREACHABLE, Duration.ofSeconds(1)),
      new Freeze("longer than the downing", Until.REMOVED, Duration.ofSeconds(2))),
      Duration.ofSeconds(4));

  @Test
  @Timeout(value = 300, unit = TimeUnit.SECONDS)
  void freezingTheOldestNodeNeverRunsAnEntityTwice() throws Exception {
    FreezeScenario.run("oldest", Victim.OLDEST, PLAN);
  }

  @Test
  @Timeout(value = 300, unit = TimeUnit.SECONDS)
  void freezingTheYoungestNodeNeverRunsAnEntityTwice() throws Exception {
    FreezeScenario.run("youngest", Victim.YOUNGEST, PLAN);
  }
}
