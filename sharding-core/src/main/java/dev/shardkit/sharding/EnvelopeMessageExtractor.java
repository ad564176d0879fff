package dev.shardkit.sharding;

import org.jspecify.annotations.Nullable;

/**
 * What the shipped extractors share, and the type to name either by: the entity id and message
 * come from a {@link ShardingEnvelope}, the shard id from a hash of the entity id over a fixed
 * number of shards, so the shard ids are {@code "0"} to {@code numberOfShards() - 1} (with one
 * exception of {@link HashCodeMessageExtractor}'s, described there). The two subclasses differ only
 * in the hash; no other can be written (the class is sealed), so code that holds one can rely on
 * its shard ids.
 *
 * <pre>{@code
 * EnvelopeMessageExtractor<Counter.Command> extractor = migrating
 *     ? new HashCodeMessageExtractor<>(1000) : new StableHashMessageExtractor<>(1000);
 * int shards = extractor.numberOfShards();
 * }</pre>
 *
 * @param <M> the entity's message type
 */
public abstract sealed class EnvelopeMessageExtractor<M> implements MessageExtractor<ShardingEnvelope<M>, M>
    permits StableHashMessageExtractor, HashCodeMessageExtractor {
  /** Shard numbers up to this many have their id string kept: a few hundred KiB at most. */
  private static final int MOST_IDS_KEPT = 65_536;

  private final int numberOfShards;
  /**
   * Each shard number's id, made on first use: a message sent by envelope then allocates no id,
   * and the region's table finds the id's hash already computed. Filled without locks: two threads
   * may each make the same id, and either string is as good as the other.
   */
  private final @Nullable String[] ids;

  EnvelopeMessageExtractor(int numberOfShards) {
    if (numberOfShards < 1) {
      throw new IllegalArgumentException("numberOfShards must be at least 1, got " + numberOfShards);
    }
    this.numberOfShards = numberOfShards;
    this.ids = new String[Math.min(numberOfShards, MOST_IDS_KEPT)];
  }

  /** The id of shard number {@code shard}: its decimal string. */
  final String shardIdOf(int shard) {
    if (shard < 0 || shard >= ids.length) {
      return Integer.toString(shard);
    }
    String id = ids[shard];
    if (id == null) {
      id = Integer.toString(shard);
      ids[shard] = id;
    }
    return id;
  }

  /** How many shards the ids are spread over. */
  public int numberOfShards() {
    return numberOfShards;
  }

  /** The envelope's entity id. */
  @Override
  public String entityId(ShardingEnvelope<M> envelope) {
    return envelope.entityId();
  }

  /** The envelope's message. */
  @Override
  public M unwrapMessage(ShardingEnvelope<M> envelope) {
    return envelope.message();
  }
}
