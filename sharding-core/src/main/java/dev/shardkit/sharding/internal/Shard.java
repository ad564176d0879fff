package dev.shardkit.sharding.internal;

import dev.shardkit.sharding.EntityContext;
import dev.shardkit.sharding.EntityTypeKey;
import dev.shardkit.sharding.Passivate;
import dev.shardkit.sharding.ShardCommand;
import dev.shardkit.sharding.ShardingSettings;
import dev.shardkit.sharding.internal.EntityTable.Status;
import dev.shardkit.sharding.internal.EntityTable.Wait;
import dev.shardkit.sharding.internal.RememberedUpdates.Batch;
import dev.shardkit.sharding.internal.ShardingProtocol.Deliver;
import dev.shardkit.sharding.spi.RememberEntitiesStore;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.HashSet;
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
import org.apache.pekko.actor.typed.MailboxSelector;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.Terminated;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;

/**
 * One shard: creates its entities on their first message, delivers to them, passivates them
 * (when asked, when idle, or when the region's active-entity limit needs room) without losing
 * what arrives meanwhile, restarts the ones that stop without passivating, and, with
 * remember-entities on, keeps its remember-entities store in step and starts the remembered
 * entities when it starts. A thin shell around {@link EntityTable}, {@link RememberedUpdates},
 * {@link EntityRecency} and {@link RestartBackoff}.
 *
 * <p>The shard is the only writer of its store while it runs: a new entity's first message waits
 * until its start is durable, and a shard that is handed off stops only after its last write, so
 * the shard's next home reads everything this one wrote.
 */
final class Shard extends AbstractBehavior<Object> {

  /** Ask for the shard's live entities; answered with {@link ShardSnapshot}. Local only. */
  public record GetShardState(ActorRef<Object> replyTo) implements NoSerializationVerificationNeeded {}

  /**
   * A shard's live entities, and how many it has passivated automatically since it started.
   * Local only.
   */
  public record ShardSnapshot(String shardId, Set<String> entityIds, long idlePassivations,
      long limitPassivations) implements NoSerializationVerificationNeeded {}

  /**
   * Region → shard: nothing more will be routed here; stop every entity (each after what is
   * already in its mailbox) and then stop. Messages held for an entity that was passivating are
   * still delivered here, to one more incarnation that is stopped right after them, because they
   * were sent before the move and must be processed before anything sent after it. Local only.
   */
  public enum HandOff implements NoSerializationVerificationNeeded { INSTANCE }

  /**
   * Region → shard: the coordinator gave the hand-off up (it timed out); keep running. Entities
   * already told to stop still stop; remembered ones start again by themselves, the others with
   * their next message. Local only.
   */
  public enum CancelHandOff implements NoSerializationVerificationNeeded { INSTANCE }

  /** The node's delivery gate opened (or never was really closed): waiting entities may start. Local only. */
  private enum GateOpened implements NoSerializationVerificationNeeded { INSTANCE }

  /** Region → shard: its share of the region's active-entity limit. Local only. */
  public record EntityLimit(int limit) implements NoSerializationVerificationNeeded {}

  /**
   * Shard → region: how many entities are live here, sent while the shard passivates down to a
   * smaller share. Local only.
   */
  public record EntitiesLive(String shardId, int live) implements NoSerializationVerificationNeeded {}

  private record Loaded(Set<String> entityIds) implements NoSerializationVerificationNeeded {}

  private record LoadFailed(Throwable cause) implements NoSerializationVerificationNeeded {}

  private record Written(Batch batch) implements NoSerializationVerificationNeeded {}

  private record WriteFailed(Batch batch, Throwable cause) implements NoSerializationVerificationNeeded {}

  /** One back-off's end; {@code seq} tells it from an earlier one of the same entity. */
  private record RestartEntity(String entityId, long seq) implements NoSerializationVerificationNeeded {}

  /** A restart that is due after a back-off, and its timer. */
  private record PendingRestart(RestartEntity message, Cancellable timer) {}

  private enum Tick implements NoSerializationVerificationNeeded { LOAD, WRITE, RECOVERY, IDLE }

