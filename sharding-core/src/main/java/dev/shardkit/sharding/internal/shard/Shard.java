package dev.shardkit.sharding.internal.shard;

import dev.shardkit.sharding.EntityContext;
import dev.shardkit.sharding.EntityTypeKey;
import dev.shardkit.sharding.Passivate;
import dev.shardkit.sharding.ShardCommand;
import dev.shardkit.sharding.internal.InternalApi;
import dev.shardkit.sharding.internal.gate.DeliveryGate;
import dev.shardkit.sharding.internal.gate.GatedMailbox;
import dev.shardkit.sharding.internal.gate.NodeGate;
import dev.shardkit.sharding.internal.machine.DropReporter;
import dev.shardkit.sharding.internal.region.RegionSpec;
import dev.shardkit.sharding.internal.shard.ShardInput.EntityCreationFailed;
import dev.shardkit.sharding.internal.shard.ShardInput.EntityStartRefused;
import dev.shardkit.sharding.internal.shard.ShardInput.EntityStarted;
import dev.shardkit.sharding.internal.shard.ShardInput.EntityTerminated;
import dev.shardkit.sharding.internal.shard.ShardInput.RememberLoadFailed;
import dev.shardkit.sharding.internal.shard.ShardInput.RememberLoaded;
import dev.shardkit.sharding.internal.shard.ShardInput.RememberWriteFailed;
import dev.shardkit.sharding.internal.shard.ShardInput.RememberWritten;
import dev.shardkit.sharding.internal.shard.ShardInput.TimerFired;
import dev.shardkit.sharding.internal.shard.ShardProtocol.CancelHandOff;
import dev.shardkit.sharding.internal.shard.ShardProtocol.EntitiesLive;
import dev.shardkit.sharding.internal.shard.ShardProtocol.EntityLimit;
import dev.shardkit.sharding.internal.shard.ShardProtocol.GetShardState;
import dev.shardkit.sharding.internal.shard.ShardProtocol.HandOff;
import dev.shardkit.sharding.internal.shard.ShardProtocol.ShardSnapshot;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.Deliver;
import dev.shardkit.sharding.spi.RememberEntitiesStore;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.apache.pekko.actor.Cancellable;
import org.apache.pekko.actor.NoSerializationVerificationNeeded;
import org.apache.pekko.actor.PoisonPill;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.ChildFailed;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.PreRestart;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.Terminated;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;

/**
 * One shard, as an actor: the interpreter of its {@link ShardMachine}, which decides everything
 * (creating entities on their first message, delivering to them, passivation, restarts, the
 * active-entity limit, remember-entities, hand-off). The actor turns what it receives into the
 * machine's inputs and carries out its effects ({@link ShardPorts}) with Pekko: entities are its
 * children, spawned behind the gated mailbox and stopped with the type's stop message; the
 * remember-entities store's answers and its timers come back as messages to itself.
 *
 * <p>A message for an active entity takes the machine's fast lane ({@link ShardMachine#activeFor}):
 * straight to the entity, with no input or effect object.
 *
 * <p>Its supervision is Pekko's restart ({@link ShardRestarts}): the entities of a failed
 * incarnation stop with it, and the next incarnation is a new machine that takes what the failed
 * one held ({@link ShardCarryOver}), ahead of its mailbox.
 */
@InternalApi
public final class Shard {

  /**
   * A message to itself that is the machine's input as it is: a store's answer, a timer, the gate.
   * A failure while handling one is reported with the input's type ({@link ShardRestarts}).
   */
  record ToSelf(ShardInput<org.apache.pekko.actor.ActorRef> input) implements NoSerializationVerificationNeeded {}

  private static final ToSelf GATE_OPENED = new ToSelf(new ShardInput.GateOpened<>());
  private static final ToSelf HAND_OFF = new ToSelf(new ShardInput.HandOff<>());
  private static final ToSelf CANCEL_HAND_OFF = new ToSelf(new ShardInput.CancelHandOff<>());

  private final ActorContext<Object> ctx;
  private final EntityTypeKey<Object> typeKey;
  private final ActorRef<Object> region;
  private final DropReporter drops;
  private final ShardCarryOver carried;
  private final RememberEntitiesStore store;
  private final ShardMachine<org.apache.pekko.actor.ActorRef> machine;
  private final ShardDriver<org.apache.pekko.actor.ActorRef> driver;
  /** Whether automatic passivation is on: only then does a delivery read the clock. */
  private final boolean readsClockPerDelivery;
  /*
   * The shard schedules its few timed messages itself, rather than through a timer scheduler,
   * whose interceptor would wrap every message the shard receives, deliveries included.
   */
  private final Map<ShardTimer, Cancellable> timers = new EnumMap<>(ShardTimer.class);
  private boolean stopped;

