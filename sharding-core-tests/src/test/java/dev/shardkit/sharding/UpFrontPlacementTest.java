package dev.shardkit.sharding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.testkit.EntityProbe;
import dev.shardkit.sharding.testkit.EntityProbe.Hello;
import dev.shardkit.sharding.testkit.EntityProbe.Msg;
import dev.shardkit.sharding.testkit.LogCapture;
import dev.shardkit.sharding.testkit.TestCluster;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.pekko.actor.typed.ActorSystem;
import org.junit.jupiter.api.Test;

/**
 * Shards placed up front on the only node there is reach a node that joins later without
 * hand-offs, as long as nobody has used them: the joining node gets its share at once, and
 * entities then start on both nodes with nothing left to rebalance.
 */
class UpFrontPlacementTest {

  @Test
  void aJoiningNodeGetsItsShareOfTheUnusedShardsWithoutHandOffs() throws Exception {
    EntityProbe probe = new EntityProbe();
    EntityTypeKey<Msg> key = EntityTypeKey.create(Msg.class, "UpFront");
    try (LogCapture log = new LogCapture(); TestCluster cluster = new TestCluster("UpFront")) {
      ActorSystem<Void> first = cluster.add("");
      cluster.awaitUp(1);
      ClusterSharding.get(first).start(Entity.of(key, probe::behavior)
          .withSettings(ShardingSettings.create(first).withNumberOfShards(100)));
      log.await(Duration.ofSeconds(15), "Coordinator of [UpFront]: placing 100 shard(s) up front, in one write");

      ActorSystem<Void> second = cluster.add("");
      cluster.awaitUp(2);
      ClusterSharding.get(second).start(Entity.of(key, probe::behavior)
          .withSettings(ShardingSettings.create(second).withNumberOfShards(100)));
      log.await(Duration.ofSeconds(15), "Coordinator of [UpFront]: moving 50 shard(s) placed up front and not used "
          + "yet, without hand-offs");

      Set<String> ids = new HashSet<>();
      for (int i = 0; i < 200; i++) {
        ids.add("e" + i);
        ClusterSharding.get(second).entityRefFor(key, "e" + i).tell(new Hello(1));
      }
      TestCluster.await(Duration.ofSeconds(15), () -> ids.stream().allMatch(id -> probe.received(id).equals(List.of(1))),
          "every entity got its message");
      Set<String> nodes = new HashSet<>();
      ids.forEach(id -> nodes.add(probe.startedOn(id)));
      assertEquals(Set.of(first.address().toString(), second.address().toString()), nodes,
          "entities run on both nodes");
      ids.forEach(id -> assertEquals(1, probe.starts(id), id + " started once: it never moved"));
      assertTrue(log.matching("Coordinator of [UpFront]: rebalancing").isEmpty(),
          "nothing was left to rebalance: " + log.matching("Coordinator of [UpFront]: rebalancing"));
    }
  }
}