  /** Store retries start here and double, up to {@link #STORE_RETRY_MAX}. */
  private static final Duration STORE_RETRY_FIRST = Duration.ofMillis(200);
  private static final Duration STORE_RETRY_MAX = Duration.ofSeconds(5);

  private final EntityTypeKey<Object> typeKey;
  private final String shardId;
  private final Function<EntityContext<Object>, Behavior<Object>> createBehavior;
  private final Object stopMessage;
  private final ShardingSettings settings;
  private final ActorRef<Object> region;
  /**
   * The shard schedules its few timed messages itself, rather than through a timer scheduler,
   * whose interceptor would wrap every message the shard receives, deliveries included.
   */
  private Cancellable idleTimer;
  private Cancellable recoveryTimer;
  private Cancellable retryTimer;
  private final Map<String, PendingRestart> pendingRestarts = new HashMap<>();
  private long restartSeq;
  private final EntityTable entities;
  private final DropReporter drops;
  private final ActorRef<ShardCommand> selfAsShard;
  private final RestartBackoff restarts;

  /** Null without remember-entities; then {@link #updates} is null too. */
  private final RememberEntitiesStore store;
  private final RememberedUpdates updates;
  /** Set while the store is read; messages wait meanwhile. */
  private boolean loading;
  /** Remembered entities that start with the coming recovery batches. */
  private final ArrayDeque<String> recovering = new ArrayDeque<>();
  /** Entities passivated on request (or automatically): forgotten by the store once stopped. */
  private final Set<String> passivatedOnRequest = new HashSet<>();
  /** Remembered entities stopped by a hand-off; they start again if the hand-off is cancelled. */
  private final Set<String> stoppedByHandOff = new HashSet<>();
  private int loadFailures;
  private int writeFailures;

  /** Null without automatic passivation. */
  private final EntityRecency recency;
  private final long idleNanos;
  /** This shard's share of the region's active-entity limit; MAX_VALUE without one. */
  private int limit;
  /** Entities waiting for room under the limit, oldest first. */
  private final ArrayDeque<String> waitingForRoom = new ArrayDeque<>();
  /** Set while the shard passivates down to a smaller share and the region waits to hear of it. */
  private boolean reportingLive;
  private long idlePassivations;
  private long limitPassivations;

  /** Set while handing off: every entity is stopped, and the shard stops when none is left. */
  private boolean handingOff;

  /** Entities start only while it is open; their mailboxes hold their messages while it is closed. */
  private final DeliveryGate gate;
  /** The shard waits for the gate to open: it starts the entities waiting for it then. */
  private boolean parkedOnGate;
  private final DeliveryGate.Parked gateWaker;
  private static final Props ENTITY_MAILBOX = MailboxSelector.fromConfig(GatedMailbox.CONFIG_PATH);

  private Shard(ActorContext<Object> context, RegionSpec spec, String shardId,
      ActorRef<Object> region, int entityLimit, DropReporter drops) {
    super(context);
    this.typeKey = spec.typeKey();
    this.shardId = shardId;
    this.createBehavior = spec.createBehavior().orElseThrow();
    this.stopMessage = spec.stopMessage().orElse(null);
    this.settings = spec.settings();
    this.region = region;
    this.entities = new EntityTable(settings.bufferSize());
    this.drops = drops;
    this.selfAsShard = context.getSelf().narrow();
    this.restarts = new RestartBackoff(settings.entityRestartBackoff(), settings.entityRestartBackoffMax());
    this.limit = entityLimit;
    this.gate = NodeGate.get(context.getSystem()).gate();
    ActorRef<Object> self = context.getSelf();
    this.gateWaker = () -> self.tell(GateOpened.INSTANCE);
    boolean automatic = settings.passivationIdleTimeout().isPresent() || settings.activeEntityLimit().isPresent();
    this.recency = automatic ? new EntityRecency() : null;
    this.idleNanos = settings.passivationIdleTimeout().map(Duration::toNanos).orElse(0L);
    if (settings.passivationIdleTimeout().isPresent()) {
      idleTimer = after(idleCheckInterval(settings.passivationIdleTimeout().get()), Tick.IDLE);
    }
    if (spec.rememberEntities().isPresent()) {
      this.store = spec.rememberEntities().get().create(context.getSystem(), typeKey.name(), shardId, settings);
      this.updates = new RememberedUpdates();
      this.loading = true;
      load();
    } else {
      this.store = null;
      this.updates = null;
    }
  }

