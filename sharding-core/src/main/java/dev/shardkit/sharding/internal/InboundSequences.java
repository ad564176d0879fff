package dev.shardkit.sharding.internal;

import java.util.HashMap;
import java.util.Map;

/**
 * The receiving side of every link that sends to one region: the last batch delivered from
 * each. A batch is delivered only if it is the next one in its link's sequence, so that a batch
 * remoting dropped is never overtaken by a later one, and a batch sent again is never delivered
 * twice. A pure value owned by one actor; not thread-safe.
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
    /** An earlier batch is missing: deliver nothing; the sender resends from the missing one. */
    GAP
  }

  private final Map<L, Long> lastDelivered = new HashMap<>();

  /** Judges batch {@code seq} of {@code link}, and counts it as delivered when it is the next. */
  Verdict offer(L link, long seq) {
    long last = lastDelivered.getOrDefault(link, 0L);
    if (seq == last + 1) {
      lastDelivered.put(link, seq);
      return Verdict.DELIVER;
    }
    return seq <= last ? Verdict.DUPLICATE : Verdict.GAP;
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
  }

  int size() {
    return lastDelivered.size();
  }
}
