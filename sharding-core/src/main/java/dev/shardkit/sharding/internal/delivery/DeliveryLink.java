package dev.shardkit.sharding.internal.delivery;

import dev.shardkit.sharding.RemoteDeliverySettings;
import dev.shardkit.sharding.internal.InternalApi;
import dev.shardkit.sharding.internal.machine.DropReporter;
import dev.shardkit.sharding.internal.telemetry.TelemetryBindings;
import dev.shardkit.sharding.internal.telemetry.TelemetryEvents;
import dev.shardkit.sharding.internal.wire.DeliveryBatchWriter;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.Deliver;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.DeliveryAck;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.DeliveryBatch;
import dev.shardkit.sharding.internal.wire.ShardingSerializer;
import java.time.Duration;
import java.util.List;
import org.apache.pekko.actor.DeadLetterSuppression;
import org.apache.pekko.actor.ExtendedActorSystem;
import org.apache.pekko.actor.NoSerializationVerificationNeeded;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.apache.pekko.serialization.Serialization$;
import org.apache.pekko.serialization.SerializationExtension;
import org.apache.pekko.serialization.Serializer;
import org.slf4j.Logger;

/**
 * A region's link to one other region: a child of the sending region that lives as long as the
 * destination does. Every decision is its {@link LinkMachine}'s (batching, the window,
 * acknowledgements, resends, what a close hands back); the actor turns its messages into the
 * machine's input and carries out the effects: it sends the batches, tells the {@link Outbox} what
 * is in transit, reports what cannot travel, keeps the resend check's timer, and answers the region.
 *
 * <p>Each message is serialized here, off the region's thread and before its batch is sent: the
 * batch's size is then known (remoting refuses frames above {@code maximum-frame-size}), and a
 * message that cannot be serialized is dropped on its own, reported with its entity, instead of
 * taking its whole batch (and every resend of it) down with it.
 *
 * <p>When its destination is gone, the region closes the link and gets back, in order, what was
 * sent but not acknowledged and what was never sent ({@link Closed}).
 */
@InternalApi
public final class DeliveryLink {

  /** Region → link: stop, and hand back what has not reached the destination. Local only. */
  public record Close(ActorRef<Object> replyTo) implements NoSerializationVerificationNeeded {}

  /**
   * Link → region: the link has stopped.
   *
   * @param unacknowledged messages sent to the destination and not acknowledged (it may or may
   *     not have received them), oldest first
   * @param unsent messages that never left this node, oldest first; all of them came after every
   *     unacknowledged one
   */
  public record Closed(ActorRef<Object> destination, List<Object> unacknowledged, List<Object> unsent)
      implements NoSerializationVerificationNeeded {}

  /**
   * Region → link: send what is unacknowledged again now, the destination's node is reachable
   * again (the timeout may have grown long while it was not). Local only.
   */
  enum ResendNow implements NoSerializationVerificationNeeded { INSTANCE }

  /**
   * Region → link: the destination's node is reachable again; find out whether it takes batches
   * (send what is unacknowledged now, or an empty batch if nothing is), and answer {@link Confirmed}
   * once one sent from now on is acknowledged. Local only.
   */
  public record Probe(ActorRef<Object> replyTo) implements NoSerializationVerificationNeeded {}

  /** Link → region: the destination acknowledged a batch sent after the {@link Probe}: its node takes batches. Local only. */
  public record Confirmed(ActorRef<Object> destination) implements NoSerializationVerificationNeeded {}

  /**
   * Region → link: the destination's node was downed; send nothing more of what waits, it goes
   * back with {@link Closed} when the link closes. Local only.
   */
  public enum Hold implements NoSerializationVerificationNeeded { INSTANCE }

  /** Region → link: answer {@link Flushed} once everything handed over so far is acknowledged. Local only. */
  public record Flush(ActorRef<Object> replyTo) implements NoSerializationVerificationNeeded {}

  /** Link → region: everything handed over before the {@link Flush} has been acknowledged. Local only. */
  public record Flushed(ActorRef<Object> destination) implements NoSerializationVerificationNeeded {}

  /**
   * The link's own check for batches to send again, scheduled while some are unacknowledged.
   * Cancelled when the link stops; one on its way as the link stopped is a dead letter that says
   * nothing, and is not logged as one.
   */
  private record ResendCheck(long generation) implements NoSerializationVerificationNeeded, DeadLetterSuppression {}

  private enum ResendCheckKey { INSTANCE }

  private final LinkMachine machine;
  private final PekkoPorts ports;
  private final ExtendedActorSystem system;
  /** Hands the machine {@link #current}: made once, so that no closure is made per input. */
  private final scala.Function0<Object> handleCurrent;
  private LinkInput current;

  private DeliveryLink(ActorContext<Object> context, TimerScheduler<Object> timers, Outbox outbox,
      RemoteDeliverySettings settings, ShardingSerializer serializer, DropReporter drops, int maximumFrameSize) {
    // Pekko names an actor's logger after the class that first asks for it: this one, not its ports.
    context.getLog();
    this.machine = new LinkMachine(LinkConfig.of(settings, maximumFrameSize), context.getSelf(),
        outbox.destination(), outbox, (compact, sizeHint) -> new DeliveryBatchWriter(serializer, compact, sizeHint));
    this.ports = new PekkoPorts(context, timers, outbox, drops);
    this.system = (ExtendedActorSystem) Adapter.toClassic(context.getSystem());
    this.handleCurrent = () -> {
      LinkDriver.run(machine, current, System.nanoTime(), ports);
      return null;
    };
  }

