package dev.shardkit.sharding.internal.delivery;

import dev.shardkit.sharding.internal.InternalApi;
import dev.shardkit.sharding.internal.region.RegionMachine;
import dev.shardkit.sharding.internal.region.RegionNotice;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.Deliver;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.DeliveryAck;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.DeliveryBatch;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * A region's remote delivery: its links to the regions it sends to (a {@link DeliveryLink} behind
 * an {@link Outbox} per destination, started on first use), the sequences of the other regions'
 * links that send to it ({@link InboundSequences}), and the closing of a link whose destination
 * is gone. A component of the {@link RegionMachine}: what it does goes out through the callbacks it
 * is given, as the machine's effects.
 *
 * <ul>
 *   <li>A batch is delivered only while this node's entities may be given messages: while its
 *       delivery gate is closed, batches are neither delivered nor acknowledged (their senders
 *       would count them as delivered), and their links are asked for them again when it opens.
 *   <li>A closed link hands back what did not reach its destination: what was never sent always
 *       goes on to the shards' next homes (it is delivered once); what was sent and not
 *       acknowledged may have been processed there, so it goes on only with
 *       {@code redeliver-unacknowledged-after-crash}, and is otherwise reported as possibly lost.
 * </ul>
 *
 * <p>Owned by the region's machine; not thread-safe (the outboxes themselves are).
 */
@InternalApi
public final class RegionLinks {

  private final String typeName;
  private final Consumer<RegionNotice> report;
  private final int outboxLimit;
  private final boolean redeliverUnacknowledged;
  private final Consumer<Outbox> startLink;
  private final Consumer<ActorRef<Object>> watchInbound;
  private final BiConsumer<ActorRef<Object>, Object> send;
  private final BiConsumer<Outbox, Object> toLink;
  /** Insertion-ordered: the links are told things in the order they were started, in every JVM. */
  private final Map<ActorRef<Object>, Outbox> links = new LinkedHashMap<>();
  private final InboundSequences<ActorRef<Object>> inbound = new InboundSequences<>();

  /**
   * @param outboxLimit the most messages a caller finds waiting in an outbox before it is refused
   * @param report what there is to log
   * @param startLink starts the link that drains a new outbox (and attaches it to the outbox)
   * @param watchInbound watches a link that sends here for the first time, so that
   *     {@link #inboundGone} is called when it stops
   * @param send tells another region's link a message
   * @param toLink tells this region's link behind an outbox a message
   */
  public RegionLinks(String typeName, Consumer<RegionNotice> report, int outboxLimit, boolean redeliverUnacknowledged,
      Consumer<Outbox> startLink, Consumer<ActorRef<Object>> watchInbound, BiConsumer<ActorRef<Object>, Object> send,
      BiConsumer<Outbox, Object> toLink) {
    this.typeName = typeName;
    this.report = report;
    this.outboxLimit = outboxLimit;
    this.redeliverUnacknowledged = redeliverUnacknowledged;
    this.startLink = startLink;
    this.watchInbound = watchInbound;
    this.send = send;
    this.toLink = toLink;
  }

  // ---- outgoing

  /** The outbox of the link to {@code destination}; the link is started on first use. */
  public Outbox outboxFor(ActorRef<Object> destination) {
    return links.computeIfAbsent(destination, d -> {
      Outbox outbox = new Outbox(d, outboxLimit);
      startLink.accept(outbox);
      return outbox;
    });
  }

  public boolean hasLinkTo(ActorRef<Object> destination) {
    return links.containsKey(destination);
  }

  private void toLinksAt(Address node, Object message) {
    links.forEach((destination, outbox) -> {
      if (destination.path().address().equals(node)) {
        toLink.accept(outbox, message);
      }
    });
  }

  /**
   * Closes the link to {@code destination}, which is gone; it answers {@code replyTo} with
   * {@link DeliveryLink.Closed}. Call only once no caller can still hand it messages.
   */
  public void close(ActorRef<Object> destination, ActorRef<Object> replyTo) {
    Outbox outbox = links.get(destination);
    if (outbox != null) {
      toLink.accept(outbox, new DeliveryLink.Close(replyTo));
    }
  }

