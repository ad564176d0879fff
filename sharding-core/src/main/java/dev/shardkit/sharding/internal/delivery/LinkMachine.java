package dev.shardkit.sharding.internal.delivery;

import dev.shardkit.sharding.internal.InternalApi;
import dev.shardkit.sharding.internal.machine.EffectBuffer;
import dev.shardkit.sharding.internal.machine.Machine;
import dev.shardkit.sharding.internal.machine.TimerTable;
import dev.shardkit.sharding.internal.wire.EncodedItem;
import dev.shardkit.sharding.internal.wire.ItemEncoder;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.Deliver;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.DeliveryAck;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.DeliveryBatch;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.apache.pekko.actor.typed.ActorRef;
import org.jspecify.annotations.Nullable;

/**
 * The sending side of remote delivery to one region, as a deterministic machine (one per
 * destination, run by {@link DeliveryLink}). It decides:
 * <ul>
 *   <li><b>batching</b>: what waits in the outbox goes into numbered {@link DeliveryBatch}es of at
 *       most {@link LinkConfig#maxMessages} items and {@link LinkConfig#maxBytes} bytes; an item
 *       that does not fit starts the next batch; one that cannot be serialized, or that is larger
 *       than a frame, is dropped on its own. Items are written compact only once the receiver's
 *       acknowledgement said it reads them;
 *   <li><b>the window</b>: at most {@link LinkConfig#window} batches unacknowledged; while it is
 *       full, messages wait in the outbox, and the acknowledgement that makes room resumes;
 *   <li><b>resends</b>: every batch in flight goes again when the oldest is overdue (the timeout
 *       doubling for each resend without progress), when the receiver asks (it let a batch go: one
 *       came after a missing one, or its node's gate was closed), and when the destination's node
 *       is reachable again (both start the timeout over);
 *   <li><b>probing and holding</b>: when the destination's node is back, a probe sends the window
 *       again (or an empty batch) and says when a batch sent from then on is acknowledged, so that
 *       the region releases what it held only to a node that takes batches; once the node was
 *       downed, nothing more leaves the outbox (it would be lost with the node): it goes back on
 *       closing;
 *   <li><b>closing</b>: when the destination is gone, what was sent and not acknowledged and what
 *       was never sent go back to the region, in order; and <b>flushing</b>: whom to tell once
 *       everything handed over has been acknowledged.
 * </ul>
 *
 * <p>It takes the messages from its {@link OutboxSource} itself while it handles an input, and
 * its effects are per batch, never per message: a burst costs a few effects, not one per message.
 */
@InternalApi
public final class LinkMachine implements Machine<LinkInput, LinkEffect> {

  private enum Timer { RESEND_CHECK }

  private final LinkConfig config;
  private final ActorRef<Object> self;
  private final ActorRef<Object> destination;
  private final OutboxSource outbox;
  private final ItemEncoder encoder;
  private final DeliveryWindow<DeliveryBatch> window;
  private final EffectBuffer<LinkEffect> effects = new EffectBuffer<>();
  private final TimerTable<Timer> timers = new TimerTable<>();
  /** The items of the batch being made; reused, a batch keeps a copy. */
  private final List<Object> items = new ArrayList<>();
  /** Who asked to hear when everything handed over is acknowledged. */
  private final List<ActorRef<Object>> flushing = new ArrayList<>();
  /** Who probed, to hear once a batch up to {@link #probeSeq} is acknowledged. */
  private final List<ActorRef<Object>> probing = new ArrayList<>();
  /** The last batch sent when the link was probed: its acknowledgement confirms the destination. */
  private long probeSeq;
  /** Taken out but too large for the batch it was taken for: it starts the next one. */
  private Object carried;
  /**
   * The destination said it reads compact items ({@link DeliveryAck#readsCompactItems}); until
   * its first acknowledgement the link writes what every shardkit reads.
   */
  private boolean compact;
  /** The size the last batch took, to size the next one's buffer. */
  private int lastBatchBytes = 1024;
  /** The in-transit count the outbox was last told. */
  private int reportedInTransit;
  private boolean closed;
  /** The destination's node was downed: nothing more leaves the outbox. */
  private boolean holding;

