package dev.shardkit.sharding.internal;

/**
 * A batch item already turned into bytes by the sending link, so that a batch's size is known
 * before it is sent and a message that cannot be serialized is reported (naming its entity) on
 * its own instead of failing the whole batch inside remoting.
 *
 * @param original the {@link ShardingProtocol.Deliver} or {@link ShardingProtocol.HandOffMarker},
 *     kept so that the link can hand it back if its destination is gone
 * @param kind the item's tag in the batch format ({@link ShardingSerializer#ITEM_DELIVER} or
 *     {@link ShardingSerializer#ITEM_MARKER})
 * @param bytes the item's fields in that format
 */
record EncodedItem(Object original, byte kind, byte[] bytes) {
  int size() {
    return bytes.length + 6;
  }
}