  /**
   * @param region the region that hosts the shard; it hears of the live count when the limit shrinks
   * @param entityLimit the shard's share of the active-entity limit; {@code Integer.MAX_VALUE} for none
   */
  public static Behavior<Object> create(RegionSpec spec, String shardId, ActorRef<Object> region, int entityLimit,
      DropReporter drops) {
    return Behaviors.setup(ctx -> new Shard(ctx, spec, shardId, region, entityLimit, drops));
  }

  /** Often enough that an idle entity goes within a quarter of the timeout after it expired. */
  static Duration idleCheckInterval(Duration idleTimeout) {
    Duration quarter = idleTimeout.dividedBy(4);
    return quarter.compareTo(Duration.ofMillis(10)) < 0 ? Duration.ofMillis(10)
        : quarter.compareTo(Duration.ofSeconds(1)) > 0 ? Duration.ofSeconds(1) : quarter;
  }

  @Override
  public Receive<Object> createReceive() {
    return newReceiveBuilder()
        .onMessage(Deliver.class, this::onDeliver)
        .onMessage(Passivate.class, this::onPassivate)
        .onSignal(Terminated.class, this::onEntityTerminated)
        .onMessage(RestartEntity.class, this::onRestartEntity)
        .onMessage(Loaded.class, this::onLoaded)
        .onMessage(LoadFailed.class, this::onLoadFailed)
        .onMessage(Written.class, this::onWritten)
        .onMessage(WriteFailed.class, this::onWriteFailed)
        .onMessageEquals(Tick.LOAD, this::onLoadTick)
        .onMessageEquals(Tick.WRITE, this::onWriteTick)
        .onMessageEquals(Tick.RECOVERY, this::onRecoveryTick)
        .onMessageEquals(Tick.IDLE, this::onIdleTick)
        .onMessage(EntityLimit.class, this::onEntityLimit)
        .onMessage(GetShardState.class, this::onGetShardState)
        .onMessageEquals(HandOff.INSTANCE, this::onHandOff)
        .onMessageEquals(CancelHandOff.INSTANCE, this::onCancelHandOff)
        .onMessageEquals(GateOpened.INSTANCE, this::onGateOpened)
        .onSignal(PostStop.class, s -> onPostStop())
        .build();
  }

  // ---- delivery

  private Behavior<Object> onDeliver(Deliver d) {
    String entityId = d.entityId();
    org.apache.pekko.actor.ActorRef entity = entities.active(entityId);
    if (entity != null) {
      if (recency != null) {
        recency.touch(entityId, System.nanoTime());
      }
      entity.tell(d.message(), org.apache.pekko.actor.ActorRef.noSender());
      return this;
    }
    Status status = entities.status(entityId);
    if (status == null && store == null && limit == Integer.MAX_VALUE) {
      // The common case, kept free of holding and draining.
      startEntity(entityId, List.of(d.message()));
      return this;
    }
    if (!entities.hold(entityId, d.message())) {
      drops.dropped(d.message(), "buffer full while entity [" + entityId + "] of shard [" + shardId
          + "] waits to start or passivates", Adapter.toClassic(getContext().getSelf()));
      return this;
    }
    if (status == null) {
      if (loading) {
        entities.waiting(entityId, Wait.LOADING);
      } else if (store != null) {
        entities.waiting(entityId, Wait.STORE);
        updates.started(entityId);
        flush();
      } else {
        admit(entityId);
      }
    } else if (entities.waitingFor(entityId) == Wait.RECOVERY) {
      // Remembered already: it need not wait for its recovery batch.
      admit(entityId);
    }
    return this;
  }

