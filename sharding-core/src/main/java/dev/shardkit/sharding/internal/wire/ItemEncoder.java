package dev.shardkit.sharding.internal.wire;

import dev.shardkit.sharding.internal.InternalApi;
import dev.shardkit.sharding.internal.delivery.LinkMachine;

/**
 * How a {@link LinkMachine} turns what it takes from its outbox into batch items: a writer per
 * batch, so that each item's bytes are known (and the batch's size) before the batch is sent. In
 * production each writer is a {@link DeliveryBatchWriter}; a simulation of the cluster gives the
 * machine one that only counts sizes.
 */
@InternalApi
public interface ItemEncoder {

  /**
   * A writer for the next batch.
   *
   * @param compact whether the receiver said it reads compact items
   * @param sizeHint the bytes the batch will likely take
   */
  BatchWriter newBatch(boolean compact, int sizeHint);

  /** Writes the items of one batch, in order. */
  interface BatchWriter {

    /**
     * Appends an item.
     *
     * @return the item's bytes, with {@code item} as its original
     * @throws RuntimeException (with a message that says why) if the item cannot be written; nothing is written then
     */
    EncodedItem write(Object item);

    /** Takes back {@code last}, the item {@link #write} returned last: it is not in this batch. */
    void undo(EncodedItem last);
  }
}
