package dev.shardkit.sharding.internal.delivery;

import dev.shardkit.sharding.internal.InternalApi;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.NoSerializationVerificationNeeded;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * Where messages for one remote region wait to be sent: the front of a {@link DeliveryLink},
 * shared by the region and every caller on the node that takes the routing shortcut. Any thread
 * may hand it messages; only the link takes them out, in the order they came in, so each
 * sender's order is kept and a hand-off marker lands behind every message handed over before it.
 *
 * <p>A caller's message is refused when {@code limit} messages are already waiting: then the
 * destination (or the network) is not keeping up, and the caller drops it, counted and warned,
 * instead of growing memory without bound. Messages the region hands over (ones it already held
 * under its own limit, and hand-off markers) are always taken.
 *
 * <p>The link is woken by one message when the outbox goes from idle to busy, not once per
 * message: while it is draining, callers only enqueue.
 */
@InternalApi
public final class Outbox implements OutboxSource {
  /** Link → itself: there is something to take out. Local only. */
  enum Drain implements NoSerializationVerificationNeeded { INSTANCE }

  private final ConcurrentLinkedQueue<Object> queue = new ConcurrentLinkedQueue<>();
  private final AtomicInteger waiting = new AtomicInteger();
  private final AtomicBoolean scheduled = new AtomicBoolean();
  /** Messages the link has taken out and not yet seen acknowledged; written by the link only. */
  private final AtomicInteger inTransit = new AtomicInteger();
  private final int limit;
  private final ActorRef<Object> destination;
  private volatile Runnable waker;
  private volatile ActorRef<Object> link;
  private volatile boolean closed;

  /**
   * @param destination the remote region this outbox's messages go to
   * @param limit the most messages a caller's hand-over finds waiting before it is refused
   */
  public Outbox(ActorRef<Object> destination, int limit) {
    this.destination = destination;
    this.limit = limit;
  }

  /** Connects the link actor that drains this outbox: it is sent {@link Drain} to wake it. Called once. */
  public void attach(ActorRef<Object> drainingLink) {
    attach(() -> drainingLink.tell(Drain.INSTANCE));
    this.link = drainingLink;
  }

  /**
   * Connects whatever drains this outbox: {@code wake} runs, on the thread that hands a message
   * over, when the outbox goes from idle to busy. Called once; if messages were handed over before,
   * it runs at once.
   */
  public void attach(Runnable wake) {
    if (this.waker != null) {
      throw new IllegalStateException("outbox for " + destination + " already has a link");
    }
    this.waker = wake;
    // A hand-over before the attachment marked the outbox busy but found no one to wake.
    if (scheduled.get() || !queue.isEmpty() && scheduled.compareAndSet(false, true)) {
      wake.run();
    }
  }

  public int limit() {
    return limit;
  }

  /** The link actor that drains this outbox. */
  public ActorRef<Object> link() {
    return link;
  }

  public ActorRef<Object> destination() {
    return destination;
  }

  /**
   * A caller's message: taken unless {@code limit} are already waiting or the outbox is closed.
   *
   * @return false when refused; the caller then drops the message and reports it
   */
  public boolean offer(Object message) {
    if (closed || waiting.get() >= limit) {
      return false;
    }
    enqueue(message);
    return true;
  }

  /** A message the region hands over: always taken (the region bounds what it holds itself). */
  public void offerAlways(Object message) {
    enqueue(message);
  }

  private void enqueue(Object message) {
    queue.offer(message);
    waiting.incrementAndGet();
    if (!scheduled.get() && scheduled.compareAndSet(false, true)) {
      Runnable wake = waker;
      if (wake != null) {
        wake.run();
      }
    }
  }

  // ---- the link's side

  /** The next waiting message, or null. Link only. */
  @Override
  public Object poll() {
    Object message = queue.poll();
    if (message != null) {
      waiting.decrementAndGet();
    }
    return message;
  }

  /**
   * The link has taken out everything it will for now. Returns true if it must go on: a message
   * came in after its last look, and no wake-up was sent for it. Link only.
   */
  @Override
  public boolean idleAgain() {
    scheduled.set(false);
    return !queue.isEmpty() && scheduled.compareAndSet(false, true);
  }

  /** Link only: how many messages it holds taken out and unacknowledged. */
  void inTransit(int messages) {
    inTransit.set(messages);
  }

  /** Link only: how many messages wait to be taken out. */
  @Override
  public int waiting() {
    return Math.max(0, waiting.get());
  }

  /** Refuses callers from now on; what is still waiting stays for the link to collect. */
  @Override
  public void close() {
    closed = true;
  }

  /** Messages waiting or in transit: nothing more to send once this is 0. */
  public int pending() {
    return Math.max(0, waiting.get()) + inTransit.get();
  }

  @Override
  public String toString() {
    return "Outbox(" + destination.path() + ", pending " + pending() + ")";
  }
}
