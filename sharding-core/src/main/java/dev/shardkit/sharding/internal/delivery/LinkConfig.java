package dev.shardkit.sharding.internal.delivery;

import dev.shardkit.sharding.RemoteDeliverySettings;
import dev.shardkit.sharding.internal.InternalApi;
import java.util.concurrent.TimeUnit;

/**
 * What a {@link LinkMachine} is configured with.
 *
 * @param maxMessages the most items in one batch
 * @param maxBytes the most bytes of items in one batch (one item may exceed it alone)
 * @param maxItemBytes the most bytes of one item: what remoting's largest frame leaves for it
 * @param window the most batches sent and not yet acknowledged
 * @param resendAfterNanos how long a batch may go unacknowledged before it is sent again
 * @param resendCheckNanos how often the link looks for batches to send again while some are unacknowledged
 */
@InternalApi
public record LinkConfig(int maxMessages, int maxBytes, int maxItemBytes, int window, long resendAfterNanos,
    long resendCheckNanos) {

  /** Room left in a frame for the envelope around a batch: recipient, sender, manifest. */
  static final int FRAME_OVERHEAD = 4096;

  /**
   * @param maximumFrameSize remoting's largest frame ({@code pekko.remote.artery.advanced.maximum-frame-size})
   */
  static LinkConfig of(RemoteDeliverySettings settings, int maximumFrameSize) {
    int maxItemBytes = Math.max(1024, maximumFrameSize - FRAME_OVERHEAD);
    long resendAfter = settings.resendAfter().toNanos();
    return new LinkConfig(settings.batchMaxMessages(), Math.min(settings.batchMaxBytes(), maxItemBytes), maxItemBytes,
        settings.maxUnacknowledgedBatches(), resendAfter, Math.max(TimeUnit.MILLISECONDS.toNanos(10), resendAfter / 4));
  }
}
