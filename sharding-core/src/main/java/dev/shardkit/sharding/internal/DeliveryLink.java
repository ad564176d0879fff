package dev.shardkit.sharding.internal;

import dev.shardkit.sharding.RemoteDeliverySettings;
import dev.shardkit.sharding.internal.ShardingProtocol.Deliver;
import dev.shardkit.sharding.internal.ShardingProtocol.DeliveryAck;
import dev.shardkit.sharding.internal.ShardingProtocol.DeliveryBatch;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.apache.pekko.actor.Cancellable;
import org.apache.pekko.actor.DeadLetterSuppression;
import org.apache.pekko.actor.NoSerializationVerificationNeeded;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * A region's link to one other region: takes what waits in its {@link Outbox}, packs it into
 * numbered {@link DeliveryBatch}es of bounded size, sends at most a window of them ahead of the
 * receiver's acknowledgements, and sends again the ones not acknowledged in time. A child of the
 * sending region; it lives as long as the destination does.
 *
 * <p>Each message is serialized here, before its batch is sent: the batch's size is then known
 * (remoting refuses frames above {@code maximum-frame-size}), and a message that cannot be
 * serialized is dropped on its own, reported with its entity, instead of taking its whole batch
 * (and every resend of it) down with it.
 *
 * <p>When its destination is gone, the region closes the link and gets back, in order, what was
 * sent but not acknowledged and what was never sent ({@link Closed}).
 */
final class DeliveryLink {

  /** Region → link: stop, and hand back what has not reached the destination. Local only. */
  record Close(ActorRef<Object> replyTo) implements NoSerializationVerificationNeeded {}

  /**
   * Link → region: the link has stopped.
   *
   * @param unacknowledged messages sent to the destination and not acknowledged (it may or may
   *     not have received them), oldest first
   * @param unsent messages that never left this node, oldest first; all of them came after every
   *     unacknowledged one
   */
  record Closed(ActorRef<Object> destination, List<Object> unacknowledged, List<Object> unsent)
      implements NoSerializationVerificationNeeded {}

  /**
   * The link's own check for batches to send again, scheduled while some are unacknowledged.
   * Cancelled when the link stops; one the scheduler had already sent as the link stopped is a
   * dead letter that says nothing, and is not logged as one.
   */
  private enum ResendTick implements NoSerializationVerificationNeeded, DeadLetterSuppression { INSTANCE }

  /**
   * Region → link: send what is unacknowledged again now, the destination's node is reachable
   * again (the timeout may have grown long while it was not). Local only.
   */
  enum ResendNow implements NoSerializationVerificationNeeded { INSTANCE }

  /** Room left in a frame for the envelope around a batch: recipient, sender, manifest. */
  private static final int FRAME_OVERHEAD = 4096;

  private final ActorContext<Object> context;
  private final Outbox outbox;
  private final ShardingSerializer serializer;
  private final DropReporter drops;
  private final int maxMessages;
  private final int maxBytes;
  private final int maxItemBytes;
  private final long resendCheckNanos;
  private final DeliveryWindow<DeliveryBatch> window;
  private final LongSupplier clock;
  private final org.apache.pekko.actor.ExtendedActorSystem system;
  /** Taken out but too large for the batch it was taken for: it starts the next one. */
  private Object carried;
  /**
   * The destination said it reads compact items ({@link DeliveryAck#readsCompactItems}); until
   * its first acknowledgement the link writes what every shardkit reads.
   */
  private boolean compact;
  /** The size the last batch took, to size the next one's buffer. */
  private int lastBatchBytes = 1024;
  private Cancellable resendTimer;

  private DeliveryLink(ActorContext<Object> context, Outbox outbox, RemoteDeliverySettings settings,
      ShardingSerializer serializer, DropReporter drops, int maximumFrameSize) {
    this.context = context;
    this.outbox = outbox;
    this.serializer = serializer;
    this.drops = drops;
    this.maxMessages = settings.batchMaxMessages();
    this.maxItemBytes = Math.max(1024, maximumFrameSize - FRAME_OVERHEAD);
    this.maxBytes = Math.min(settings.batchMaxBytes(), maxItemBytes);
    this.window = new DeliveryWindow<>(settings.maxUnacknowledgedBatches(), settings.resendAfter().toNanos());
    this.resendCheckNanos = Math.max(TimeUnit.MILLISECONDS.toNanos(10), settings.resendAfter().toNanos() / 4);
    this.clock = System::nanoTime;
    this.system = (org.apache.pekko.actor.ExtendedActorSystem) Adapter.toClassic(context.getSystem());
  }

  /**
   * @param maximumFrameSize remoting's largest frame ({@code pekko.remote.artery.advanced.maximum-frame-size})
   */
  static Behavior<Object> create(Outbox outbox, RemoteDeliverySettings settings, ShardingSerializer serializer,
      DropReporter drops, int maximumFrameSize) {
    return Behaviors.setup(ctx -> new DeliveryLink(ctx, outbox, settings, serializer, drops, maximumFrameSize)
        .running());
  }

