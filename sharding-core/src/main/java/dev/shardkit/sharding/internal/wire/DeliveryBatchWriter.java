package dev.shardkit.sharding.internal.wire;

import dev.shardkit.sharding.internal.InternalApi;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.Deliver;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.HandOffMarker;
import dev.shardkit.sharding.internal.wire.ShardingSerializer.Payload;
import java.util.function.Supplier;
import org.apache.pekko.serialization.Serializer;
import org.jspecify.annotations.Nullable;

/**
 * Writes the items of one {@link ShardingProtocol.DeliveryBatch} into one buffer, in the order
 * the sending link takes them, each message's payload serialized once and copied once into it.
 * The items it returns are slices of that buffer; the batch's serializer copies them into the
 * frame ({@link ShardingSerializer#toBinary}).
 *
 * <p><b>Compact items.</b> With {@code compact}, a Deliver is written as an
 * {@link ShardingSerializer#ITEM_DELIVER_COMPACT} item, which leaves out its type name, and its
 * payload's serializer id and manifest, when they are those of the compact item written before it
 * (a link carries one entity type's messages, mostly of a few classes): a message of the remote
 * workload takes about half the bytes. Such an item can be read only after the ones before it in
 * the same batch, so the items of one writer must be sent together, in order, in one batch.
 * Without {@code compact}, every item is written as every shardkit reads it
 * ({@link ShardingSerializer#ITEM_DELIVER}, {@link ShardingSerializer#ITEM_MARKER}).
 *
 * <p>Not thread-safe: one writer per batch, used by the link that sends it.
 */
@InternalApi
public final class DeliveryBatchWriter implements ItemEncoder.BatchWriter {
  private final ShardingSerializer serializer;
  private final boolean compact;
  private final BinaryWriter out;
  /** The last compact Deliver's type name; null before the first, or after an {@link #undo}. */
  private @Nullable String sharedTypeName;
  /** The last compact Deliver's payload serializer and manifest; manifest null when none is shared. */
  private int sharedSerializerId;
  private @Nullable String sharedManifest;
  /** The serializer of the last payload's class: Pekko chooses by class, and a batch has few. */
  private Class<?> lastClass;
  private Serializer lastSerializer;

  /**
   * @param compact whether Delivers are written as compact items (only to a receiver that said it
   *     reads them)
   * @param initialCapacity bytes to start with; the buffer grows as needed
   */
  public DeliveryBatchWriter(ShardingSerializer serializer, boolean compact, int initialCapacity) {
    this.serializer = serializer;
    this.compact = compact;
    this.out = new BinaryWriter(initialCapacity);
  }

  /**
   * Appends an item to the batch.
   *
   * @param item a {@link Deliver} or a {@link HandOffMarker}
   * @return the item's bytes, a slice of this writer's buffer, and {@code item} as its original
   * @throws IllegalArgumentException naming the entity, if a Deliver's message cannot be
   *     serialized; naming the field, if the item lacks a required one; if {@code item} is neither
   *     a Deliver nor a HandOffMarker. Nothing is written then.
   */
  @Override
  public EncodedItem write(Object item) {
    ProtocolFields.problem(item).ifPresent(problem -> {
      throw new IllegalArgumentException("shardkit cannot send " + problem);
    });
    int start = out.position();
    byte kind;
    try {
      if (item instanceof Deliver d) {
        Supplier<String> where = ShardingSerializer.whereFor(d.typeName(), d.entityId());
        Payload payload = serializer.serializePayload(d.message(), serializerOf(d.message(), where), where);
        if (compact) {
          writeCompact(d, payload);
          kind = ShardingSerializer.ITEM_DELIVER_COMPACT;
        } else {
          serializer.writeDeliverFields(out, d, payload);
          kind = ShardingSerializer.ITEM_DELIVER;
        }
      } else if (item instanceof HandOffMarker m) {
        serializer.writeMarkerFields(out, m);
        kind = ShardingSerializer.ITEM_MARKER;
      } else {
        throw new IllegalArgumentException("a delivery batch carries only Deliver and HandOffMarker, got "
            + (item == null ? "null" : item.getClass().getName()));
      }
    } catch (RuntimeException e) {
      // A string too long to write fails half-way: the batch must not keep half an item.
      rewind(start);
      throw e;
    }
    return new EncodedItem(item, kind, out.buffer(), start, out.position() - start);
  }

  /**
   * Takes back {@code last}, the item {@link #write} returned last, so that it is not in the
   * batch (it did not fit, and starts the next one). The next compact item shares nothing with
   * those before it: what it would share may have come from {@code last}.
   */
  @Override
  public void undo(EncodedItem last) {
    rewind(last.offset());
  }

  private void rewind(int position) {
    out.truncate(position);
    sharedTypeName = null;
    sharedManifest = null;
  }

  private void writeCompact(Deliver d, Payload payload) {
    boolean sameType = d.typeName().equals(sharedTypeName);
    boolean sameSerializer = sharedManifest != null && payload.serializerId() == sharedSerializerId
        && payload.manifest().equals(sharedManifest);
    out.writeByte((byte) ((sameType ? 0 : ShardingSerializer.COMPACT_TYPE_NAME)
        | (sameSerializer ? 0 : ShardingSerializer.COMPACT_SERIALIZER)));
    if (!sameType) {
      out.writeString(d.typeName());
    }
    out.writeString(d.shardId());
    out.writeString(d.entityId());
    if (!sameSerializer) {
      out.writeVarInt(payload.serializerId());
      out.writeString(payload.manifest());
    }
    out.writeBytes(payload.bytes());
    sharedTypeName = d.typeName();
    sharedSerializerId = payload.serializerId();
    sharedManifest = payload.manifest();
  }

  private Serializer serializerOf(Object message, Supplier<String> where) {
    if (message.getClass() != lastClass) {
      lastSerializer = serializer.payloadSerializer(message, where);
      lastClass = message.getClass();
    }
    return lastSerializer;
  }
}
