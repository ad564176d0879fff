package dev.shardkit.sharding.testsupport;

import dev.shardkit.sharding.internal.wire.ShardingProtocol.GetRegionStats;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.RegionStats;
import dev.shardkit.sharding.testkit.TestCluster;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorRefResolver;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.AskPattern;

/**
 * The regions of a {@link TestCluster}'s nodes as another node reaches them over the wire, for
 * tests that send them protocol messages the way another node would (a crafted, stale or forged
 * one), and what shards they host.
 */
public final class RegionRefs {
  private RegionRefs() {}

  /**
   * The region of {@code typeName} on node {@code owner}, as node {@code viewer} reaches it.
   *
   * @throws Exception if the region does not answer within a few seconds
   */
  public static ActorRef<Object> regionOf(TestCluster cluster, int owner, int viewer, String typeName)
      throws Exception {
    var local = Adapter.toClassic(cluster.system(owner)).actorSelection("/system/shardkit-region-" + typeName)
        .resolveOne(Duration.ofSeconds(5)).toCompletableFuture().get(10, TimeUnit.SECONDS);
    String remote = ActorRefResolver.get(cluster.system(owner)).toSerializationFormat(Adapter.toTyped(local));
    return ActorRefResolver.get(cluster.system(viewer)).resolveActorRef(remote);
  }

  /**
   * The shards {@code region} hosts, asked from node {@code viewer}: asked the same way as messages
   * told to it before from that node, it answers once it has handled them.
   */
  public static Set<String> hostedShards(TestCluster cluster, int viewer, ActorRef<Object> region) throws Exception {
    RegionStats stats = (RegionStats) AskPattern.<Object, Object>ask(region, GetRegionStats::new,
        Duration.ofSeconds(5), cluster.system(viewer).scheduler()).toCompletableFuture().get(10, TimeUnit.SECONDS);
    return stats.entityCounts().keySet();
  }
}