  /**
   * @param self the link, which the receiver acknowledges
   * @param destination the region the batches go to
   * @param outbox where the messages for it wait
   */
  LinkMachine(LinkConfig config, ActorRef<Object> self, ActorRef<Object> destination, OutboxSource outbox,
      ItemEncoder encoder) {
    this.config = config;
    this.self = self;
    this.destination = destination;
    this.outbox = outbox;
    this.encoder = encoder;
    this.window = new DeliveryWindow<>(config.window(), config.resendAfterNanos());
  }

  @Override
  public List<LinkEffect> handle(LinkInput input, long now) {
    effects.clear();
    if (closed) {
      return effects.view();
    }
    if (input instanceof LinkInput.Drain) {
      drain(now);
    } else if (input instanceof LinkInput.Ack a) {
      acknowledged(a.ack(), now);
    } else if (input instanceof LinkInput.ResendCheckFired f) {
      if (timers.fired(Timer.RESEND_CHECK, f.generation())) {
        resendOverdue(now);
      }
    } else if (input instanceof LinkInput.ResendNow) {
      resendAll(LinkNotice.Why.REACHABLE_AGAIN, now);
    } else if (input instanceof LinkInput.Close c) {
      close(c.replyTo());
      return effects.view();
    } else if (input instanceof LinkInput.Flush f) {
      flushing.add(f.replyTo());
    } else if (input instanceof LinkInput.Probe p) {
      probe(p.replyTo(), now);
    } else if (input instanceof LinkInput.Hold) {
      holding = true;
    } else {
      throw new IllegalArgumentException("not an input of the link machine: " + input);
    }
    flushedIfDone();
    return effects.view();
  }

  // ---- queries, for tests and a simulation

  /** The messages sent and not yet acknowledged, oldest first. */
  void forEachUnacknowledged(Consumer<Object> consumer) {
    window.unacknowledgedItems().forEach(item -> consumer.accept(((EncodedItem) item).original()));
  }

  /** The sequence number of the next batch. */
  long nextSeq() {
    return window.nextSeq();
  }

  // ---- decisions

  /** Sends batches while the window has room and messages wait (and the destination's node was not downed). */
  private void drain(long now) {
    if (holding) {
      return;
    }
    while (!window.full()) {
      if (!takeBatch()) {
        if (outbox.idleAgain()) {
          continue;
        }
        break;
      }
      send(now);
    }
    // A full window leaves the outbox marked busy: the next acknowledgement resumes draining.
    inTransit(window.messages() + (carried == null ? 0 : 1));
  }

  /** Fills {@link #items} with the next batch's; false if nothing waits that can travel. */
  private boolean takeBatch() {
    items.clear();
    Object message = next();
    if (message == null) {
      return false;
    }
    ItemEncoder.BatchWriter writer = encoder.newBatch(compact,
        Math.min(config.maxBytes(), lastBatchBytes + lastBatchBytes / 8));
    int bytes = 0;
    while (message != null) {
      EncodedItem item = encode(writer, message);
      if (item != null) {
        if (!items.isEmpty() && bytes + item.size() > config.maxBytes()) {
          // Written again at the start of the next batch: a compact item read there cannot
          // share fields with this batch's items.
          writer.undo(item);
          carried = message;
          break;
        }
        items.add(item);
        bytes += item.size();
      }
      if (items.size() >= config.maxMessages() || bytes >= config.maxBytes()) {
        break;
      }
      message = next();
    }
    if (bytes > 0) {
      lastBatchBytes = bytes;
    }
    return !items.isEmpty();
  }

  private Object next() {
    Object message = carried;
    if (message != null) {
      carried = null;
      return message;
    }
    return outbox.poll();
  }

  /** The message as a batch item, or null (reported as dropped) if it cannot travel. */
  private @Nullable EncodedItem encode(ItemEncoder.BatchWriter writer, Object message) {
    EncodedItem item;
    try {
      item = writer.write(message);
    } catch (RuntimeException e) {
      effects.add(new LinkEffect.Drop(message, e.getMessage()));
      return null;
    }
    if (item.size() > config.maxItemBytes()) {
      writer.undo(item);
      effects.add(new LinkEffect.Drop(message, "a message of " + item.length() + " serialized bytes"
          + (message instanceof Deliver d ? " for entity [" + d.entityId() + "]" : "")
          + " does not fit in one remoting frame (pekko.remote.artery.advanced.maximum-frame-size allows "
          + config.maxItemBytes() + " bytes for it)"));
      return null;
    }
    return item;
  }

