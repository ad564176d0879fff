package dev.shardkit.sharding.internal.region;

import dev.shardkit.sharding.MessageExtractor;
import dev.shardkit.sharding.internal.util.ShardIds;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.Deliver;

/**
 * Turns an envelope sent to a region into the message it routes, by the entity type's
 * {@link MessageExtractor}. A user extractor may throw or give a null or empty id; that never
 * escapes: the envelope is {@link Rejected} with a reason naming the entity (when it is known),
 * so the region drops that one message and keeps serving every other entity. Pure.
 */
final class EnvelopeExtraction {

  /** What became of an envelope. */
  sealed interface Result {}

  /** The envelope is for {@code deliver}'s entity, in {@code deliver}'s shard. */
  record Extracted(Deliver deliver) implements Result {}

  /** The extractor could not place the envelope, for {@code reason}. */
  record Rejected(String reason) implements Result {}

  private EnvelopeExtraction() {}

  static Result extract(String typeName, MessageExtractor<Object, Object> extractor, Object envelope) {
    try {
      String entityId = extractor.entityId(envelope);
      if (!ShardIds.isValid(entityId)) {
        return new Rejected("the message extractor gave " + (entityId == null ? "a null" : "an empty")
            + " entity id for a message of class " + envelope.getClass().getName());
      }
      String shardId = extractor.shardId(entityId);
      if (!ShardIds.isValid(shardId)) {
        return new Rejected("the message extractor gave a null or empty shard id for entity [" + entityId + "]");
      }
      Object message = extractor.unwrapMessage(envelope);
      if (message == null) {
        return new Rejected("the message extractor unwrapped null for entity [" + entityId + "]");
      }
      return new Extracted(new Deliver(typeName, shardId, entityId, message));
    } catch (RuntimeException e) {
      return new Rejected("the message extractor threw " + e + " for a message of class "
          + envelope.getClass().getName());
    }
  }
}
