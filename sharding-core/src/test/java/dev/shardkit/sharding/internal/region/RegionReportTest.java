package dev.shardkit.sharding.internal.region;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.typesafe.config.ConfigFactory;
import dev.shardkit.sharding.ShardRegionState;
import dev.shardkit.sharding.ShardingSettings;
import dev.shardkit.sharding.internal.shard.ShardProtocol;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RegionReportTest {
  private static final Set<ShardProtocol.ShardSnapshot> SHARDS = Set.of(
      new ShardProtocol.ShardSnapshot("s1", Set.of("a", "b"), 3, 1),
      new ShardProtocol.ShardSnapshot("s2", Set.of("c"), 4, 0),
      new ShardProtocol.ShardSnapshot("s3", Set.of(), 0, 2));

  @Test
  void theStateListsTheShardsAndSumsTheirPassivations() {
    ShardingSettings settings = ShardingSettings.fromConfig(ConfigFactory.load().getConfig("shardkit.sharding"))
        .withPassivationIdleTimeout(Duration.ofSeconds(30)).withPassivationActiveEntityLimit(100);
    ShardRegionState state = RegionReport.state(SHARDS, 7, 2, settings);

    assertEquals(Set.of(new ShardRegionState.ShardState("s1", Set.of("a", "b")),
        new ShardRegionState.ShardState("s2", Set.of("c")), new ShardRegionState.ShardState("s3", Set.of())),
        state.shards());
    assertEquals(7, state.bufferedMessages());
    assertEquals(2, state.droppedMessages());
    assertEquals(new ShardRegionState.Passivation(Optional.of(Duration.ofSeconds(30)), OptionalInt.of(100), 7, 3),
        state.passivation());
  }

  @Test
  void theStatisticsCountLiveEntitiesPerShard() {
    assertEquals(Map.of("s1", 2, "s2", 1, "s3", 0), RegionReport.entityCounts(SHARDS));
    assertEquals(Map.of(), RegionReport.entityCounts(Set.of()));
  }
}
