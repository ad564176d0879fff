package dev.shardkit.sharding;

/**
 * What the shipped extractors share: the entity id and message come from a
 * {@link ShardingEnvelope}, the shard id from a hash of the entity id over a fixed number of
 * shards. Subclasses differ only in the hash.
 *
 * @param <M> the entity's message type
 */
abstract sealed class EnvelopeMessageExtractor<M> implements MessageExtractor<ShardingEnvelope<M>, M>
    permits StableHashMessageExtractor, HashCodeMessageExtractor {
  private final int numberOfShards;

  EnvelopeMessageExtractor(int numberOfShards) {
    if (numberOfShards < 1) {
      throw new IllegalArgumentException("numberOfShards must be at least 1, got " + numberOfShards);
    }
    this.numberOfShards = numberOfShards;
  }

  /** How many shards the ids are spread over. */
  public int numberOfShards() {
    return numberOfShards;
  }

  @Override
  public String entityId(ShardingEnvelope<M> envelope) {
    return envelope.entityId();
  }

  @Override
  public M unwrapMessage(ShardingEnvelope<M> envelope) {
    return envelope.message();
  }
}
