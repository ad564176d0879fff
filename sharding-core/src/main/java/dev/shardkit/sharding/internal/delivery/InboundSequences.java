package dev.shardkit.sharding.internal.delivery;

import java.util.HashMap;
import java.util.Map;

/**
 * The receiving side of every link that sends to one region: the last batch delivered from
 * each. A batch is delivered only if it is the next one in its link's sequence, so that a batch
 * remoting dropped is never overtaken by a later one, and a batch sent again is never delivered
 * twice. Mutable state with no other side effect, owned by one actor; not thread-safe.
 *
 * @param <L> what identifies a link (its actor ref: a new link starts a new sequence)
 */
final class InboundSequences<L> {
  /** What to do with a batch. */
  enum Verdict {
    /** The next in sequence: deliver its items, then acknowledge it. */
    DELIVER,
    /** Delivered before (a resend whose acknowledgement was lost): acknowledge again, deliver nothing. */
    DUPLICATE,
    /**
     * An earlier batch is missing, and this is the first batch to show it: deliver nothing, and
     * ask the sender to send again from the missing one.
     */
    GAP_ASK_RESEND,
    /** An earlier batch is missing and was asked for already: deliver nothing. */
    GAP
  }

  private final Map<L, Long> lastDelivered = new HashMap<>();
  /** Per link, the batch a resend was asked for from; cleared once it is delivered. */
  private final Map<L, Long> resendAskedFrom = new HashMap<>();
  /** Links whose batches were refused while this node waited to be confirmed a member. */
  private final java.util.Set<L> refused = new java.util.LinkedHashSet<>();

  /** Judges batch {@code seq} of {@code link}, and counts it as delivered when it is the next. */
  Verdict offer(L link, long seq) {
    long last = lastDelivered.getOrDefault(link, 0L);
    if (seq == last + 1) {
      lastDelivered.put(link, seq);
      resendAskedFrom.remove(link);
      return Verdict.DELIVER;
    }
    if (seq <= last) {
      return Verdict.DUPLICATE;
    }
    Long asked = resendAskedFrom.put(link, last + 1);
    return asked != null && asked == last + 1 ? Verdict.GAP : Verdict.GAP_ASK_RESEND;
  }

  /**
   * A batch of {@code link} was not even judged: this node waits to be confirmed a member. The
   * link is to be asked to send again once it is ({@link #takeRefused}).
   */
  void refuse(L link) {
    refused.add(link);
  }

  /** The links whose batches were refused since the last call, to ask for a resend now. */
  java.util.List<L> takeRefused() {
    java.util.List<L> links = java.util.List.copyOf(refused);
    refused.clear();
    return links;
  }

  /** The last batch delivered from {@code link}; 0 for none. */
  long lastDelivered(L link) {
    return lastDelivered.getOrDefault(link, 0L);
  }

  boolean knows(L link) {
    return lastDelivered.containsKey(link);
  }

  /** Forgets a link that has stopped: it will never send again. */
  void forget(L link) {
    lastDelivered.remove(link);
    resendAskedFrom.remove(link);
    refused.remove(link);
  }

  int size() {
    return lastDelivered.size();
  }
}
