package dev.shardkit.sharding;

import com.typesafe.config.Config;
import java.time.Duration;

/**
 * How a region sends messages to entities on other nodes ({@code shardkit.sharding.remote-delivery}).
 *
 * <p>A region keeps one link to each other region it sends to. The link packs what is waiting
 * for that region into numbered batches and keeps at most {@code maxUnacknowledgedBatches} of them
 * unacknowledged, so a sender never outruns remoting (whose outbound queue would otherwise drop
 * the excess silently). What cannot be sent yet waits in the link, up to the type's
 * {@code buffer-size} messages; past that, new messages are dropped to dead letters, counted and
 * warned about. A batch that is not acknowledged within {@code resendAfter} is sent again; the
 * receiver delivers each batch once and in order.
 *
 * @param batchMaxMessages the most messages in one batch
 * @param batchMaxBytes the most serialized bytes of messages in one batch (one larger message
 *     travels alone); kept below remoting's {@code maximum-frame-size}
 * @param maxUnacknowledgedBatches the most batches sent to one region and not yet acknowledged
 * @param resendAfter how long a batch may wait for its acknowledgement before it is sent again;
 *     doubled for each resend that brings none, up to eight times this
 * @param redeliverUnacknowledgedAfterCrash when a region is removed from the cluster (its node
 *     crashed and was downed), send the messages it had not acknowledged to the shards' new
 *     homes. Off by default: those messages may already have been processed there, so this makes
 *     them at-least-once instead of at-most-once
 */
public record RemoteDeliverySettings(int batchMaxMessages, int batchMaxBytes, int maxUnacknowledgedBatches,
    Duration resendAfter, boolean redeliverUnacknowledgedAfterCrash) {

  /**
   * @throws IllegalArgumentException naming the setting when a value is out of range
   */
  public RemoteDeliverySettings {
    require(batchMaxMessages >= 1, "batch-max-messages must be at least 1, got " + batchMaxMessages);
    require(batchMaxBytes >= 1024, "batch-max-bytes must be at least 1 KiB, got " + batchMaxBytes);
    require(maxUnacknowledgedBatches >= 1,
        "max-unacknowledged-batches must be at least 1, got " + maxUnacknowledgedBatches);
    require(resendAfter != null && !resendAfter.isNegative() && !resendAfter.isZero(),
        "resend-after must be positive, got " + resendAfter);
  }

  /** The settings in a config shaped like {@code shardkit.sharding.remote-delivery}. */
  static RemoteDeliverySettings fromConfig(Config c) {
    return new RemoteDeliverySettings(c.getInt("batch-max-messages"),
        (int) Math.min(Integer.MAX_VALUE, c.getBytes("batch-max-bytes")), c.getInt("max-unacknowledged-batches"),
        c.getDuration("resend-after"), c.getBoolean("redeliver-unacknowledged-after-crash"));
  }

  public RemoteDeliverySettings withRedeliverUnacknowledgedAfterCrash(boolean redeliver) {
    return new RemoteDeliverySettings(batchMaxMessages, batchMaxBytes, maxUnacknowledgedBatches, resendAfter,
        redeliver);
  }

  private static void require(boolean ok, String message) {
    if (!ok) {
      throw new IllegalArgumentException("shardkit.sharding.remote-delivery." + message);
    }
  }
}