  /**
   * @param maximumFrameSize remoting's largest frame ({@code pekko.remote.artery.advanced.maximum-frame-size})
   */
  public static Behavior<Object> create(Outbox outbox, RemoteDeliverySettings settings, ShardingSerializer serializer,
      DropReporter drops, int maximumFrameSize) {
    return Behaviors.setup(ctx -> Behaviors.withTimers(timers ->
        new DeliveryLink(ctx, timers, outbox, settings, serializer, drops, maximumFrameSize).running()));
  }

  /** The serializer of shardkit's messages on {@code classic}: it must be shardkit's own. */
  public static ShardingSerializer serializer(org.apache.pekko.actor.ActorSystem classic) {
    Serializer bound;
    try {
      bound = SerializationExtension.get(classic).serializerFor(DeliveryBatch.class);
    } catch (java.io.NotSerializableException e) {
      throw new IllegalStateException("shardkit's messages have no serializer; shardkit's reference.conf binds them "
          + "to " + ShardingSerializer.class.getName() + " in pekko.actor.serialization-bindings", e);
    }
    if (!(bound instanceof ShardingSerializer sharding)) {
      throw new IllegalStateException("shardkit's messages must be bound to " + ShardingSerializer.class.getName()
          + " (shardkit's reference.conf does so), but pekko.actor.serialization-bindings binds them to "
          + bound.getClass().getName());
    }
    return sharding;
  }

  /** Remoting's largest frame ({@code pekko.remote.artery.advanced.maximum-frame-size}). */
  public static int maximumFrameSize(org.apache.pekko.actor.ActorSystem classic) {
    return (int) Math.min(Integer.MAX_VALUE,
        classic.settings().config().getBytes("pekko.remote.artery.advanced.maximum-frame-size"));
  }

  private Behavior<Object> running() {
    return Behaviors.receive(Object.class)
        .onMessageEquals(Outbox.Drain.INSTANCE, () -> run(LinkInput.Drain.INSTANCE))
        .onMessage(DeliveryAck.class, ack -> run(new LinkInput.Ack(ack)))
        .onMessageEquals(ResendNow.INSTANCE, () -> run(LinkInput.ResendNow.INSTANCE))
        .onMessage(ResendCheck.class, check -> run(new LinkInput.ResendCheckFired(check.generation())))
        .onMessage(Close.class, close -> run(new LinkInput.Close(close.replyTo())))
        .onMessage(Flush.class, flush -> run(new LinkInput.Flush(flush.replyTo())))
        .onMessage(Probe.class, probe -> run(new LinkInput.Probe(probe.replyTo())))
        .onMessageEquals(Hold.INSTANCE, () -> run(LinkInput.Hold.INSTANCE))
        .build();
  }

  private Behavior<Object> run(LinkInput input) {
    current = input;
    // Serializers that write actor refs (Jackson's, for one) need to know the address they write
    // for; remoting sets it around its own serialization, and the link must do the same.
    Serialization$.MODULE$.withTransportInformation(system, handleCurrent);
    current = null;
    return ports.stopped ? Behaviors.stopped() : Behaviors.same();
  }

  /** The effects, carried out with Pekko. */
  private static final class PekkoPorts implements LinkPorts {
    private final ActorContext<Object> context;
    private final TimerScheduler<Object> timers;
    private final Outbox outbox;
    private final DropReporter drops;
    private boolean stopped;

    PekkoPorts(ActorContext<Object> context, TimerScheduler<Object> timers, Outbox outbox, DropReporter drops) {
      this.context = context;
      this.timers = timers;
      this.outbox = outbox;
      this.drops = drops;
    }

    @Override
    public void sendBatch(DeliveryBatch batch) {
      outbox.destination().tell(batch);
    }

    @Override
    public void inTransit(int messages) {
      outbox.inTransit(messages);
    }

    @Override
    public void drop(Object item, String reason) {
      drops.dropped(item instanceof Deliver d ? d.message() : item, reason, Adapter.toClassic(outbox.destination()));
    }

    @Override
    public void startResendCheck(long generation, long delayNanos) {
      timers.startSingleTimer(ResendCheckKey.INSTANCE, new ResendCheck(generation), Duration.ofNanos(delayNanos));
    }

    @Override
    public void cancelResendCheck() {
      timers.cancel(ResendCheckKey.INSTANCE);
    }

    @Override
    public void closed(ActorRef<Object> replyTo, List<Object> unacknowledged, List<Object> unsent) {
      replyTo.tell(new Closed(outbox.destination(), unacknowledged, unsent));
    }

    @Override
    public void flushed(ActorRef<Object> replyTo) {
      replyTo.tell(new Flushed(outbox.destination()));
    }

    @Override
    public void confirmed(ActorRef<Object> replyTo) {
      replyTo.tell(new Confirmed(outbox.destination()));
    }

    @Override
    public void report(LinkNotice notice) {
      Logger log = context.getLog();
      if (log.isEnabledForLevel(notice.level())) {
        log.atLevel(notice.level()).log(notice.render());
      }
      TelemetryBindings telemetry = TelemetryBindings.get(context.getSystem());
      if (telemetry.active()) {
        telemetry.emit(TelemetryEvents.link(notice, telemetry.node()));
      }
    }

    @Override
    public void stopped() {
      stopped = true;
    }
  }
}