  private void send(long now) {
    DeliveryBatch batch = new DeliveryBatch(self, window.nextSeq(), items);
    effects.add(new LinkEffect.SendBatch(batch));
    // The window keeps the batch's own (immutable) list of items: their originals are what a
    // close hands back.
    window.sent(batch, batch.items(), now);
    scheduleResendCheck();
  }

  private void acknowledged(DeliveryAck ack, long now) {
    compact = ack.readsCompactItems();
    boolean released = window.acknowledged(ack.seq()) > 0;
    if (!probing.isEmpty() && ack.seq() >= probeSeq) {
      probing.forEach(replyTo -> effects.add(new LinkEffect.Confirmed(replyTo)));
      probing.clear();
    }
    if (ack.resend()) {
      resendAll(LinkNotice.Why.RECEIVER_ASKED, now);
    }
    if (released) {
      drain(now);
    }
  }

  /**
   * The destination's node is back: what is in flight goes again now (its timeout may have grown
   * long meanwhile), or, if nothing is, an empty batch, so that there is a batch whose
   * acknowledgement shows that the destination takes batches again. A receiver acknowledges only
   * while its node's gate is open, that is once a majority confirmed the node a member.
   */
  private void probe(ActorRef<Object> replyTo, long now) {
    if (window.isEmpty()) {
      items.clear();
      send(now);
    } else {
      resendAll(LinkNotice.Why.REACHABLE_AGAIN, now);
    }
    probeSeq = window.nextSeq() - 1;
    if (!probing.contains(replyTo)) {
      probing.add(replyTo);
    }
  }

  /** Every batch in flight again, now, with the timeout started over. */
  private void resendAll(LinkNotice.Why why, long now) {
    List<DeliveryBatch> again = window.resendRequested(now);
    if (!again.isEmpty()) {
      effects.add(new LinkEffect.Report(new LinkNotice.ResentNow(destination, again.size(), why)));
      again.forEach(b -> effects.add(new LinkEffect.SendBatch(b)));
    }
  }

  private void resendOverdue(long now) {
    if (window.resendDue(now)) {
      List<DeliveryBatch> again = window.resend(now);
      effects.add(new LinkEffect.Report(new LinkNotice.ResentOverdue(destination, again.size(),
          window.currentTimeoutNanos() / 1_000_000)));
      again.forEach(b -> effects.add(new LinkEffect.SendBatch(b)));
    }
    scheduleResendCheck();
  }

  private void scheduleResendCheck() {
    if (!timers.isRunning(Timer.RESEND_CHECK) && !window.isEmpty()) {
      effects.add(new LinkEffect.StartResendCheck(timers.start(Timer.RESEND_CHECK), config.resendCheckNanos()));
    }
  }

  private void inTransit(int messages) {
    if (messages != reportedInTransit) {
      reportedInTransit = messages;
      effects.add(LinkEffect.InTransit.of(messages));
    }
  }

  private void flushedIfDone() {
    if (!flushing.isEmpty() && window.isEmpty() && carried == null && outbox.waiting() == 0) {
      flushing.forEach(replyTo -> effects.add(new LinkEffect.Flushed(replyTo)));
      flushing.clear();
    }
  }

  private void close(ActorRef<Object> replyTo) {
    // Closed before the last look: nothing a caller hands over afterwards is left behind unseen.
    outbox.close();
    List<Object> unsent = new ArrayList<>();
    for (Object message = next(); message != null; message = next()) {
      unsent.add(message);
    }
    List<Object> unacknowledged = new ArrayList<>(window.messages());
    forEachUnacknowledged(unacknowledged::add);
    effects.add(new LinkEffect.Closed(replyTo, unacknowledged, unsent));
    reportedInTransit = 0;
    effects.add(LinkEffect.InTransit.of(0));
    timers.cancel(Timer.RESEND_CHECK);
    effects.add(new LinkEffect.CancelResendCheck());
    effects.add(new LinkEffect.Stopped());
    closed = true;
  }
}
