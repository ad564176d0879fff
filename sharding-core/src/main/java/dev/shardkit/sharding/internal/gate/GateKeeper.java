package dev.shardkit.sharding.internal.gate;

import dev.shardkit.sharding.internal.InternalApi;
import dev.shardkit.sharding.internal.gate.GateProtocol.ConfirmMember;
import dev.shardkit.sharding.internal.gate.GateProtocol.MemberConfirmed;
import dev.shardkit.sharding.internal.telemetry.TelemetryBindings;
import dev.shardkit.sharding.internal.telemetry.TelemetryEvents;
import dev.shardkit.sharding.spi.ShardingEvent;
import java.time.Duration;
import java.util.List;
import org.apache.pekko.actor.CoordinatedShutdown;
import org.apache.pekko.actor.DeadLetterSuppression;
import org.apache.pekko.actor.NoSerializationVerificationNeeded;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.apache.pekko.cluster.Cluster;
import org.apache.pekko.cluster.ClusterEvent;
import org.apache.pekko.remote.artery.ThisActorSystemQuarantinedEvent;

/**
 * The actor that keeps a node's {@link DeliveryGate}: one per node ({@code /system/shardkit-gate}).
 * Every decision is its {@link GateMachine}'s: when the gate closes (the node was paused, others
 * see it unreachable, a member quarantined it), whom to ask whether they still count the node as a
 * member, when enough of them have said so to open the gate again, when it closes for good (the
 * node is downed or removed, with INFO if it left on purpose and a warning if it was put out), and
 * what to answer the other keepers. The actor subscribes to the cluster's events and the
 * quarantine event, turns each message into the machine's input, and carries out its effects on
 * the gate, the other keepers, the subscribers (the node's regions), its timer and its log.
 */
@InternalApi
public final class GateKeeper {

  /** The keeper's name under {@code /system} on every node. */
  public static final String NAME = "shardkit-gate";

  /** Region → keeper: tell me of the gate's changes. Local only. */
  public record Subscribe(ActorRef<Object> subscriber) implements NoSerializationVerificationNeeded {}

  /**
   * Keeper → subscribers: the gate closed, opened, or closed for good (the node is out). Local
   * only. A region that stopped just before is told too (the keeper learns it only from the watch
   * that follows): not a dead letter to log.
   */
  public enum GateChanged implements NoSerializationVerificationNeeded, DeadLetterSuppression { CLOSED, OPENED, DOWN }

  /** Ticker → keeper: the node was paused this long. Local only. */
  record Paused(long nanos) implements NoSerializationVerificationNeeded {}

  private enum RetryKey { INSTANCE }

  private record Retry(long generation) implements NoSerializationVerificationNeeded {}

  private record SubscriberGone(ActorRef<Object> subscriber) implements NoSerializationVerificationNeeded {}

  private final ActorContext<Object> context;
  private final DeliveryGate gate;
  private final GateMachine machine;
  private final GateMembership membership;
  private final GatePorts ports;

  private GateKeeper(ActorContext<Object> context, TimerScheduler<Object> timers, DeliveryGate gate,
      Duration pauseThreshold, Duration retryInterval) {
    this.context = context;
    this.gate = gate;
    // Pekko names an actor's logger after the class that first asks for it: this one, not its ports.
    context.getLog();
    Cluster cluster = Cluster.get(Adapter.toClassic(context.getSystem()));
    this.machine = new GateMachine(context.getSelf(), cluster.selfAddress().toString(),
        cluster.selfUniqueAddress().longUid(), retryInterval, pauseThreshold);
    this.membership = new GateMembership(cluster.selfUniqueAddress());
    this.ports = new PekkoPorts(context, timers, gate);
  }

