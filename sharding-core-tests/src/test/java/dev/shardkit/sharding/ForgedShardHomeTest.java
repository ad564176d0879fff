package dev.shardkit.sharding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.internal.wire.ShardingProtocol.ShardHome;
import dev.shardkit.sharding.testsupport.Recorder;
import dev.shardkit.sharding.testsupport.Recorder.Command;
import dev.shardkit.sharding.testsupport.Recorder.Msg;
import dev.shardkit.sharding.testsupport.Recorder.Report;
import dev.shardkit.sharding.testsupport.RegionRefs;
import dev.shardkit.sharding.testkit.TestCluster;
import java.time.Duration;
import java.util.Set;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A {@code ShardHome} that the region's coordinator did not send at its current term (stale, from
 * a deposed coordinator, or forged) naming the receiving region itself does not make that region
 * start a second copy of a shard that lives elsewhere. The messages cross the wire from another
 * node, as a deposed coordinator's would.
 */
class ForgedShardHomeTest {
  static final EntityTypeKey<Command> KEY = EntityTypeKey.create(Command.class, "Forged");
  static final int SHARDS = 20;
  static TestCluster cluster;

  @BeforeAll
  static void start() {
    cluster = Recorder.startCluster("Forged", 3, KEY, SHARDS);
  }

  @AfterAll
  static void stop() {
    cluster.close();
  }

  static Report ask(String id) throws Exception {
    return Recorder.ask(cluster.system(0), KEY, id);
  }

  @Test
  void aShardHomeAtAnyTermButTheCurrentOneStartsNoSecondCopy() throws Exception {
    String victim = cluster.address(2).toString();
    String found = null;
    for (int i = 0; found == null; i++) {
      String candidate = "e-" + i;
      ClusterSharding.get(cluster.system(0)).entityRefFor(KEY, candidate).tell(new Msg("n0", 1));
      Recorder.awaitReceived(cluster.system(0), KEY, candidate, 1);
      if (!ask(candidate).host().equals(victim)) {
        found = candidate;
      }
    }
    String id = found;
    String shard = StableHashMessageExtractor.shardIdFor(id, SHARDS);
    String host = ask(id).host();
    ActorRef<Object> region = RegionRefs.regionOf(cluster, 2, 0, KEY.name());

    // No term (an older shardkit), a low one, one of a coordinator that never was, the largest:
    // none is the term of the coordinator the region registered with.
    for (long term : new long[] {0, 1, 1L << 32, Long.MAX_VALUE}) {
      region.tell(new ShardHome(shard, region, term));
    }
    // Asked over the same way after them, so the region has handled them when it answers.
    Set<String> hosted = RegionRefs.hostedShards(cluster, 0, region);
    assertFalse(hosted.contains(shard), "node 2 started shard " + shard + ": " + hosted);

    ClusterSharding.get(cluster.system(2)).entityRefFor(KEY, id).tell(new Msg("n2", 1));
    TestCluster.await(Duration.ofSeconds(30), () -> {
      try {
        return ask(id).lastSeq().getOrDefault("n2", 0) == 1;
      } catch (Exception e) {
        return false;
      }
    }, id + " got node 2's message");
    assertEquals(host, ask(id).host(), "the entity stays where its coordinator placed it");
    assertNotEquals(victim, host);
    assertTrue(Recorder.DOUBLE_INCARNATIONS.isEmpty(), "alive twice: " + Recorder.DOUBLE_INCARNATIONS);
  }
}