  // What the ports need to start and stop entities.
  private final Function<EntityContext<Object>, Behavior<Object>> createBehavior;
  private final Object stopMessage;
  /** The type's props with the gated mailbox in front: Pekko takes the first mailbox it finds. */
  private final Props entityProps;
  private final ActorRef<ShardCommand> shardRef;
  /** Entities start only while it is open; their mailboxes hold their messages while it is closed. */
  private final DeliveryGate gate;
  private final DeliveryGate.Parked gateWaker;

  private Shard(ActorContext<Object> ctx, RegionSpec spec, String shardId, ActorRef<Object> region, DropReporter drops,
      ShardCarryOver carried) {
    this.ctx = ctx;
    this.typeKey = spec.typeKey();
    this.region = region;
    this.drops = drops;
    this.carried = carried;
    this.store = spec.rememberEntities()
        .map(p -> p.create(ctx.getSystem(), typeKey.name(), shardId, spec.settings()))
        .orElse(NoRememberEntitiesStore.INSTANCE);
    this.createBehavior = spec.createBehavior().orElseThrow();
    // Without a stop message of the entity's own, a PoisonPill: it waits in the mailbox like any
    // message, and needs no wrapper around every entity's behavior (memory per entity, a call per
    // message).
    this.stopMessage = spec.stopMessage().orElse(PoisonPill.getInstance());
    // The gated mailbox is put first whatever the type's props say, so that no props can take an
    // entity out from under the delivery gate (Entity.withEntityProps refuses a mailbox anyway).
    this.entityProps = spec.entityProps().withMailboxFromConfig(GatedMailbox.CONFIG_PATH);
    this.shardRef = ctx.getSelf().narrow();
    this.gate = NodeGate.get(ctx.getSystem()).gate();
    ActorRef<Object> self = ctx.getSelf();
    this.gateWaker = () -> self.tell(GATE_OPENED);
    ShardConfig cfg = ShardConfig.of(typeKey.name(), shardId, spec.settings(), spec.rememberEntities().isPresent(),
        store.describe());
    this.readsClockPerDelivery = cfg.automaticPassivation();
    // The machine finds an entity's id from its actor's name: no reverse map per entity.
    this.machine = new ShardMachine<>(cfg, carried.take(), ref -> EntityTable.idFromName(ref.path().name()));
    this.driver = new ShardDriver<>(machine, new PekkoPorts());
  }

  /**
   * @param region the region that hosts the shard; it hears of the live count when the limit shrinks
   * @param entityLimit the shard's share of the active-entity limit; {@code Integer.MAX_VALUE} for none
   */
  public static Behavior<Object> create(RegionSpec spec, String shardId, ActorRef<Object> region, int entityLimit,
      DropReporter drops) {
    ShardCarryOver carried = new ShardCarryOver(entityLimit);
    return ShardRestarts.supervised(spec, shardId, drops, Behaviors.setup(ctx -> {
      Shard shard = new Shard(ctx, spec, shardId, region, drops, carried);
      shard.run(new ShardInput.Start<>());
      return shard.stopped ? Behaviors.stopped() : shard.receiving();
    }));
  }

  private Behavior<Object> receiving() {
    return Behaviors.receive(Object.class)
        .onMessage(Deliver.class, this::deliver)
        .onMessage(ToSelf.class, m -> run(m.input()))
        .onMessage(Passivate.class, p -> run(new ShardInput.Passivate<>(Adapter.toClassic(p.entity()))))
        .onMessageEquals(HandOff.INSTANCE, () -> run(HAND_OFF.input()))
        .onMessageEquals(CancelHandOff.INSTANCE, () -> run(CANCEL_HAND_OFF.input()))
        .onMessage(EntityLimit.class, l -> run(new ShardInput.EntityLimit<>(l.limit())))
        .onMessage(GetShardState.class, g -> run(new ShardInput.GetShardState<>(g.replyTo())))
        .onSignal(Terminated.class, t -> run(new EntityTerminated<>(Adapter.toClassic(t.getRef()),
            t instanceof ChildFailed, t instanceof ChildFailed failed ? failed.getCause() : null)))
        .onSignal(PostStop.class, s -> postStop())
        .onSignal(PreRestart.class, s -> preRestart())
        .build();
  }

  /** The fast lane first: an active entity gets its message with nothing in between. */
  private Behavior<Object> deliver(Deliver d) {
    org.apache.pekko.actor.ActorRef entity = machine.activeFor(d.entityId(), readsClockPerDelivery ? System.nanoTime() : 0L);
    if (entity != null) {
      entity.tell(d.message(), org.apache.pekko.actor.ActorRef.noSender());
      return Behaviors.same();
    }
    return run(new ShardInput.Deliver<>(d.entityId(), d.message()));
  }

