package dev.shardkit.sharding.internal.delivery;

import dev.shardkit.sharding.internal.region.SimHostWorld;
import dev.shardkit.sharding.internal.wire.EncodedItem;
import dev.shardkit.sharding.internal.wire.ItemEncoder;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.DeliveryAck;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.DeliveryBatch;
import dev.shardkit.sharding.internal.wire.ShardingSerializer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * One region's link to another region, in the simulation of the cluster: the real
 * {@link LinkMachine} draining the real {@link Outbox}, run by the real {@link LinkDriver}, with
 * ports that send its batches on the simulated network and keep its resend check on the simulated
 * clock. Items are not serialized: the encoder only counts sizes, and a batch reaches the receiver
 * carrying the items' originals (what the receiving region would have read back).
 */
public final class SimLinkHost implements LinkPorts {

  private final SimHostWorld world;
  private final int node;
  private final ActorRef<Object> ref;
  private final Outbox outbox;
  private final LinkMachine machine;
  /** The originals of each batch sent and not yet acknowledged, by sequence number, oldest first. */
  private final java.util.TreeMap<Long, List<Object>> unacknowledged = new java.util.TreeMap<>();
  private long resendGeneration = -1;
  private boolean drainScheduled;
  private boolean stopped;

  public SimLinkHost(SimHostWorld world, int node, ActorRef<Object> ref, Outbox outbox, LinkConfig config) {
    this.world = world;
    this.node = node;
    this.ref = ref;
    this.outbox = outbox;
    this.machine = new LinkMachine(config, ref, outbox.destination(), outbox, (compact, sizeHint) -> new Sizes());
    world.register(ref, node, this::receive);
    // The wake-up is a Drain message to the link, as the actor's is.
    outbox.attach(() -> world.send(node, ref, Outbox.Drain.INSTANCE));
  }

  /** What the link receives, as its actor would: its outbox's wake-up, acknowledgements, the region's requests. */
  void receive(Object message) {
    if (stopped) {
      return;
    }
    LinkInput input;
    if (message == Outbox.Drain.INSTANCE) {
      input = LinkInput.Drain.INSTANCE;
    } else if (message instanceof DeliveryAck ack) {
      input = new LinkInput.Ack(ack);
      // What the destination acknowledged is there now: the simulation moves it to its node.
      while (!unacknowledged.isEmpty() && unacknowledged.firstKey() <= ack.seq()) {
        for (Object item : unacknowledged.pollFirstEntry().getValue()) {
          world.acknowledged(node, outbox.destination(), item);
        }
      }
    } else if (message instanceof LinkInput in) {
      input = in;
    } else if (message instanceof DeliveryLink.Close close) {
      input = new LinkInput.Close(close.replyTo());
    } else if (message instanceof DeliveryLink.Flush flush) {
      input = new LinkInput.Flush(flush.replyTo());
    } else if (message instanceof DeliveryLink.Probe probe) {
      input = new LinkInput.Probe(probe.replyTo());
    } else if (message == DeliveryLink.Hold.INSTANCE) {
      input = LinkInput.Hold.INSTANCE;
    } else if (message == DeliveryLink.ResendNow.INSTANCE) {
      input = LinkInput.ResendNow.INSTANCE;
    } else {
      return;
    }
    world.trace(node, "link", input, List.of());
    LinkDriver.run(machine, input, world.now(), this);
  }

  public ActorRef<Object> ref() {
    return ref;
  }

  public ActorRef<Object> destination() {
    return outbox.destination();
  }

  public boolean isStopped() {
    return stopped;
  }

  /** Each message the link holds: taken out and unacknowledged, then waiting in the outbox. */
  public void forEachHeld(Consumer<Object> action) {
    machine.forEachUnacknowledged(action);
  }

  /** Messages waiting or in transit. */
  public int pending() {
    return outbox.pending();
  }

  // ---- the ports

  @Override
  public void sendBatch(DeliveryBatch batch) {
    List<Object> items = new ArrayList<>(batch.items().size());
    for (Object item : batch.items()) {
      Object original = item instanceof EncodedItem e ? e.original() : item;
      items.add(original);
      world.sent(node, outbox.destination(), original);
    }
    unacknowledged.put(batch.seq(), items);
    world.send(node, outbox.destination(), new DeliveryBatch(batch.link(), batch.seq(), items));
  }

  @Override
  public void inTransit(int messages) {
    outbox.inTransit(messages);
  }

  @Override
  public void drop(Object item, String reason) {
    world.dropped(node, item, reason);
  }

  @Override
  public void startResendCheck(long generation, long delayNanos) {
    resendGeneration = generation;
    world.after(node, delayNanos, () -> {
      if (!stopped && resendGeneration == generation) {
        receive(new LinkInput.ResendCheckFired(generation));
      }
    });
  }

  @Override
  public void cancelResendCheck() {
    resendGeneration = -1;
  }

  @Override
  public void closed(ActorRef<Object> replyTo, List<Object> unacknowledged, List<Object> unsent) {
    world.send(node, replyTo, new DeliveryLink.Closed(outbox.destination(), unacknowledged, unsent));
  }

  @Override
  public void confirmed(ActorRef<Object> replyTo) {
    world.send(node, replyTo, new DeliveryLink.Confirmed(outbox.destination()));
  }

  @Override
  public void flushed(ActorRef<Object> replyTo) {
    world.send(node, replyTo, new DeliveryLink.Flushed(outbox.destination()));
  }

  @Override
  public void report(LinkNotice notice) {
    world.noticed(node, notice);
  }

  @Override
  public void stopped() {
    stopped = true;
    world.stoppedActor(ref);
  }

  /** An encoder that only counts: each item's size is a fixed guess, its bytes are never read. */
  private static final class Sizes implements ItemEncoder.BatchWriter {
    private static final byte[] BYTES = new byte[64];

    @Override
    public EncodedItem write(Object item) {
      return new EncodedItem(item, ShardingSerializer.ITEM_DELIVER, BYTES, 0, BYTES.length);
    }

    @Override
    public void undo(EncodedItem last) {}
  }
}