  /** Starts an entity whose start is allowed, now if the limit leaves room, else when it does. */
  private void admit(String entityId) {
    if (entities.size() < limit || handingOff) {
      startEntity(entityId, entities.takeHeld(entityId));
    } else {
      entities.waiting(entityId, Wait.SLOT);
      waitingForRoom.add(entityId);
      makeRoom();
    }
  }

  /** Passivates the least recently used entities so that those waiting for room will fit. */
  private void makeRoom() {
    int keep = Math.max(0, limit - waitingForRoom.size());
    for (String entityId : recency.beyond(keep)) {
      limitPassivations++;
      passivate(entityId);
    }
  }

  /**
   * Starts entities waiting for room while the limit allows; if some still wait, the least
   * recently used (perhaps just started, once they have had their messages) make room for them.
   */
  private void fillRoom() {
    while (!waitingForRoom.isEmpty() && (entities.size() < limit || handingOff)) {
      String entityId = waitingForRoom.poll();
      if (entities.waitingFor(entityId) == Wait.SLOT) {
        startEntity(entityId, entities.takeHeld(entityId));
      }
    }
    if (!waitingForRoom.isEmpty()) {
      makeRoom();
    }
  }

  /**
   * Starts one incarnation and gives it {@code messages}; during a hand-off it is stopped right
   * after them. A behavior factory that fails is logged and the messages dropped; a remembered
   * entity then tries again after its back-off.
   */
  private void startEntity(String entityId, List<Object> messages) {
    if (!gate.isOpen()) {
      waitForGate(entityId, messages);
      return;
    }
    Behavior<Object> behavior;
    try {
      behavior = createBehavior.apply(new EntityContext<>(typeKey, entityId, selfAsShard));
      if (behavior == null) {
        throw new IllegalStateException("the behavior factory returned null");
      }
    } catch (RuntimeException e) {
      getContext().getLog().error("Entity type [{}]: creating entity [{}] in shard [{}] failed", typeKey.name(),
          entityId, shardId, e);
      messages.forEach(m -> drops.dropped(m, "entity [" + entityId + "] could not be created: " + e,
          Adapter.toClassic(getContext().getSelf())));
      entities.stopWaiting(entityId);
      if (store != null && !handingOff) {
        backOff(entityId, restarts.failed(entityId, System.nanoTime()));
      }
      return;
    }
    ActorRef<Object> spawned = getContext().spawn(behavior, EntityTable.actorName(entityId), ENTITY_MAILBOX);
    // A plain watch: the table finds the id from the ref's name, so nothing is kept per entity.
    getContext().watch(spawned);
    org.apache.pekko.actor.ActorRef ref = Adapter.toClassic(spawned);
    entities.started(entityId, ref);
    if (recency != null) {
      recency.touch(entityId, System.nanoTime());
    }
    messages.forEach(m -> ref.tell(m, org.apache.pekko.actor.ActorRef.noSender()));
    if (handingOff) {
      stop(entityId, ref);
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
            + "node to be confirmed a member", Adapter.toClassic(getContext().getSelf()));
      }
    }
    entities.waiting(entityId, Wait.GATE);
    if (!parkedOnGate) {
      parkedOnGate = true;
      if (!gate.park(gateWaker)) {
        gateWaker.wake();
      }
    }
  }

  private Behavior<Object> onGateOpened() {
    parkedOnGate = false;
    entities.waitingIds(Wait.GATE).forEach(this::admit);
    return this;
  }

  // ---- passivation

  private Behavior<Object> onPassivate(Passivate p) {
    String entityId = entities.idOf(Adapter.toClassic(p.entity()));
    if (entityId == null) {
      getContext().getLog().debug("Entity type [{}]: ignoring Passivate for {}, not an entity of shard [{}]",
          typeKey.name(), p.entity(), shardId);
    } else {
      passivate(entityId);
    }
    return this;
  }

  /**
   * Passivation asked for by the entity or decided by the shard: a remembered entity is forgotten.
   * That holds also when the entity is already stopping for a hand-off: it asked to go, so it must
   * not start again at the shard's next home (the shard stops only after writing that).
   */
  private void passivate(String entityId) {
    Status status = entities.status(entityId);
    if (status == Status.ACTIVE || status == Status.PASSIVATING) {
      if (store != null) {
        passivatedOnRequest.add(entityId);
      }
      if (status == Status.ACTIVE) {
        stop(entityId, entities.active(entityId));
      }
    }
  }

  /**
   * Stops an entity after what is already in its mailbox; messages for it are held meanwhile.
   * Without a stop message of the entity's own, a PoisonPill does it: it waits in the mailbox like
   * any message, and needs no wrapper around every entity's behavior (which would cost memory per
   * entity and a call per message).
   */
  private void stop(String entityId, org.apache.pekko.actor.ActorRef entity) {
    if (entities.passivating(entityId)) {
      if (recency != null) {
        recency.remove(entityId);
      }
      entity.tell(stopMessage != null ? stopMessage : PoisonPill.getInstance(),
          org.apache.pekko.actor.ActorRef.noSender());
    }
  }

  private Behavior<Object> onIdleTick() {
    for (String entityId : recency.idle(System.nanoTime(), idleNanos)) {
      idlePassivations++;
      passivate(entityId);
    }
    idleTimer = after(idleCheckInterval(settings.passivationIdleTimeout().get()), Tick.IDLE);
    return this;
  }

  private Cancellable after(Duration delay, Object message) {
    return getContext().scheduleOnce(delay, getContext().getSelf(), message);
  }

  private Behavior<Object> onEntityLimit(EntityLimit newLimit) {
    boolean shrinks = newLimit.limit() < limit;
    limit = newLimit.limit();
    if (shrinks) {
      makeRoom();
      reportingLive = true;
      reportLive();
    } else {
      fillRoom();
    }
    return this;
  }

  /** While passivating down to a smaller share, tells the region how many are still live. */
  private void reportLive() {
    if (reportingLive) {
      region.tell(new EntitiesLive(shardId, entities.size()));
      reportingLive = entities.size() > limit;
    }
  }

  // ---- entities that stopped

  private Behavior<Object> onEntityTerminated(Terminated terminated) {
    String entityId = entities.idOf(Adapter.toClassic(terminated.getRef()));
    if (entityId == null) {
      return this;
    }
    boolean passivated = entities.status(entityId) == Status.PASSIVATING;
    boolean onRequest = passivatedOnRequest.remove(entityId);
    List<Object> held = entities.stopped(entityId);
    if (recency != null) {
      recency.remove(entityId);
    }
    if (!held.isEmpty()) {
      // Messages came while it stopped: the next incarnation takes them, and stays remembered.
      held.forEach(m -> entities.hold(entityId, m));
      admit(entityId);
    } else if (passivated) {
      if (onRequest) {
        updates.stopped(entityId);
        flush();
      } else if (store != null && handingOff) {
        stoppedByHandOff.add(entityId);
      } else if (store != null) {
        // Stopped for a hand-off that was cancelled meanwhile: it is remembered, so it runs again.
        entities.waiting(entityId, Wait.RECOVERY);
        admit(entityId);
      }
    } else if (!handingOff && (store != null || terminated instanceof ChildFailed)) {
      int inARow = restarts.failed(entityId, System.nanoTime());
      if (terminated instanceof ChildFailed failed) {
        getContext().getLog().warn("Entity type [{}]: entity [{}] of shard [{}] failed ({} in a row): {}",
            typeKey.name(), entityId, shardId, inARow, String.valueOf(failed.getCause()));
      }
      backOff(entityId, inARow);
    }
    fillRoom();
    reportLive();
    return handingOff ? stopIfDone() : this;
  }

  /**
   * After the {@code inARow}-th unexpected stop: a remembered entity starts again after its
   * back-off; any other entity starts again with its next message, except one that keeps failing,
   * whose messages wait out a back-off (one shorter than a remembered entity's, since its first
   * failure costs nothing).
   */
  private void backOff(String entityId, int inARow) {
    Duration delay = restarts.delay(store != null ? inARow : inARow - 1);
    if (delay.isZero() && store == null) {
      return;
    }
    entities.waiting(entityId, Wait.BACKOFF);
    RestartEntity restart = new RestartEntity(entityId, ++restartSeq);
    PendingRestart earlier = pendingRestarts.put(entityId, new PendingRestart(restart, after(delay, restart)));
    if (earlier != null) {
      earlier.timer().cancel();
    }
    if (inARow > 1) {
      getContext().getLog().warn("Entity type [{}]: entity [{}] of shard [{}] stopped {} times in a row shortly "
          + "after starting; it starts again in {} ms, and its messages wait until then", typeKey.name(), entityId,
          shardId, inARow, delay.toMillis());
    } else {
      getContext().getLog().info("Entity type [{}]: remembered entity [{}] of shard [{}] stopped without "
          + "passivating; it starts again in {} ms", typeKey.name(), entityId, shardId, delay.toMillis());
    }
  }

  private Behavior<Object> onRestartEntity(RestartEntity restart) {
    String entityId = restart.entityId();
    PendingRestart pending = pendingRestarts.get(entityId);
    if (pending == null || !pending.message().equals(restart)) {
      return this; // An earlier back-off's, overtaken by a later one.
    }
    pendingRestarts.remove(entityId);
    if (entities.waitingFor(entityId) == Wait.BACKOFF) {
      if (store != null || entities.holds(entityId)) {
        admit(entityId);
      } else {
        entities.stopWaiting(entityId);
      }
    }
    return this;
  }

  // ---- remember-entities

  private void load() {
    getContext().pipeToSelf(store.load(), (ids, error) -> error == null ? new Loaded(ids) : new LoadFailed(error));
  }

  private Behavior<Object> onLoaded(Loaded loaded) {
    loading = false;
    loadFailures = 0;
    Set<String> remembered = loaded.entityIds();
    if (!remembered.isEmpty()) {
      getContext().getLog().info("Entity type [{}]: shard [{}] starts {} remembered entities{}", typeKey.name(),
          shardId, remembered.size(), settings.rememberEntitiesRecoveryBatch() == 0 ? ""
              : ", " + settings.rememberEntitiesRecoveryBatch() + " every "
                  + settings.rememberEntitiesRecoveryFrequency().toMillis() + " ms");
    }
    for (String entityId : entities.waitingIds(Wait.LOADING)) {
      if (remembered.contains(entityId)) {
        admit(entityId);
      } else {
        entities.waiting(entityId, Wait.STORE);
        updates.started(entityId);
      }
    }
    flush();
    if (!handingOff) {
      for (String entityId : remembered) {
        if (entities.status(entityId) == null) {
          entities.waiting(entityId, Wait.RECOVERY);
          recovering.add(entityId);
        }
      }
      if (settings.rememberEntitiesRecoveryBatch() == 0) {
        recoverNext(Integer.MAX_VALUE);
      } else if (!recovering.isEmpty()) {
        recoverNext(settings.rememberEntitiesRecoveryBatch());
      }
    }
    return handingOff ? stopIfDone() : this;
  }

  private Behavior<Object> onRecoveryTick() {
    recoveryTimer = null;
    recoverNext(settings.rememberEntitiesRecoveryBatch());
    return this;
  }

  private void recoverNext(int count) {
    for (int started = 0; started < count && !recovering.isEmpty(); ) {
      String entityId = recovering.poll();
      // One that got a message meanwhile has started already.
      if (entities.waitingFor(entityId) == Wait.RECOVERY) {
        admit(entityId);
        started++;
      }
    }
    if (!recovering.isEmpty() && recoveryTimer == null) {
      recoveryTimer = after(settings.rememberEntitiesRecoveryFrequency(), Tick.RECOVERY);
    }
  }

  private Behavior<Object> onLoadFailed(LoadFailed failed) {
    Duration retry = storeRetry(++loadFailures);
    getContext().getLog().warn("Entity type [{}]: shard [{}] could not read its remembered entities from {} ({}); "
        + "retrying in {} ms, its messages wait meanwhile", typeKey.name(), shardId, store.describe(),
        String.valueOf(failed.cause()), retry.toMillis());
    retryTimer = after(retry, Tick.LOAD);
    return this;
  }

  private Behavior<Object> onLoadTick() {
    load();
    return this;
  }

  /** Starts the next write if none is in flight. */
  private void flush() {
    Batch batch = updates.nextBatch();
    if (batch != null) {
      getContext().pipeToSelf(store.update(batch.started(), batch.stopped()),
          (ok, error) -> error == null ? new Written(batch) : new WriteFailed(batch, error));
    }
  }

  private Behavior<Object> onWritten(Written written) {
    updates.written();
    writeFailures = 0;
    for (String entityId : written.batch().started()) {
      if (entities.waitingFor(entityId) == Wait.STORE) {
        admit(entityId);
      }
    }
    flush();
    return handingOff ? stopIfDone() : this;
  }

  private Behavior<Object> onWriteFailed(WriteFailed failed) {
    updates.failed();
    Duration retry = storeRetry(++writeFailures);
    getContext().getLog().warn("Entity type [{}]: shard [{}] could not write {} remembered-entity change(s) to {} "
        + "({}); retrying in {} ms, new entities wait meanwhile", typeKey.name(), shardId, failed.batch().size(),
        store.describe(), String.valueOf(failed.cause()), retry.toMillis());
    retryTimer = after(retry, Tick.WRITE);
    return this;
  }

  private Behavior<Object> onWriteTick() {
    flush();
    return this;
  }

  private static Duration storeRetry(int failures) {
    Duration d = STORE_RETRY_FIRST.multipliedBy(1L << Math.min(failures - 1, 10));
    return d.compareTo(STORE_RETRY_MAX) > 0 ? STORE_RETRY_MAX : d;
  }

  // ---- hand-off

  private Behavior<Object> onHandOff() {
    handingOff = true;
    cancel(recoveryTimer);
    recoveryTimer = null;
    recovering.clear();
    // Remembered entities not started yet stay remembered and start at the next home.
    entities.waitingIds(Wait.RECOVERY).forEach(entities::stopWaiting);
    // Held messages were sent before the move: one incarnation takes them before the shard goes.
    for (String entityId : entities.waitingIds(Wait.BACKOFF)) {
      PendingRestart pending = pendingRestarts.remove(entityId);
      if (pending != null) {
        pending.timer().cancel();
      }
      if (entities.holds(entityId)) {
        startEntity(entityId, entities.takeHeld(entityId));
      } else {
        entities.stopWaiting(entityId);
      }
    }
    fillRoom();
    for (String entityId : entities.entityIds()) {
      org.apache.pekko.actor.ActorRef entity = entities.active(entityId);
      if (entity != null) {
        stop(entityId, entity);
      }
    }
    return stopIfDone();
  }

  private Behavior<Object> onCancelHandOff() {
    handingOff = false;
    for (String entityId : stoppedByHandOff) {
      if (entities.status(entityId) == null) {
        entities.waiting(entityId, Wait.RECOVERY);
        admit(entityId);
      }
    }
    stoppedByHandOff.clear();
    return this;
  }

  /**
   * The region sees the shard terminate after all its entities did and every change is written,
   * and reports the hand-off.
   */
  private Behavior<Object> stopIfDone() {
    boolean settled = updates == null || (updates.settled() && !loading);
    return entities.size() == 0 && entities.waitingCount() == 0 && settled ? Behaviors.stopped() : this;
  }

  private Behavior<Object> onPostStop() {
    cancel(idleTimer);
    cancel(recoveryTimer);
    cancel(retryTimer);
    pendingRestarts.values().forEach(p -> p.timer().cancel());
    if (store != null) {
      store.close();
    }
    return this;
  }

  private static void cancel(Cancellable timer) {
    if (timer != null) {
      timer.cancel();
    }
  }

  private Behavior<Object> onGetShardState(GetShardState get) {
    get.replyTo().tell(new ShardSnapshot(shardId, entities.entityIds(), idlePassivations, limitPassivations));
    return this;
  }
}
