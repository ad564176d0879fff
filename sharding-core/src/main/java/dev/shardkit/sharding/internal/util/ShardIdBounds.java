package dev.shardkit.sharding.internal.util;

import dev.shardkit.sharding.HashCodeMessageExtractor;
import dev.shardkit.sharding.MessageExtractor;
import dev.shardkit.sharding.StableHashMessageExtractor;
import dev.shardkit.sharding.internal.InternalApi;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Which shard ids an entity type accepts, beyond being valid ({@link ShardIds}), so that neither a
 * faulty extractor nor crafted messages can make the coordinator store shards without bound.
 *
 * <ul>
 *   <li>With <b>known shard ids</b> (the built-in extractors give {@code 0..n-1}), exactly the
 *       decimal numbers {@code 0} to {@code n-1}, written without sign or leading zeros (the form
 *       the extractors write): the region refuses any other before it asks the coordinator, and
 *       the coordinator refuses a request for one.
 *   <li>Otherwise any id, but the coordinator places at most {@code max-shards} distinct shards;
 *       a request for one more is refused (the region drops and counts its messages).
 * </ul>
 *
 * <p>Every refusal names the entity type and, for the cap, its value and the setting. Pure.
 *
 * @param typeName the entity type, for the reasons
 * @param knownShards n &gt; 0 if the shard ids are {@code 0..n-1}; 0 if they are not known
 * @param maxShards the cap on distinct shards when the ids are not known ({@code max-shards})
 * @param oddKnownId one more known id outside {@code 0..n-1}, or null: {@link HashCodeMessageExtractor}
 *     gives an id whose hash is {@code Integer.MIN_VALUE} a negative shard id, as Pekko's does
 */
@InternalApi
public record ShardIdBounds(String typeName, int knownShards, int maxShards, @Nullable String oddKnownId) {

  /** The setting that caps distinct shards, as the reasons name it. */
  static final String MAX_SHARDS_SETTING = "shardkit.sharding.max-shards";

  /**
   * @throws IllegalArgumentException if knownShards is negative or maxShards below 1
   */
  public ShardIdBounds {
    if (knownShards < 0 || maxShards < 1) {
      throw new IllegalArgumentException("shard id bounds need knownShards >= 0 and maxShards >= 1, got "
          + knownShards + " and " + maxShards);
    }
  }

  /** The bounds for a type started with {@code extractor}: known ids for the built-in extractors. */
  public static ShardIdBounds of(String typeName, MessageExtractor<?, ?> extractor, int maxShards) {
    if (extractor instanceof StableHashMessageExtractor<?> s) {
      return new ShardIdBounds(typeName, s.numberOfShards(), maxShards, null);
    } else if (extractor instanceof HashCodeMessageExtractor<?> h) {
      int n = h.numberOfShards();
      return new ShardIdBounds(typeName, n, maxShards, Integer.MIN_VALUE % n < 0
          ? Integer.toString(Integer.MIN_VALUE % n) : null);
    }
    return new ShardIdBounds(typeName, 0, maxShards, null);
  }

  /**
   * Why a region refuses a message for this entity and shard, or empty if it routes it.
   *
   * @return a reason that names the entity and the rule broken
   */
  public Optional<String> atRegion(String shardId, String entityId) {
    Optional<String> problem = ShardIds.problem("entity id", entityId).or(() -> ShardIds.problem("shard id", shardId))
        .or(() -> outsideKnown(shardId));
    return problem.map(p -> "dropping a message for entity [" + entityId + "]: " + p);
  }

  /**
   * Why the coordinator refuses to give the shard a home, or empty if it may.
   *
   * @param hasHome the shard has a home already (or is moving): it was accepted before, so only an
   *     id outside the known ones is refused
   * @param placedShards how many shards have a home now
   */
  public Optional<String> atCoordinator(String shardId, boolean hasHome, int placedShards) {
    Optional<String> problem = ShardIds.problem("shard id", shardId).or(() -> outsideKnown(shardId));
    if (problem.isEmpty() && knownShards == 0 && !hasHome && placedShards >= maxShards) {
      problem = Optional.of("entity type [" + typeName + "] has " + placedShards + " shards, the most that "
          + MAX_SHARDS_SETTING + " = " + maxShards + " allows; refusing the new shard [" + shardId + "]");
    }
    return problem;
  }

  private Optional<String> outsideKnown(String shardId) {
    if (knownShards == 0 || isKnown(shardId) || shardId.equals(oddKnownId)) {
      return Optional.empty();
    }
    return Optional.of("the shard id [" + shardId + "] is not one of entity type [" + typeName + "]'s shard ids, 0 to "
        + (knownShards - 1) + " (its extractor spreads entities over " + knownShards + " shards)");
  }

  /** True if {@code shardId} is a decimal in 0..knownShards-1 in the extractors' form. */
  private boolean isKnown(String shardId) {
    int n = shardId.length();
    // knownShards is an int, so a longer id cannot be below it.
    if (n == 0 || n > 10 || (n > 1 && shardId.charAt(0) == '0')) {
      return false;
    }
    long value = 0;
    for (int i = 0; i < n; i++) {
      char c = shardId.charAt(i);
      if (c < '0' || c > '9') {
        return false;
      }
      value = value * 10 + (c - '0');
    }
    return value < knownShards;
  }
}
