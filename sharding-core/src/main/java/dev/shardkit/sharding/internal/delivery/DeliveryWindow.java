package dev.shardkit.sharding.internal.delivery;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * The sending side of one link's sequence: the numbered batches sent and not yet acknowledged,
 * at most {@code capacity} of them. Mutable state with no other side effect, owned by one actor;
 * not thread-safe.
 *
 * <p>Batches are acknowledged cumulatively and in order, so the window is a queue: an
 * acknowledgement of {@code seq} releases every batch up to it. A batch that stays unacknowledged
 * past the resend timeout is sent again together with every later one (the receiver takes
 * batches only in sequence); each resend without progress doubles the timeout, up to eight times
 * the base, so a receiver that is merely slow is not flooded with copies.
 *
 * @param <B> the batch as sent (kept to send it again)
 */
final class DeliveryWindow<B> {
  /** A batch in flight: what was sent, the messages in it, and when it was last sent. */
  record InFlight<B>(long seq, B batch, List<Object> items, long sentAtNanos) {}

  private static final int MAX_BACKOFF_DOUBLINGS = 3;

  private final int capacity;
  private final long resendAfterNanos;
  private final ArrayDeque<InFlight<B>> inFlight = new ArrayDeque<>();
  private long nextSeq = 1;
  private int messages;
  private int resendsWithoutProgress;

  /**
   * @param capacity the most batches in flight at once, at least 1
   * @param resendAfterNanos how long a batch may go unacknowledged before it is sent again
   */
  DeliveryWindow(int capacity, long resendAfterNanos) {
    if (capacity < 1) {
      throw new IllegalArgumentException("a delivery window needs room for at least one batch, got " + capacity);
    }
    if (resendAfterNanos <= 0) {
      throw new IllegalArgumentException("the resend timeout must be positive, got " + resendAfterNanos + " ns");
    }
    this.capacity = capacity;
    this.resendAfterNanos = resendAfterNanos;
  }

  /** True when no further batch may be sent until one is acknowledged. */
  boolean full() {
    return inFlight.size() >= capacity;
  }

  boolean isEmpty() {
    return inFlight.isEmpty();
  }

  /** The sequence number the next batch must carry. */
  long nextSeq() {
    return nextSeq;
  }

  /** Messages (items) in the batches in flight. */
  int messages() {
    return messages;
  }

  /**
   * Records the batch {@link #nextSeq} as sent at {@code now}.
   *
   * @throws IllegalStateException if the window is full
   */
  void sent(B batch, List<Object> items, long now) {
    if (full()) {
      throw new IllegalStateException("delivery window full (" + capacity + " batches); wait for an acknowledgement");
    }
    inFlight.addLast(new InFlight<>(nextSeq++, batch, List.copyOf(items), now));
    messages += items.size();
  }

  /**
   * The receiver has every batch up to {@code seq}: releases them.
   *
   * @return how many batches this released (0 for an old or repeated acknowledgement)
   */
  int acknowledged(long seq) {
    int released = 0;
    while (!inFlight.isEmpty() && inFlight.peekFirst().seq() <= seq) {
      messages -= inFlight.pollFirst().items().size();
      released++;
    }
    if (released > 0) {
      resendsWithoutProgress = 0;
    }
    return released;
  }

  /** True when the oldest batch in flight has waited longer than the current resend timeout. */
  boolean resendDue(long now) {
    InFlight<B> oldest = inFlight.peekFirst();
    return oldest != null && now - oldest.sentAtNanos() >= currentTimeoutNanos();
  }

  /** The resend timeout now: the base, doubled for each resend that brought no acknowledgement. */
  long currentTimeoutNanos() {
    return resendAfterNanos << Math.min(resendsWithoutProgress, MAX_BACKOFF_DOUBLINGS);
  }

  /** Every batch in flight, oldest first, marked as sent again at {@code now}. */
  List<B> resend(long now) {
    List<B> again = new ArrayList<>(inFlight.size());
    int n = inFlight.size();
    for (int i = 0; i < n; i++) {
      InFlight<B> f = inFlight.pollFirst();
      again.add(f.batch());
      inFlight.addLast(new InFlight<>(f.seq(), f.batch(), f.items(), now));
    }
    resendsWithoutProgress++;
    return again;
  }

  /**
   * Every batch in flight, oldest first, marked as sent again at {@code now}, because the receiver
   * asked for them: not a timeout, so the resend timeout starts over from its base.
   */
  List<B> resendRequested(long now) {
    List<B> again = resend(now);
    resendsWithoutProgress = 0;
    return again;
  }

  /** The messages of every batch in flight, in the order they were handed over. */
  List<Object> unacknowledgedItems() {
    List<Object> items = new ArrayList<>(messages);
    inFlight.forEach(f -> items.addAll(f.items()));
    return items;
  }
}
