package dev.shardkit.sharding;

/**
 * An extractor over {@link ShardingEnvelope} whose shard ids are {@code Math.abs(id.hashCode()) % n}
 * — the same shard ids as Pekko's and Akka's {@code HashCodeMessageExtractor}, so that a cluster
 * migrating from them keeps its shard ids (and the data keyed by them). {@code String.hashCode} is
 * specified by the JDK, so the ids are stable across JVMs. New projects should prefer
 * {@link StableHashMessageExtractor}, which spreads similar ids better.
 *
 * <p>Faithful to the original, an id whose {@code hashCode()} is {@link Integer#MIN_VALUE} (such as
 * {@code "polygenelubricants"}) gets a negative shard id unless {@code n} is a power of two.
 *
 * @param <M> the entity's message type
 */
public final class HashCodeMessageExtractor<M> extends EnvelopeMessageExtractor<M> {

  /**
   * @param numberOfShards how many shards the ids are spread over
   * @throws IllegalArgumentException if {@code numberOfShards} is less than 1
   */
  public HashCodeMessageExtractor(int numberOfShards) {
    super(numberOfShards);
  }

  /** The shard id for an entity id with the given number of shards. */
  public static String shardIdFor(String entityId, int numberOfShards) {
    return Integer.toString(shardNumber(entityId, numberOfShards));
  }

  @Override
  public String shardId(String entityId) {
    return shardIdOf(shardNumber(entityId, numberOfShards()));
  }

  private static int shardNumber(String entityId, int numberOfShards) {
    return Math.abs(entityId.hashCode()) % numberOfShards;
  }
}
