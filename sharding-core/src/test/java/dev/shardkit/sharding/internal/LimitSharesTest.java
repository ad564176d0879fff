package dev.shardkit.sharding.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

class LimitSharesTest {
  private record Told(String shard, int share) {}

  private final Map<String, String> hosted = new HashMap<>();
  private final List<Told> told = new ArrayList<>();

  private LimitShares<String> shares(OptionalInt limit) {
    return new LimitShares<>(limit, id -> Optional.ofNullable(hosted.get(id)), (s, n) -> told.add(new Told(s, n)));
  }

  /** Starts the shard and hosts it, as the region does. @return its share at start */
  private int host(LimitShares<String> shares, String shardId) {
    int share = shares.started(shardId);
    hosted.put(shardId, "shard-" + shardId);
    return share;
  }

  /** Shards a (which may still have 10 live entities) and b share a limit of 10; nobody told yet. */
  private LimitShares<String> twoHostedShards() {
    LimitShares<String> shares = shares(OptionalInt.of(10));
    host(shares, "a");
    host(shares, "b");
    told.clear();
    return shares;
  }

  @Test
  void withoutALimitEveryShardMayHaveAnyNumberAndNobodyIsTold() {
    LimitShares<String> shares = shares(OptionalInt.empty());
    assertEquals(Integer.MAX_VALUE, host(shares, "a"));
    shares.reported("a", 1_000);
    shares.stopped("a");
    assertEquals(List.of(), told);
  }

  @Test
  void aNewShardGetsItsShareAtStartAndTheOthersAreTold() {
    LimitShares<String> shares = shares(OptionalInt.of(10));
    assertEquals(10, host(shares, "a"));
    assertEquals(List.of(), told, "the new shard itself is not told");
    // a may still have 10 live entities: b gets nothing until a reports fewer.
    assertEquals(0, host(shares, "b"));
    assertEquals(List.of(new Told("shard-a", 5)), told);
    told.clear();
    shares.reported("a", 5);
    assertEquals(List.of(new Told("shard-b", 5)), told);
  }

  @Test
  void aStoppedShardsShareGoesToTheOthers() {
    LimitShares<String> shares = twoHostedShards();
    shares.reported("a", 5);
    told.clear();
    hosted.remove("a");
    shares.stopped("a");
    assertEquals(List.of(new Told("shard-b", 10)), told);
  }

  @Test
  void reportsOfAShardNotHostedHereAreIgnored() {
    LimitShares<String> shares = twoHostedShards();
    hosted.remove("a");
    shares.reported("a", 5);
    assertEquals(List.of(), told, "a report from a shard not hosted here shifts no share");
    hosted.put("a", "shard-a");
    shares.reported("a", 5);
    assertEquals(List.of(new Told("shard-b", 5)), told, "the same report from a hosted shard does");
  }
}
