package dev.shardkit.sharding.internal.region;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * A region's side of the active-entity limit: it shares the limit among the shards hosted here
 * ({@link EntityLimits}) and tells every hosted shard whose share changed. A shard that is not
 * hosted here (any more) is never told. Without a limit it tells nothing, and a shard may have any
 * number of entities. Owned by the region actor; not thread-safe.
 *
 * @param <S> what a hosted shard is (its actor)
 */
final class LimitShares<S> {
  /** Null without a limit. */
  private final EntityLimits limits;
  private final Function<String, Optional<S>> hosted;
  private final BiConsumer<S, Integer> tell;
  /** How many shares each hosted shard has been told since it started (its share at start is not one). */
  private final Map<String, Integer> told = new HashMap<>();

  /**
   * @param regionLimit the most active entities over the region's shards, if limited
   * @param hosted the shard hosted here under an id, if any
   * @param tell tells a hosted shard its new share
   */
  LimitShares(OptionalInt regionLimit, Function<String, Optional<S>> hosted, BiConsumer<S, Integer> tell) {
    this.limits = regionLimit.isPresent() ? new EntityLimits(regionLimit.getAsInt()) : null;
    this.hosted = hosted;
    this.tell = tell;
  }

  /**
   * A shard starts here; the other shards whose share changed are told.
   *
   * @return the new shard's share, which it is given as it starts
   */
  int started(String shardId) {
    if (limits == null) {
      return Integer.MAX_VALUE;
    }
    told.put(shardId, 0);
    Map<String, Integer> shares = limits.added(shardId);
    tellAll(shares, shardId);
    return shares.getOrDefault(shardId, Integer.MAX_VALUE);
  }

  /**
   * A shard started with {@code given} is running now as {@code shard}: if its share changed while it
   * started (another shard started meanwhile), it is told the current one.
   */
  void running(String shardId, int given, S shard) {
    if (limits != null && told.containsKey(shardId) && limits.granted(shardId) != given) {
      told.merge(shardId, 1, Integer::sum);
      tell.accept(shard, limits.granted(shardId));
    }
  }

  /** A shard hosted here stopped: its share goes to the others, which are told. */
  void stopped(String shardId) {
    if (limits != null) {
      told.remove(shardId);
      tellAll(limits.removed(shardId), null);
    }
  }

  /**
   * A shard reports how many entities live in it, counted after it had heard {@code limitsHeard}
   * shares. One not hosted here any more is ignored, and so is a count made before the shard heard
   * the last share it was told: a shard that has not heard of a smaller share may still start
   * entities up to the larger one, so the room it is to give back is not free yet. It reports again
   * once it has heard.
   */
  void reported(String shardId, int live, int limitsHeard) {
    if (limits != null && hosted.apply(shardId).isPresent() && limitsHeard == told.getOrDefault(shardId, 0)) {
      tellAll(limits.reported(shardId, live), null);
    }
  }

  private void tellAll(Map<String, Integer> shares, String skip) {
    shares.forEach((shardId, share) -> {
      if (!shardId.equals(skip)) {
        hosted.apply(shardId).ifPresent(shard -> {
          told.merge(shardId, 1, Integer::sum);
          tell.accept(shard, share);
        });
      }
    });
  }
}