  /**
   * @param pauseThreshold the gate's lease, for the log
   * @param retryInterval how often a node whose gate is closed asks the others again
   */
  public static Behavior<Object> create(DeliveryGate gate, Duration pauseThreshold, Duration retryInterval) {
    return Behaviors.setup(ctx -> Behaviors.withTimers(timers -> {
      org.apache.pekko.cluster.typed.Cluster.get(ctx.getSystem()).subscriptions()
          .tell(org.apache.pekko.cluster.typed.Subscribe.create(ctx.getSelf().<ClusterEvent.ClusterDomainEvent>narrow(),
              ClusterEvent.ClusterDomainEvent.class));
      Adapter.toClassic(ctx.getSystem()).eventStream()
          .subscribe(Adapter.toClassic(ctx.getSelf()), ThisActorSystemQuarantinedEvent.class);
      return new GateKeeper(ctx, timers, gate, pauseThreshold, retryInterval).behavior();
    }));
  }

  private Behavior<Object> behavior() {
    return Behaviors.receive(Object.class)
        .onMessage(Subscribe.class, s -> run(new GateInput.Subscribe(s.subscriber())))
        .onMessage(SubscriberGone.class, g -> run(new GateInput.SubscriberGone(g.subscriber())))
        .onMessage(Paused.class, p -> run(new GateInput.Paused(p.nanos())))
        .onMessage(ThisActorSystemQuarantinedEvent.class,
            q -> run(new GateInput.Quarantined(q.remoteAddress().address().toString())))
        .onMessage(ClusterEvent.ClusterDomainEvent.class, e -> run(membership.apply(e, Departure.reason(
            CoordinatedShutdown.get(Adapter.toClassic(context.getSystem())).getShutdownReason()))))
        .onMessage(ConfirmMember.class, q -> run(new GateInput.ConfirmAsked(q, gate.isOpen())))
        .onMessage(MemberConfirmed.class, a -> run(new GateInput.Confirmed(a)))
        .onMessage(Retry.class, r -> run(new GateInput.RetryFired(r.generation())))
        .build();
  }

  /** The machine's time is the gate's clock: a round's start is compared with the gate's pauses. */
  private Behavior<Object> run(GateInput input) {
    GateDriver.run(machine, input, gate.now(), ports);
    return Behaviors.same();
  }

  /** The effects, carried out with Pekko. */
  private static final class PekkoPorts implements GatePorts {
    private final ActorContext<Object> context;
    private final TimerScheduler<Object> timers;
    private final DeliveryGate gate;

    PekkoPorts(ActorContext<Object> context, TimerScheduler<Object> timers, DeliveryGate gate) {
      this.context = context;
      this.timers = timers;
      this.gate = gate;
    }

    @Override
    public void closeGate() {
      gate.close();
    }

    @Override
    public boolean tryOpenGate(long confirmedSince) {
      return gate.open(confirmedSince);
    }

    @Override
    public void downGate() {
      gate.down();
    }

    @Override
    public void ask(List<String> members, ConfirmMember question) {
      for (String member : members) {
        context.classicActorContext().actorSelection(member + "/system/" + NAME)
            .tell(question, org.apache.pekko.actor.ActorRef.noSender());
      }
    }

    @Override
    public void answer(ActorRef<Object> to, MemberConfirmed answer) {
      to.tell(answer);
    }

    @Override
    public void notify(List<ActorRef<Object>> subscribers, GateChanged change) {
      subscribers.forEach(s -> s.tell(change));
    }

    @Override
    public void watch(ActorRef<Object> subscriber) {
      context.watchWith(subscriber, new SubscriberGone(subscriber));
    }

    @Override
    public void startRetry(long generation, Duration interval) {
      timers.startTimerWithFixedDelay(RetryKey.INSTANCE, new Retry(generation), interval);
    }

    @Override
    public void cancelRetry() {
      timers.cancel(RetryKey.INSTANCE);
    }

    @Override
    public void report(GateNotice notice) {
      context.getLog().atLevel(notice.level()).log(notice.render());
      TelemetryBindings telemetry = TelemetryBindings.get(context.getSystem());
      ShardingEvent event = telemetry.active() ? TelemetryEvents.gate(notice, telemetry.node()) : null;
      if (event != null) {
        telemetry.emit(event);
      }
    }
  }
}
