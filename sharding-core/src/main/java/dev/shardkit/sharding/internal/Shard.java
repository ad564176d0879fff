package dev.shardkit.sharding.internal;

import dev.shardkit.sharding.EntityTypeKey;
import dev.shardkit.sharding.Passivate;
import dev.shardkit.sharding.ShardingSettings;
import dev.shardkit.sharding.internal.EntityTable.AfterStop;
import dev.shardkit.sharding.internal.EntityTable.HandOffPlan;
import dev.shardkit.sharding.internal.EntityTable.Wait;
import dev.shardkit.sharding.internal.ShardProtocol.CancelHandOff;
import dev.shardkit.sharding.internal.ShardProtocol.EntitiesLive;
import dev.shardkit.sharding.internal.ShardProtocol.EntityLimit;
import dev.shardkit.sharding.internal.ShardProtocol.GetShardState;
import dev.shardkit.sharding.internal.ShardProtocol.HandOff;
import dev.shardkit.sharding.internal.ShardProtocol.ShardSnapshot;
import dev.shardkit.sharding.internal.ShardingProtocol.Deliver;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.pekko.actor.Cancellable;
import org.apache.pekko.actor.NoSerializationVerificationNeeded;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.ChildFailed;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.PreRestart;
import org.apache.pekko.actor.typed.Terminated;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.BehaviorBuilder;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * One shard: creates its entities on their first message, delivers to them, passivates them
 * (when asked, when idle, or when the region's active-entity limit needs room) without losing
 * what arrives meanwhile, restarts the ones that stop without passivating, and, with
 * remember-entities on, keeps its remember-entities store in step and starts the remembered
 * entities when it starts.
 *
 * <p>A shell that carries out decisions made elsewhere: every decision about an entity is
 * {@link EntityTable}'s, automatic passivation's choices are a {@link Recency}'s; incarnations are
 * made by {@link EntityIncarnations}, the store is read and written through a
 * {@link RememberEntitiesLink}. Its states are behaviours: {@link #loading} (reading the remembered
 * entities; new ones wait), {@link #running}, and {@link #handingOff} (every entity stopped, then
 * the shard).
 *
 * <p>The shard is the only writer of its store while it runs: a new entity's first message waits
 * until its start is durable, and a shard that is handed off stops only after its last write, so
 * the shard's next home reads everything this one wrote.
 */
final class Shard {

  private enum Tick implements NoSerializationVerificationNeeded { RECOVERY, IDLE, BACKOFF }

  private final ActorContext<Object> ctx;
  private final EntityTypeKey<Object> typeKey;
  private final String shardId;
  private final ShardingSettings settings;
  private final ActorRef<Object> region;
  private final EntityTable<org.apache.pekko.actor.ActorRef> entities;
  private final DropReporter drops;
  private final EntityIncarnations incarnations;
  private final RememberEntitiesLink store;
  private final Recency recency;
  /** Whether automatic passivation is on: only then does a delivery read the clock. */
  private final boolean automatic;
  private final long idleNanos;
  private final ShardCarryOver carried;

  /*
   * The shard schedules its few timed messages itself, rather than through a timer scheduler,
   * whose interceptor would wrap every message the shard receives, deliveries included.
   */
  private Cancellable idleTimer;
  private Cancellable recoveryTimer;
  private Cancellable backoffTimer;
  /** Set after a share is heard and while the shard passivates down to a smaller one: the region waits to hear. */
  private boolean reportingLive;
  /** How many {@link ShardProtocol.EntityLimit}s this incarnation has taken (its share at start is not one). */
  private int limitsHeard;
  private long idlePassivations;
  private long limitPassivations;

  private Shard(ActorContext<Object> ctx, RegionSpec spec, String shardId, ActorRef<Object> region,
      int entityLimit, DropReporter drops, ShardCarryOver carried) {
    this.carried = carried;
    this.ctx = ctx;
    this.typeKey = spec.typeKey();
    this.shardId = shardId;
    this.settings = spec.settings();
    this.region = region;
    this.drops = drops;
    this.incarnations = new EntityIncarnations(ctx, spec, shardId, drops);
    this.store = new RememberEntitiesLink(ctx, spec.rememberEntities()
        .map(p -> p.create(ctx.getSystem(), typeKey.name(), shardId, settings))
        .orElse(NoRememberEntitiesStore.INSTANCE), "Entity type [" + typeKey.name() + "]: shard [" + shardId + "]");
    this.entities = new EntityTable<>(settings.bufferSize(), spec.rememberEntities().isPresent(),
        new RestartBackoff(settings.entityRestartBackoff(), settings.entityRestartBackoffMax()),
        ref -> EntityTable.idFromName(ref.path().name()));
    entities.limit(entityLimit);
    this.automatic = settings.passivationIdleTimeout().isPresent() || settings.passivationActiveEntityLimit().isPresent();
    this.recency = automatic ? new EntityRecency() : Recency.OFF;
    this.idleNanos = settings.passivationIdleTimeout().map(Duration::toNanos).orElse(0L);
    scheduleIdleCheck();
  }

  /**
   * @param region the region that hosts the shard; it hears of the live count when the limit shrinks
   * @param entityLimit the shard's share of the active-entity limit; {@code Integer.MAX_VALUE} for none
   */
  public static Behavior<Object> create(RegionSpec spec, String shardId, ActorRef<Object> region, int entityLimit,
      DropReporter drops) {
    ShardCarryOver carried = new ShardCarryOver(entityLimit);
    return ShardRestarts.supervised(spec, shardId, drops, Behaviors.setup(ctx -> {
      ShardCarryOver.Taken taken = carried.take();
      Shard shard = new Shard(ctx, spec, shardId, region, taken.entityLimit(), drops, carried);
      boolean storeRead = spec.rememberEntities().isEmpty();
      if (!storeRead) {
        shard.store.load();
      }
      Behavior<Object> state = storeRead ? shard.running() : shard.loading();
      return shard.resume(taken, storeRead, state);
    }));
  }

  /** A restarted incarnation takes over what the failed one held, before its mailbox; see {@link ShardRestarts}. */
  private Behavior<Object> resume(ShardCarryOver.Taken taken, boolean storeRead, Behavior<Object> state) {
    limitsHeard = taken.limitsHeard();
    taken.held().forEach((entityId, messages) -> messages.forEach(m ->
        deliver(new Deliver(typeKey.name(), shardId, entityId, m), storeRead)));
    return taken.handingOff() ? handOff(storeRead) : state;
  }

  /** Failed: the next incarnation gets what this one held (its entities are stopped before it starts). */
  private Behavior<Object> preRestart() {
    postStop();
    carried.keep(entities.takeAllHeld(), entities.handingOff(), entities.limit(), limitsHeard);
    return Behaviors.same();
  }

  // ---- the states

  /** Remember-entities on, the store not read yet: new entities wait for it. */
  private Behavior<Object> loading() {
    return shared(BehaviorBuilder.create()
        .onMessage(Deliver.class, d -> deliver(d, false))
        .onMessage(RememberEntitiesLink.Loaded.class, l -> {
          loaded(store.loaded(l));
          return running();
        })
        .onMessage(RememberEntitiesLink.LoadFailed.class, this::loadFailed)
        .onMessageEquals(HandOff.INSTANCE, () -> handOff(false)), Behaviors::same);
  }

  /** Entities start with their first message (once remembered, with remember-entities on). */
  private Behavior<Object> running() {
    return shared(BehaviorBuilder.create()
        .onMessage(Deliver.class, d -> deliver(d, true))
        .onMessageEquals(HandOff.INSTANCE, () -> handOff(true)), Behaviors::same);
  }

  /**
   * Every entity is being stopped; the shard stops once none is left and every change is written
   * (and, if the store was still being read, once it has been read, whose writes may follow).
   */
  private Behavior<Object> handingOff(boolean storeRead) {
    BehaviorBuilder<Object> b = BehaviorBuilder.create()
        .onMessage(Deliver.class, d -> deliver(d, storeRead))
        .onMessageEquals(HandOff.INSTANCE, Behaviors::same)
        .onMessageEquals(CancelHandOff.INSTANCE, () -> {
          entities.cancelHandOff().forEach(this::admit);
          return storeRead ? running() : loading();
        });
    if (!storeRead) {
      b = b.onMessage(RememberEntitiesLink.Loaded.class, l -> {
        loaded(store.loaded(l));
        return done(true) ? Behaviors.stopped() : handingOff(true);
      }).onMessage(RememberEntitiesLink.LoadFailed.class, this::loadFailed);
    }
    return shared(b, () -> done(storeRead) ? Behaviors.stopped() : Behaviors.same());
  }

  /**
   * Adds what the shard does alike in every state, after what {@code state} does its own way.
   *
   * @param next the behaviour after an entity stopped, a write ended or the gate opened: the
   *     moments a shard handing off may have become done
   */
  private Behavior<Object> shared(BehaviorBuilder<Object> state, Supplier<Behavior<Object>> next) {
    return state
        .onMessageEquals(CancelHandOff.INSTANCE, Behaviors::same)
        .onMessage(Passivate.class, this::onPassivate)
        .onSignal(Terminated.class, t -> {
          entityTerminated(t);
          return next.get();
        })
        .onMessage(RememberEntitiesLink.Written.class, w -> {
          entities.written(store.written(w)).forEach(this::admit);
          return next.get();
        })
        .onMessageEquals(EntityIncarnations.GateOpened.INSTANCE, () -> {
          incarnations.gateOpened();
          entities.waitingIds(Wait.GATE).forEach(this::admit);
          return next.get();
        })
        .onMessage(RememberEntitiesLink.WriteFailed.class, f -> {
          store.writeFailed(f);
          return Behaviors.same();
        })
        .onMessage(RememberEntitiesLink.Retry.class, r -> {
          store.retry(r);
          return Behaviors.same();
        })
        .onMessageEquals(Tick.BACKOFF, this::backoffsEnded)
        .onMessageEquals(Tick.RECOVERY, () -> {
          recoveryTimer = null;
          recoverNext(settings.rememberEntitiesRecoveryBatch());
          return Behaviors.same();
        })
        .onMessageEquals(Tick.IDLE, this::idleCheck)
        .onMessage(EntityLimit.class, this::onEntityLimit)
        .onMessage(GetShardState.class, get -> {
          get.replyTo().tell(new ShardSnapshot(shardId, entities.entityIds(), idlePassivations, limitPassivations));
          return Behaviors.same();
        })
        .onSignal(PostStop.class, s -> postStop())
        .onSignal(PreRestart.class, s -> preRestart())
        .build();
  }

  // ---- delivery

  /** @param storeRead false while remembered entities are read: then a new entity waits for that */
  private Behavior<Object> deliver(Deliver d, boolean storeRead) {
    String entityId = d.entityId();
    Optional<String> invalid = ShardIds.problem("entity id", entityId);
    if (invalid.isPresent()) {
      drops.dropped(d.message(), "dropping a message for shard [" + shardId + "]: " + invalid.get(), classicSelf());
      return Behaviors.same();
    }
    org.apache.pekko.actor.ActorRef entity = entities.active(entityId);
    if (entity != null) {
      recency.touch(entityId, automatic ? System.nanoTime() : 0L);
      entity.tell(d.message(), org.apache.pekko.actor.ActorRef.noSender());
      return Behaviors.same();
    }
    boolean unknown = entities.status(entityId) == null;
    if (unknown && entities.startsAtOnce()) {
      // The common case, kept free of holding and draining.
      startEntity(entityId, List.of(d.message()));
      return Behaviors.same();
    }
    if (!entities.hold(entityId, d.message())) {
      drops.dropped(d.message(), "buffer full while entity [" + entityId + "] of shard [" + shardId
          + "] waits to start or passivates", classicSelf());
    } else if (!storeRead) {
      if (unknown) {
        entities.awaitLoad(entityId);
      }
    } else {
      switch (entities.arrived(entityId)) {
        case ADMIT -> admit(entityId);
        case REMEMBER_FIRST -> {
          store.started(entityId);
          store.flush();
        }
        case HOLD -> { }
      }
    }
    return Behaviors.same();
  }

  /** Starts an entity whose start is allowed, now if the limit leaves room, else when it does. */
  private void admit(String entityId) {
    if (entities.admit(entityId)) {
      startEntity(entityId, entities.takeHeld(entityId));
    } else {
      makeRoom();
    }
  }

  /** Passivates the least recently used entities so that those waiting for room will fit. */
  private void makeRoom() {
    for (String entityId : recency.beyond(entities.roomToKeep())) {
      limitPassivations++;
      passivate(entityId);
    }
  }

  /**
   * Starts entities waiting for room while the limit allows; if some still wait, the least
   * recently used (perhaps just started, once they have had their messages) make room for them.
   */
  private void fillRoom() {
    for (String entityId = entities.nextForRoom(); entityId != null; entityId = entities.nextForRoom()) {
      startEntity(entityId, entities.takeHeld(entityId));
    }
    if (!entities.waitingIds(Wait.SLOT).isEmpty()) {
      makeRoom();
    }
  }

  /**
   * Starts one incarnation and gives it {@code messages}; during a hand-off it is stopped right
   * after them. A behavior factory that fails is logged and the messages dropped; a remembered
   * entity then tries again after its back-off.
   */
  private void startEntity(String entityId, List<Object> messages) {
    if (!incarnations.mayStart()) {
      waitForGate(entityId, messages);
      return;
    }
    org.apache.pekko.actor.ActorRef ref = incarnations.start(entityId, messages);
    if (ref == null) {
      carryOut(entityId, entities.creationFailed(entityId, System.nanoTime()));
    } else if (entities.started(entityId, ref)) {
      sendStop(entityId, ref);
    } else {
      recency.touch(entityId, System.nanoTime());
    }
  }

  /**
   * The node may have been downed while it was not looking, and the entity started elsewhere: it
   * starts here only once the node's delivery gate has opened, with {@code messages} first.
   */
  private void waitForGate(String entityId, List<Object> messages) {
    for (Object m : messages) {
      if (!entities.hold(entityId, m)) {
        drops.dropped(m, "buffer full while entity [" + entityId + "] of shard [" + shardId + "] waits for this "
            + "node to be confirmed a member", classicSelf());
      }
    }
    entities.awaitGate(entityId);
    incarnations.awaitGate();
  }

  // ---- passivation

  private Behavior<Object> onPassivate(Passivate p) {
    String entityId = entities.idOf(Adapter.toClassic(p.entity()));
    if (entityId == null) {
      ctx.getLog().debug("Entity type [{}]: ignoring Passivate for {}, not an entity of shard [{}]",
          typeKey.name(), p.entity(), shardId);
    } else {
      passivate(entityId);
    }
    return Behaviors.same();
  }

  /** Passivation asked for by a live entity or decided by the shard. */
  private void passivate(String entityId) {
    org.apache.pekko.actor.ActorRef entity = entities.active(entityId);
    if (entities.passivate(entityId)) {
      sendStop(entityId, entity);
    }
  }

  /** Stops an entity after what is already in its mailbox; messages for it are held meanwhile. */
  private void sendStop(String entityId, org.apache.pekko.actor.ActorRef entity) {
    recency.remove(entityId);
    incarnations.stop(entity);
  }

  private Behavior<Object> idleCheck() {
    for (String entityId : recency.idle(idleNanos, System.nanoTime())) {
      idlePassivations++;
      passivate(entityId);
    }
    scheduleIdleCheck();
    return Behaviors.same();
  }

  private void scheduleIdleCheck() {
    settings.passivationIdleTimeout().ifPresent(t -> idleTimer = after(Recency.checkInterval(t), Tick.IDLE));
  }

  private Behavior<Object> onEntityLimit(EntityLimit newLimit) {
    limitsHeard++;
    if (entities.limit(newLimit.limit())) {
      makeRoom();
    } else {
      fillRoom();
    }
    // Every share heard is answered: the region takes back room only on a count made under the
    // share it told last.
    reportingLive = true;
    reportLive();
    return Behaviors.same();
  }

  /** After a share is heard, and while passivating down to a smaller one: tells the region how many are live. */
  private void reportLive() {
    if (reportingLive) {
      region.tell(new EntitiesLive(shardId, entities.size(), limitsHeard));
      reportingLive = entities.overLimit();
    }
  }

  // ---- entities that stopped

  private void entityTerminated(Terminated terminated) {
    String entityId = entities.idOf(Adapter.toClassic(terminated.getRef()));
    if (entityId == null) {
      return;
    }
    AfterStop after = entities.terminated(entityId, terminated instanceof ChildFailed, System.nanoTime());
    recency.remove(entityId);
    if (terminated instanceof ChildFailed failed && after.failuresInARow() > 0) {
      ctx.getLog().warn("Entity type [{}]: entity [{}] of shard [{}] failed ({} in a row): {}",
          typeKey.name(), entityId, shardId, after.failuresInARow(), String.valueOf(failed.getCause()));
    }
    carryOut(entityId, after);
    fillRoom();
    reportLive();
  }

  /** Carries out the table's decision after an incarnation ended or could not be created. */
  private void carryOut(String entityId, AfterStop after) {
    switch (after.next()) {
      case START_FOR_HELD, START_REMEMBERED -> admit(entityId);
      case FORGET -> store.stopped(entityId);
      case BACK_OFF -> {
        logBackOff(entityId, after);
        scheduleBackoffEnd();
      }
      case KEEP_FOR_NEXT_HOME, NONE -> { }
    }
  }

  private void logBackOff(String entityId, AfterStop after) {
    if (after.failuresInARow() > 1) {
      ctx.getLog().warn("Entity type [{}]: entity [{}] of shard [{}] stopped {} times in a row shortly "
          + "after starting; it starts again in {} ms, and its messages wait until then", typeKey.name(), entityId,
          shardId, after.failuresInARow(), after.delay().toMillis());
    } else {
      ctx.getLog().info("Entity type [{}]: remembered entity [{}] of shard [{}] stopped without "
          + "passivating; it starts again in {} ms", typeKey.name(), entityId, shardId, after.delay().toMillis());
    }
  }

  /** One timer, for the earliest back-off to end. */
  private void scheduleBackoffEnd() {
    cancel(backoffTimer);
    backoffTimer = null;
    OptionalLong end = entities.nextBackoffEnd();
    if (end.isPresent()) {
      backoffTimer = after(Duration.ofNanos(Math.max(0, end.getAsLong() - System.nanoTime())), Tick.BACKOFF);
    }
  }

  private Behavior<Object> backoffsEnded() {
    backoffTimer = null;
    entities.backoffsEnded(System.nanoTime()).forEach(this::admit);
    scheduleBackoffEnd();
    return Behaviors.same();
  }

  // ---- remember-entities

  private void loaded(Set<String> remembered) {
    if (!remembered.isEmpty()) {
      ctx.getLog().info("Entity type [{}]: shard [{}] starts {} remembered entities{}", typeKey.name(),
          shardId, remembered.size(), settings.rememberEntitiesRecoveryBatch() == 0 ? ""
              : ", " + settings.rememberEntitiesRecoveryBatch() + " every "
                  + settings.rememberEntitiesRecoveryFrequency().toMillis() + " ms");
    }
    EntityTable.Loaded decided = entities.loaded(remembered);
    decided.admit().forEach(this::admit);
    decided.remember().forEach(store::started);
    store.flush();
    int batch = settings.rememberEntitiesRecoveryBatch();
    recoverNext(batch == 0 ? Integer.MAX_VALUE : batch);
  }

  private void recoverNext(int count) {
    entities.nextRecoveries(count).forEach(this::admit);
    if (entities.recovering() && recoveryTimer == null) {
      recoveryTimer = after(settings.rememberEntitiesRecoveryFrequency(), Tick.RECOVERY);
    }
  }

  private Behavior<Object> loadFailed(RememberEntitiesLink.LoadFailed failed) {
    store.loadFailed(failed);
    return Behaviors.same();
  }

  // ---- hand-off

  private Behavior<Object> handOff(boolean storeRead) {
    cancel(recoveryTimer);
    recoveryTimer = null;
    cancel(backoffTimer);
    backoffTimer = null;
    HandOffPlan<org.apache.pekko.actor.ActorRef> plan = entities.handOff();
    plan.stop().forEach(this::sendStop);
    plan.start().forEach(entityId -> startEntity(entityId, entities.takeHeld(entityId)));
    return done(storeRead) ? Behaviors.stopped() : handingOff(storeRead);
  }

  /**
   * Whether a shard handing off may stop: the region sees it terminate after all its entities did
   * and every change is written, and reports the hand-off.
   */
  private boolean done(boolean storeRead) {
    return storeRead && entities.allStopped() && store.settled();
  }

  private Behavior<Object> postStop() {
    cancel(idleTimer);
    cancel(recoveryTimer);
    cancel(backoffTimer);
    store.close();
    return Behaviors.same();
  }

  private Cancellable after(Duration delay, Object message) {
    return ctx.scheduleOnce(delay, ctx.getSelf(), message);
  }

  private static void cancel(Cancellable timer) {
    if (timer != null) {
      timer.cancel();
    }
  }

  private org.apache.pekko.actor.ActorRef classicSelf() {
    return Adapter.toClassic(ctx.getSelf());
  }
}
