package dev.shardkit.sharding.internal.coordinator;

import dev.shardkit.sharding.CoordinatorBacklog;
import dev.shardkit.sharding.internal.InternalApi;
import dev.shardkit.sharding.internal.coordinator.CoordinatorInput.Protocol;
import dev.shardkit.sharding.internal.gate.DeliveryGate;
import dev.shardkit.sharding.internal.gate.NodeGate;
import dev.shardkit.sharding.internal.machine.DropReporter;
import dev.shardkit.sharding.internal.machine.HandlerFailures;
import dev.shardkit.sharding.internal.membership.ClusterChanges;
import dev.shardkit.sharding.internal.membership.MembersFold;
import dev.shardkit.sharding.internal.region.ShardRegion;
import dev.shardkit.sharding.internal.telemetry.TelemetryBindings;
import dev.shardkit.sharding.internal.telemetry.TelemetryEvents;
import dev.shardkit.sharding.internal.wire.InvalidMessageFilter;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.RegisterAck;
import dev.shardkit.sharding.internal.wire.ShardingProtocol;
import dev.shardkit.sharding.spi.CoordinatorEvent;
import dev.shardkit.sharding.spi.CoordinatorState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;
import org.apache.pekko.actor.ActorIdentity;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.Identify;
import org.apache.pekko.actor.NoSerializationVerificationNeeded;
import org.apache.pekko.actor.RootActorPath;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.apache.pekko.cluster.Cluster;
import org.apache.pekko.cluster.ClusterEvent;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;

/**
 * The singleton that decides where shards live, one per entity type, on the oldest node of the
 * type's role: an interpreter of its {@link CoordinatorMachine}, which decides everything. It turns
 * Pekko's messages (the regions' protocol, store answers, timers, terminations, membership events)
 * into inputs and carries out the effects with Pekko, and it supervises: when handling a message
 * throws, it reports it, waits the back-off {@link CoordinatorSupervision} gives, keeping what
 * arrives meanwhile, and starts a new incarnation of the machine, which reloads its state from the
 * same store. The actor (and so the regions' registrations and its watches) stays; the store is
 * closed only when the coordinator stops for good.
 */
@InternalApi
public final class ShardCoordinator implements CoordinatorPorts {

  /** Sent by the singleton manager when the coordinator must hand over. Local only. */
  public enum Stop implements NoSerializationVerificationNeeded { INSTANCE }

  /** Asks for a {@link CoordinatorBacklog}. Local only. */
  public record GetBacklog(ActorRef<CoordinatorBacklog> replyTo) implements NoSerializationVerificationNeeded {}

  /** A failed incarnation's back-off has passed. */
  private enum Restart implements NoSerializationVerificationNeeded { INSTANCE }

  private final ActorContext<Object> context;
  private final TimerScheduler<Object> timers;
  private final CoordinatorSpec spec;
  private final Logger log;
  private final CoordinatorConfig config;
  private final MembersFold members;
  /** Invalid messages and refused shards: logged (rate-limited) and published as dead letters. */
  private final DropReporter drops;
  private final CoordinatorSupervision supervision;
  private CoordinatorMachine machine;
  private long incarnation;
  /** What arrived while a failed incarnation backs off; null while an incarnation runs. */
  private @Nullable List<Object> restarting;
  private boolean stopped;
  private final TelemetryBindings telemetry;

  private ShardCoordinator(CoordinatorSpec spec, ActorContext<Object> context, TimerScheduler<Object> timers) {
    this.spec = spec;
    this.context = context;
    this.timers = timers;
    this.log = context.getLog();
    this.telemetry = TelemetryBindings.get(context.getSystem());
    Cluster cluster = Cluster.get(Adapter.toClassic(context.getSystem()));
    this.config = CoordinatorConfig.of(spec, cluster.selfAddress(),
        Duration.ofNanos(cluster.downingProvider().downRemovalMargin().toNanos()));
    this.members = new MembersFold(cluster.selfAddress());
    this.drops = new DropReporter(log, spec.typeName(), spec.settings().droppedMessageWarningInterval(),
        Adapter.toClassic(context.getSystem()).eventStream()::publish, telemetry);
    this.supervision = new CoordinatorSupervision(spec.settings().coordinatorFailureBackoffMin(),
        spec.settings().coordinatorFailureBackoffMax(), spec.settings().coordinatorFailureBackoffRandomFactor());
    this.machine = new CoordinatorMachine(config, context.getSelf(), 0, spec.handOffIds(), members);
  }

  public static Behavior<Object> create(CoordinatorSpec spec) {
    return Behaviors.setup(ctx -> Behaviors.withTimers(timers -> {
      ShardCoordinator shell = new ShardCoordinator(spec, ctx, timers);
      // The members as they are first, then every change: the machine decides nothing before it knows them.
      Cluster.get(Adapter.toClassic(ctx.getSystem())).subscribe(Adapter.toClassic(ctx.getSelf()),
          ClusterEvent.initialStateAsSnapshot(), ClusterEvent.MemberEvent.class);
      shell.run(new CoordinatorInput.Start(), HandlerFailures.STARTING);
      return Behaviors.intercept(() -> new CloseStoreOnStop(spec.store()),
          Behaviors.intercept(
              () -> new InvalidMessageFilter((m, why) -> shell.drop(m, "coordinator drops " + why)),
              Behaviors.receive(Object.class).onAnyMessage(shell::onMessage).build()));
    }));
  }