  private Behavior<Object> run(ShardInput<org.apache.pekko.actor.ActorRef> input) {
    driver.run(input, System.nanoTime());
    return stopped ? Behaviors.stopped() : Behaviors.same();
  }

  /** Failed: the next incarnation gets what this one held (its entities are stopped before it starts). */
  private Behavior<Object> preRestart() {
    postStop();
    carried.keep(machine.carryOver(driver.unfinished()));
    return Behaviors.same();
  }

  private Behavior<Object> postStop() {
    timers.values().forEach(Cancellable::cancel);
    timers.clear();
    store.close();
    return Behaviors.same();
  }

  /** The machine's effects, carried out with Pekko. */
  private final class PekkoPorts implements ShardPorts<org.apache.pekko.actor.ActorRef> {

    /**
     * Spawns and watches an incarnation and gives it {@code messages}, in order, unless the node's
     * delivery gate is closed or the behavior factory fails (an exception that is not a
     * {@code RuntimeException} fails the shard, as a throwing handler does).
     */
    @Override
    public ShardInput<org.apache.pekko.actor.ActorRef> startEntity(String entityId, List<Object> messages) {
      if (!gate.isOpen()) {
        return new EntityStartRefused<>(entityId, messages);
      }
      Behavior<Object> behavior;
      try {
        behavior = createBehavior.apply(new EntityContext<>(typeKey, entityId, shardRef));
        if (behavior == null) {
          throw new IllegalStateException("the behavior factory returned null");
        }
      } catch (RuntimeException e) {
        return new EntityCreationFailed<>(entityId, messages, e);
      }
      // A plain watch: the machine finds the id from the ref's name, so nothing is kept per entity.
      ActorRef<Object> spawned = ctx.spawn(behavior, EntityTable.actorName(entityId), entityProps);
      ctx.watch(spawned);
      org.apache.pekko.actor.ActorRef ref = Adapter.toClassic(spawned);
      messages.forEach(m -> ref.tell(m, org.apache.pekko.actor.ActorRef.noSender()));
      return new EntityStarted<>(entityId, ref);
    }

    @Override
    public void tell(org.apache.pekko.actor.ActorRef entity, Object message) {
      entity.tell(message, org.apache.pekko.actor.ActorRef.noSender());
    }

    @Override
    public void stop(org.apache.pekko.actor.ActorRef entity) {
      entity.tell(stopMessage, org.apache.pekko.actor.ActorRef.noSender());
    }

    @Override
    public @Nullable ShardInput<org.apache.pekko.actor.ActorRef> rememberLoad(long readId) {
      if (!gate.isOpen()) {
        return new ShardInput.RememberRefused<>(readId);
      }
      ctx.pipeToSelf(store.load(), (ids, error) -> new ToSelf(error == null ? new RememberLoaded<>(readId, ids)
          : new RememberLoadFailed<>(readId, error)));
      return null;
    }

    @Override
    public @Nullable ShardInput<org.apache.pekko.actor.ActorRef> rememberUpdate(long batchId, Set<String> started,
        Set<String> stopped) {
      if (!gate.isOpen()) {
        return new ShardInput.RememberRefused<>(batchId);
      }
      ctx.pipeToSelf(store.update(started, stopped), (ok, error) -> new ToSelf(error == null
          ? new RememberWritten<>(batchId) : new RememberWriteFailed<>(batchId, error)));
      return null;
    }

    @Override
    public void parkOnGate() {
      if (!gate.park(gateWaker)) {
        gateWaker.wake();
      }
    }

    @Override
    public void tellRegion(EntitiesLive live) {
      region.tell(live);
    }

    @Override
    public void replySnapshot(ActorRef<Object> to, ShardSnapshot snapshot) {
      to.tell(snapshot);
    }

    @Override
    public void startTimer(ShardTimer key, long generation, Duration delay) {
      cancelTimer(key);
      timers.put(key, ctx.scheduleOnce(delay, ctx.getSelf(), new ToSelf(new TimerFired<>(key, generation))));
    }

    @Override
    public void cancelTimer(ShardTimer key) {
      Cancellable timer = timers.remove(key);
      if (timer != null) {
        timer.cancel();
      }
    }

    @Override
    public void drop(Object message, String reason) {
      drops.dropped(message, reason, Adapter.toClassic(ctx.getSelf()));
    }

    @Override
    public void report(ShardNotice notice) {
      Logger log = ctx.getLog();
      if (log.isEnabledForLevel(notice.level())) {
        log.atLevel(notice.level()).setCause(notice.throwable()).log(notice.render());
      }
    }

    @Override
    public void stopped() {
      stopped = true;
    }
  }
}