  private Behavior<Object> running() {
    return Behaviors.receive(Object.class)
        .onMessageEquals(Outbox.Drain.INSTANCE, () -> {
          drain();
          return Behaviors.same();
        })
        .onMessage(DeliveryAck.class, ack -> {
          compact = ack.readsCompactItems();
          boolean released = window.acknowledged(ack.seq()) > 0;
          if (ack.resend()) {
            resendAll("the receiver asked for them");
          }
          if (released) {
            drain();
          }
          return Behaviors.same();
        })
        .onMessageEquals(ResendNow.INSTANCE, () -> {
          resendAll("the destination is reachable again");
          return Behaviors.same();
        })
        .onMessageEquals(ResendTick.INSTANCE, () -> {
          resendTimer = null;
          long now = clock.getAsLong();
          if (window.resendDue(now)) {
            List<DeliveryBatch> again = window.resend(now);
            context.getLog().debug("Delivery to {}: {} batch(es) not acknowledged within {} ms; sending them again",
                outbox.destination().path(), again.size(), window.currentTimeoutNanos() / 1_000_000);
            again.forEach(b -> outbox.destination().tell(b));
          }
          scheduleResendCheck();
          return Behaviors.same();
        })
        .onMessage(Close.class, this::close)
        // Stopped with its region (a region stops once its links have nothing unacknowledged, but
        // the check scheduled while they had still comes): the check must not reach a stopped link.
        .onSignal(PostStop.class, stop -> {
          if (resendTimer != null) {
            resendTimer.cancel();
          }
          return Behaviors.same();
        })
        .build();
  }

  private void resendAll(String why) {
    List<DeliveryBatch> again = window.resendRequested(clock.getAsLong());
    if (!again.isEmpty()) {
      context.getLog().debug("Delivery to {}: sending {} unacknowledged batch(es) again: {}",
          outbox.destination().path(), again.size(), why);
      again.forEach(b -> outbox.destination().tell(b));
    }
  }

  /** Sends batches while the window has room and messages wait. */
  private void drain() {
    while (!window.full()) {
      // Serializers that write actor refs (Jackson's, for one) need to know the address they
      // write for; remoting sets it around its own serialization, and the link must do the same.
      List<EncodedItem> items = org.apache.pekko.serialization.Serialization$.MODULE$.withTransportInformation(
          system, this::takeBatch);
      if (items.isEmpty()) {
        if (outbox.idleAgain()) {
          continue;
        }
        break;
      }
      send(items);
    }
    // A full window leaves the outbox marked busy: the next acknowledgement resumes draining.
    reportInTransit();
  }

  private List<EncodedItem> takeBatch() {
    DeliveryBatchWriter writer = new DeliveryBatchWriter(serializer, compact,
        Math.min(maxBytes, lastBatchBytes + lastBatchBytes / 8));
    List<EncodedItem> items = new ArrayList<>();
    int bytes = 0;
    while (items.size() < maxMessages && bytes < maxBytes) {
      Object message = carried != null ? carried : outbox.poll();
      carried = null;
      if (message == null) {
        break;
      }
      EncodedItem item = encode(writer, message);
      if (item == null) {
        continue;
      }
      if (!items.isEmpty() && bytes + item.size() > maxBytes) {
        // Written again at the start of the next batch: a compact item read there cannot
        // share fields with this batch's items.
        writer.undo(item);
        carried = message;
        break;
      }
      items.add(item);
      bytes += item.size();
    }
    if (bytes > 0) {
      lastBatchBytes = bytes;
    }
    return items;
  }

  /** The message as a batch item, or null (reported as dropped) if it cannot travel. */
  private EncodedItem encode(DeliveryBatchWriter writer, Object message) {
    EncodedItem item;
    try {
      item = writer.write(message);
    } catch (RuntimeException e) {
      drop(message, e.getMessage());
      return null;
    }
    if (item.size() > maxItemBytes) {
      writer.undo(item);
      drop(message, "a message of " + item.length() + " serialized bytes"
          + (message instanceof Deliver d ? " for entity [" + d.entityId() + "]" : "")
          + " does not fit in one remoting frame (pekko.remote.artery.advanced.maximum-frame-size allows "
          + maxItemBytes + " bytes for it)");
      return null;
    }
    return item;
  }

  private void drop(Object message, String reason) {
    Object dropped = message instanceof Deliver d ? d.message() : message;
    drops.dropped(dropped, reason, Adapter.toClassic(outbox.destination()));
  }

  private void send(List<EncodedItem> items) {
    long now = clock.getAsLong();
    DeliveryBatch batch = new DeliveryBatch(context.getSelf(), window.nextSeq(), List.copyOf(items));
    List<Object> originals = new ArrayList<>(items.size());
    items.forEach(i -> originals.add(i.original()));
    outbox.destination().tell(batch);
    window.sent(batch, originals, now);
    scheduleResendCheck();
  }

  private void scheduleResendCheck() {
    if (resendTimer == null && !window.isEmpty()) {
      resendTimer = context.scheduleOnce(Duration.ofNanos(resendCheckNanos), context.getSelf(), ResendTick.INSTANCE);
    }
  }

  private void reportInTransit() {
    outbox.inTransit(window.messages() + (carried == null ? 0 : 1));
  }

  private Behavior<Object> close(Close close) {
    outbox.close();
    List<Object> unsent = new ArrayList<>();
    if (carried != null) {
      unsent.add(carried);
      carried = null;
    }
    for (Object message = outbox.poll(); message != null; message = outbox.poll()) {
      unsent.add(message);
    }
    close.replyTo().tell(new Closed(outbox.destination(), window.unacknowledgedItems(), unsent));
    outbox.inTransit(0);
    if (resendTimer != null) {
      resendTimer.cancel();
    }
    return Behaviors.stopped();
  }
}