  private Behavior<Object> onMessage(Object message) {
    if (restarting != null) {
      if (message == Restart.INSTANCE) {
        restart();
      } else if (message == Stop.INSTANCE) {
        stopped = true;
      } else if (restarting.size() < spec.stashCapacity()) {
        restarting.add(message);
      } else {
        context.getSystem().deadLetters().tell(message);
      }
    } else {
      CoordinatorInput input = input(message);
      if (input == null) {
        report(new CoordinatorNotice.Ignored(message));
      } else {
        run(input, message);
      }
    }
    return stopped ? Behaviors.stopped() : Behaviors.same();
  }

  /** The input a message means to the machine; null for one it does not take. */
  private static CoordinatorInput input(Object message) {
    if (message instanceof CoordinatorInput input) {
      return input;
    } else if (message instanceof ShardingProtocol protocol) {
      return new Protocol(protocol);
    } else if (message == Stop.INSTANCE) {
      return new CoordinatorInput.Stop();
    } else if (message instanceof GetBacklog get) {
      return new CoordinatorInput.GetBacklog(get.replyTo());
    } else if (message instanceof ActorIdentity identity && identity.correlationId() instanceof Address node) {
      return new CoordinatorInput.NodeIdentified(node, identity.getActorRef().isPresent());
    }
    return ClusterChanges.of(message).map(CoordinatorInput.Membership::new).orElse(null);
  }

  /** Hands {@code input} (made of {@code message}) to the machine and carries out its effects. */
  private void run(CoordinatorInput input, Object message) {
    try {
      for (CoordinatorEffect effect : machine.handle(input, System.nanoTime())) {
        effect.applyTo(this);
      }
    } catch (Exception e) {
      Duration backoff = supervision.failed(System.nanoTime(), ThreadLocalRandom.current().nextDouble());
      report(new CoordinatorNotice.Failed(HandlerFailures.describe(message), e,
          spec.settings().coordinatorFailureBackoffMin()));
      timers.cancelAll();
      restarting = new ArrayList<>();
      timers.startSingleTimer(Restart.INSTANCE, Restart.INSTANCE, backoff);
    }
  }

  /** A new incarnation, with the same store and membership; then what waited for it. */
  private void restart() {
    List<Object> waited = restarting;
    restarting = null;
    machine = new CoordinatorMachine(config, context.getSelf(), ++incarnation, spec.handOffIds(), members);
    supervision.restarted(System.nanoTime());
    run(new CoordinatorInput.Start(), HandlerFailures.STARTING);
    for (Object message : waited) {
      onMessage(message);
    }
  }

  // ---- the ports: Pekko carries out the machine's effects

  @Override
  public void send(ActorRef<Object> to, ShardingProtocol message) {
    to.tell(message);
  }

  @Override
  public void announce(List<Address> nodes, RegisterAck hello) {
    org.apache.pekko.actor.ActorRef self = Adapter.toClassic(context.getSelf());
    for (Address address : nodes) {
      var region = Adapter.toClassic(context).actorSelection(new RootActorPath(address, "/")
          .$div("system").$div(ShardRegion.actorName(spec.typeName())));
      region.tell(hello, org.apache.pekko.actor.ActorRef.noSender());
      region.tell(new Identify(address), self);
    }
  }

  @Override
  public void watch(ActorRef<Object> ref) {
    context.watchWith(ref, new CoordinatorInput.Terminated(ref));
  }

  @Override
  public void load(long attempt) {
    context.pipeToSelf(attempt(spec.store()::load), (state, error) -> error == null
        ? new CoordinatorInput.Loaded(attempt, state) : new CoordinatorInput.LoadFailed(attempt, error));
  }

  @Override
  public void store(long writeId, List<CoordinatorEvent> events, CoordinatorState after) {
    context.pipeToSelf(attempt(() -> spec.store().store(events, after)), (ok, error) -> error == null
        ? new CoordinatorInput.Stored(writeId) : new CoordinatorInput.StoreFailed(writeId, error));
  }

  @Override
  public void readRememberedShards(long readId) {
    context.pipeToSelf(attempt(spec.rememberedShards().orElseThrow()), (ids, error) -> error == null
        ? new CoordinatorInput.RememberedShardsRead(readId, ids)
        : new CoordinatorInput.RememberedShardsFailed(readId, error));
  }

  @Override
  public void awaitGate() {
    ActorRef<Object> self = context.getSelf();
    DeliveryGate.Parked waker = () -> self.tell(new CoordinatorInput.GateOpened());
    if (!NodeGate.get(context.getSystem()).gate().park(waker)) {
      waker.wake();
    }
  }

  @Override
  public void startTimer(CoordinatorTimer key, long generation, Duration delay) {
    timers.startSingleTimer(key, new CoordinatorInput.TimerFired(key, generation), delay);
  }

  @Override
  public void cancelTimer(CoordinatorTimer key) {
    timers.cancel(key);
  }

  @Override
  public void cancelAllTimers() {
    timers.cancelAll();
  }

  @Override
  public void replyBacklog(ActorRef<CoordinatorBacklog> to, CoordinatorBacklog backlog) {
    to.tell(backlog);
  }

  @Override
  public void drop(Object message, String reason) {
    drops.dropped(message, reason, Adapter.toClassic(context.getSelf()));
  }

  @Override
  public void report(CoordinatorNotice notice) {
    if (log.isEnabledForLevel(notice.level())) {
      log.atLevel(notice.level()).setCause(notice.cause()).log(notice.render(spec.typeName()));
    }
    if (telemetry.active()) {
      TelemetryEvents.coordinator(notice, telemetry.node(), spec.typeName(), telemetry::emit);
    }
  }

  @Override
  public void stopped() {
    stopped = true;
  }

  /** A call that throws counts as a failed stage, so it is retried like one. */
  private static <T> CompletionStage<T> attempt(Supplier<CompletionStage<T>> call) {
    try {
      return call.get();
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }
}
