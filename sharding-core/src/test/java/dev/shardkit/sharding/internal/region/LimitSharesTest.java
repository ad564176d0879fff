package dev.shardkit.sharding.internal.region;

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
    shares.reported("a", 1_000, 0);
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
    shares.reported("a", 5, 1);
    assertEquals(List.of(new Told("shard-b", 5)), told);
  }

  @Test
  void aCountMadeBeforeTheShardHeardItsLatestShareFreesNoRoom() {
    LimitShares<String> shares = shares(OptionalInt.of(10));
    host(shares, "a");
    host(shares, "b");
    shares.reported("a", 5, 1);
    told.clear();
    // b stops: a is told 10 (its second share), then c starts: a is told 5 again (its third).
    hosted.remove("b");
    shares.stopped("b");
    host(shares, "c");
    assertEquals(List.of(new Told("shard-a", 10), new Told("shard-a", 5)), told);
    told.clear();
    // a counted 5 under its first share, before it heard the 10 it may still fill up to.
    shares.reported("a", 5, 1);
    assertEquals(List.of(), told, "a count from before the last share was heard gives c nothing");
    shares.reported("a", 5, 2);
    assertEquals(List.of(), told, "nor one from before the latest");
    shares.reported("a", 5, 3);
    assertEquals(List.of(new Told("shard-c", 5)), told, "a count under the latest share does");
  }

  @Test
  void aRestartedShardCountsItsSharesAfresh() {
    LimitShares<String> shares = twoHostedShards();
    shares.reported("a", 5, 1);
    hosted.remove("a");
    shares.stopped("a");
    told.clear();
    assertEquals(0, host(shares, "a"), "b may still have 10 live entities");
    assertEquals(List.of(new Told("shard-b", 5)), told);
    told.clear();
    // b was told 5, 10, then 5: only a count under its third share frees room for a.
    shares.reported("b", 5, 2);
    assertEquals(List.of(), told, "counted under b's second share, 10");
    shares.reported("b", 5, 3);
    assertEquals(List.of(new Told("shard-a", 5)), told, "counted under b's third share, 5");
    told.clear();
    shares.reported("a", 5, 1);
    assertEquals(List.of(), told, "a heard one share since it started again, and is within it");
  }

  @Test
  void aStoppedShardsShareGoesToTheOthers() {
    LimitShares<String> shares = twoHostedShards();
    shares.reported("a", 5, 1);
    told.clear();
    hosted.remove("a");
    shares.stopped("a");
    assertEquals(List.of(new Told("shard-b", 10)), told);
  }

  @Test
  void reportsOfAShardNotHostedHereAreIgnored() {
    LimitShares<String> shares = twoHostedShards();
    hosted.remove("a");
    shares.reported("a", 5, 1);
    assertEquals(List.of(), told, "a report from a shard not hosted here shifts no share");
    hosted.put("a", "shard-a");
    shares.reported("a", 5, 1);
    assertEquals(List.of(new Told("shard-b", 5)), told, "the same report from a hosted shard does");
  }
}
