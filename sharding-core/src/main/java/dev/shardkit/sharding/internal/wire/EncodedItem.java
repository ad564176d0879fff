package dev.shardkit.sharding.internal.wire;

import dev.shardkit.sharding.internal.InternalApi;
import java.util.Arrays;

/**
 * A batch item already turned into bytes by the sending link, so that a batch's size is known
 * before it is sent and a message that cannot be serialized is reported (naming its entity) on
 * its own instead of failing the whole batch inside remoting.
 *
 * <p>The bytes are a slice of a larger array: a link writes all the items of one batch into one
 * buffer ({@link DeliveryBatchWriter}), so that each message is copied once on its way into the
 * batch instead of into an array of its own first. The slice is never written again once the item
 * is made.
 *
 * @param original the {@link ShardingProtocol.Deliver} or {@link ShardingProtocol.HandOffMarker},
 *     kept so that the link can hand it back if its destination is gone
 * @param kind the item's tag in the batch format ({@link ShardingSerializer#ITEM_DELIVER},
 *     {@link ShardingSerializer#ITEM_DELIVER_COMPACT} or {@link ShardingSerializer#ITEM_MARKER})
 * @param buffer holds the item's fields in that format, from {@code offset} on
 * @param offset where the item's fields start in {@code buffer}
 * @param length how many bytes they take
 */
@InternalApi
public record EncodedItem(Object original, byte kind, byte[] buffer, int offset, int length) {

  /** An item whose fields fill {@code bytes}. */
  public EncodedItem(Object original, byte kind, byte[] bytes) {
    this(original, kind, bytes, 0, bytes.length);
  }

  /** The item's fields, in an array of their own. */
  byte[] bytes() {
    return offset == 0 && length == buffer.length ? buffer : Arrays.copyOfRange(buffer, offset, offset + length);
  }

  /** What the item takes in a batch: its fields, the section's length and the tag, at most. */
  public int size() {
    return length + 6;
  }
}
