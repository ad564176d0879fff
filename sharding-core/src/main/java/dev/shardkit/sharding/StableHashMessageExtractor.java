package dev.shardkit.sharding;

import dev.shardkit.sharding.internal.util.Murmur3;

/**
 * The default extractor over {@link ShardingEnvelope}: the shard id is the 32-bit Murmur3 hash
 * (x86 variant, seed 0) of the entity id's UTF-8 bytes, modulo the number of shards, as a decimal
 * string. It depends on nothing JVM-specific, so every node, JVM version and language computes the
 * same shard for the same id.
 *
 * @param <M> the entity's message type
 */
public final class StableHashMessageExtractor<M> extends EnvelopeMessageExtractor<M> {

  /**
   * @param numberOfShards how many shards the ids are spread over; keep it fixed for the life of
   *     the cluster (changing it moves entities between shards) and well above the number of nodes
   * @throws IllegalArgumentException if {@code numberOfShards} is less than 1
   */
  public StableHashMessageExtractor(int numberOfShards) {
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
    return Math.floorMod(Murmur3.hash32Utf8(entityId), numberOfShards);
  }
}