  /**
   * A link has closed and is forgotten.
   *
   * @return the messages it handed back that go on to their shards' next homes, oldest first
   *     (hand-off markers are not among them: a marker for a region that is gone has nobody to
   *     reach, and its hand-off ends with that region)
   */
  public List<Deliver> closed(DeliveryLink.Closed closed) {
    links.remove(closed.destination());
    List<Object> back = new ArrayList<>();
    if (redeliverUnacknowledged) {
      back.addAll(closed.unacknowledged());
    } else if (!closed.unacknowledged().isEmpty()) {
      report.accept(RegionNotice.goneWithoutAcknowledging(typeName, closed.destination(),
          closed.unacknowledged().size()));
    }
    back.addAll(closed.unsent());
    return back.stream().filter(Deliver.class::isInstance).map(Deliver.class::cast).toList();
  }

  /**
   * The node {@code node} is reachable again: the links to it send what is unacknowledged now,
   * not when their resend timeouts, grown while it was away, run out.
   */
  public void resendNow(Address node) {
    toLinksAt(node, DeliveryLink.ResendNow.INSTANCE);
  }

  /**
   * The node {@code node} is reachable again: the links to it find out whether it takes batches
   * (they send what is unacknowledged now, as {@link #resendNow}, or an empty batch) and tell
   * {@code replyTo} once it acknowledged one.
   */
  public void probe(Address node, ActorRef<Object> replyTo) {
    toLinksAt(node, new DeliveryLink.Probe(replyTo));
  }

  /** As {@link #probe(Address, ActorRef)}, for the one link to {@code destination}. */
  public void probe(ActorRef<Object> destination, ActorRef<Object> replyTo) {
    Outbox outbox = links.get(destination);
    if (outbox != null) {
      toLink.accept(outbox, new DeliveryLink.Probe(replyTo));
    }
  }

  /**
   * The node {@code node} was downed: the links to it send nothing more of what waits in their
   * outboxes (it would be lost with the node, even if the node still acknowledges for a moment);
   * it goes back to the region, for the shards' new homes, when they close.
   */
  public void hold(Address node) {
    links.forEach((destination, outbox) -> {
      if (destination.path().address().equals(node)) {
        toLink.accept(outbox, DeliveryLink.Hold.INSTANCE);
      }
    });
  }

  /** The outboxes of the links, in the order they were started. */
  public java.util.Collection<Outbox> outboxes() {
    return links.values();
  }

  // ---- incoming

  /**
   * A batch from another region's link.
   *
   * @param gateClosed this node's delivery gate is closed: the batch is refused, and asked for
   *     again once it opens ({@link #askForRefused})
   * @return true if its items are to be delivered now, and then {@link #acknowledge}d; false if
   *     it was answered already (a repeat, or one after a missing batch) or is refused
   */
  public boolean accept(DeliveryBatch batch, boolean gateClosed) {
    ActorRef<Object> link = batch.link();
    if (gateClosed) {
      report.accept(RegionNotice.batchWaits(typeName, batch.seq(), link));
      inbound.refuse(link);
      return false;
    }
    boolean known = inbound.knows(link);
    switch (inbound.offer(link, batch.seq())) {
      case DELIVER -> {
        if (!known) {
          watchInbound.accept(link);
        }
        return true;
      }
      case DUPLICATE -> send.accept(link, new DeliveryAck(inbound.lastDelivered(link), false));
      case GAP_ASK_RESEND -> {
        report.accept(RegionNotice.batchGap(typeName, batch.seq(), link, inbound.lastDelivered(link) + 1));
        send.accept(link, new DeliveryAck(inbound.lastDelivered(link), true));
      }
      case GAP -> { }
    }
    return false;
  }

  /**
   * A batch from another region's link: if it is the next in that link's sequence (see
   * {@link #accept}), each of its items goes to {@code deliverItem}, in order, and then the batch
   * is acknowledged, so that its sender counts it as delivered only once every item was handed on.
   */
  void receive(DeliveryBatch batch, boolean gateClosed, Consumer<Object> deliverItem) {
    if (accept(batch, gateClosed)) {
      batch.items().forEach(deliverItem);
      acknowledge(batch);
    }
  }

  /** The items of a batch {@link #accept}ed have been delivered. */
  public void acknowledge(DeliveryBatch batch) {
    send.accept(batch.link(), new DeliveryAck(batch.seq(), false));
  }

  /**
   * This node's delivery gate opened: the links whose batches were refused while it was closed
   * are asked for them again now, not after their resend timeouts.
   */
  public void askForRefused() {
    inbound.takeRefused().forEach(link -> send.accept(link, new DeliveryAck(inbound.lastDelivered(link), true)));
  }

  /** A link that sent here has stopped: it will never send again. */
  public void inboundGone(ActorRef<Object> link) {
    inbound.forget(link);
  }
}
