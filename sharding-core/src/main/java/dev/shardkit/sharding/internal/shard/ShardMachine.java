package dev.shardkit.sharding.internal.shard;

import dev.shardkit.sharding.internal.InternalApi;
import dev.shardkit.sharding.internal.machine.Backoff;
import dev.shardkit.sharding.internal.machine.EffectBuffer;
import dev.shardkit.sharding.internal.machine.Machine;
import dev.shardkit.sharding.internal.machine.TimerTable;
import dev.shardkit.sharding.internal.shard.EntityTable.AfterStop;
import dev.shardkit.sharding.internal.shard.EntityTable.HandOffPlan;
import dev.shardkit.sharding.internal.shard.EntityTable.Wait;
import dev.shardkit.sharding.internal.shard.ShardEffect.CancelTimer;
import dev.shardkit.sharding.internal.shard.ShardEffect.Drop;
import dev.shardkit.sharding.internal.shard.ShardEffect.ParkOnGate;
import dev.shardkit.sharding.internal.shard.ShardEffect.RememberLoad;
import dev.shardkit.sharding.internal.shard.ShardEffect.RememberUpdate;
import dev.shardkit.sharding.internal.shard.ShardEffect.ReplySnapshot;
import dev.shardkit.sharding.internal.shard.ShardEffect.Report;
import dev.shardkit.sharding.internal.shard.ShardEffect.StartEntity;
import dev.shardkit.sharding.internal.shard.ShardEffect.StartTimer;
import dev.shardkit.sharding.internal.shard.ShardEffect.StopEntity;
import dev.shardkit.sharding.internal.shard.ShardEffect.Stopped;
import dev.shardkit.sharding.internal.shard.ShardEffect.TellRegion;
import dev.shardkit.sharding.internal.shard.ShardEffect.ToEntity;
import dev.shardkit.sharding.internal.shard.ShardInput.CancelHandOff;
import dev.shardkit.sharding.internal.shard.ShardInput.Deliver;
import dev.shardkit.sharding.internal.shard.ShardInput.EntityCreationFailed;
import dev.shardkit.sharding.internal.shard.ShardInput.EntityLimit;
import dev.shardkit.sharding.internal.shard.ShardInput.EntityStartRefused;
import dev.shardkit.sharding.internal.shard.ShardInput.EntityStarted;
import dev.shardkit.sharding.internal.shard.ShardInput.EntityTerminated;
import dev.shardkit.sharding.internal.shard.ShardInput.GateOpened;
import dev.shardkit.sharding.internal.shard.ShardInput.GetShardState;
import dev.shardkit.sharding.internal.shard.ShardInput.HandOff;
import dev.shardkit.sharding.internal.shard.ShardInput.Passivate;
import dev.shardkit.sharding.internal.shard.ShardInput.RememberLoadFailed;
import dev.shardkit.sharding.internal.shard.ShardInput.RememberLoaded;
import dev.shardkit.sharding.internal.shard.ShardInput.RememberRefused;
import dev.shardkit.sharding.internal.shard.ShardInput.RememberWriteFailed;
import dev.shardkit.sharding.internal.shard.ShardInput.RememberWritten;
import dev.shardkit.sharding.internal.shard.ShardInput.Start;
import dev.shardkit.sharding.internal.shard.ShardInput.TimerFired;
import dev.shardkit.sharding.internal.shard.ShardNotice.BackingOff;
import dev.shardkit.sharding.internal.shard.ShardNotice.CreationFailed;
import dev.shardkit.sharding.internal.shard.ShardNotice.EntityFailed;
import dev.shardkit.sharding.internal.shard.ShardNotice.PassivateIgnored;
import dev.shardkit.sharding.internal.shard.ShardNotice.StartingRemembered;
import dev.shardkit.sharding.internal.shard.ShardNotice.StoreReadFailed;
import dev.shardkit.sharding.internal.shard.ShardNotice.StoreWriteFailed;
import dev.shardkit.sharding.internal.shard.ShardProtocol.EntitiesLive;
import dev.shardkit.sharding.internal.shard.ShardProtocol.ShardSnapshot;
import dev.shardkit.sharding.internal.util.ShardIds;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BiConsumer;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * A shard's control logic, as a deterministic machine ({@link Machine}): everything the shard
 * decides about its entities, their messages and its remember-entities store. Given one input at a
 * time ({@link ShardInput}) with the time, it answers with effects ({@link ShardEffect}); the shard
 * actor ({@link Shard}) and shardkit's simulation carry them out through a {@link ShardDriver}.
 *
 * <p>It decides:
 * <ul>
 *   <li><b>delivery</b>: a message for an active entity goes to it; one with an invalid id is
 *       dropped; an unknown entity starts with its first message, or (limit, remember-entities,
 *       store not read yet) its messages are held up to {@code buffer-size} over all entities, past
 *       which they are dropped. A message for an active entity needs no input at all: the fast lane
 *       {@link #activeFor} finds it without an effect, so delivery allocates nothing here;
 *   <li><b>starting</b> an entity ({@link ShardEffect.StartEntity}), answered at once: it counts as
 *       live while it starts; if the node's delivery gate is closed its messages wait (one
 *       {@link ShardEffect.ParkOnGate} until {@link ShardInput.GateOpened}); if its behavior cannot
 *       be created they are dropped and a remembered entity tries again after its back-off;
 *   <li><b>passivation</b>: when an entity asks, when it has been idle for
 *       {@code passivation.idle-timeout} (looked for every quarter of it), and to make room under
 *       the shard's share of the active-entity limit (the least recently used first, "make room"),
 *       starting waiting entities as room frees ("fill room"); what arrives for a passivating entity
 *       is held for its next incarnation;
 *   <li><b>the limit's share</b>: a smaller one passivates down to it, a larger one starts waiting
 *       entities; the shard reports how many entities are live after each share it hears and while
 *       it is over its share, so that the region grants freed room only once it is free;
 *   <li><b>restarts</b>: an entity that stops without passivating starts again after a back-off if
 *       remembered, or with its next message; one that keeps failing soon after starting is backed
 *       off, doubling ({@link EntityTable}, {@link RestartBackoff}); one timer for the earliest end;
 *   <li><b>remember-entities</b>: the store is read when the shard starts (new entities wait), the
 *       remembered entities start all at once or in batches at a steady rate, a new entity starts
 *       only once its start is written, a passivated one is forgotten; one write at a time, failed
 *       reads and writes retried with back-off, answers to other requests ignored
 *       ({@link RememberedStore});
 *   <li><b>hand-off</b>: every entity stops, those with held messages after one more incarnation
 *       that takes them; the shard stops ({@link ShardEffect.Stopped}) once the store has been read,
 *       no entity is live or waiting, and every change is written; a cancelled hand-off resumes;
 *   <li><b>a failed shard</b>'s carry-over ({@link #carryOver}): what it held, whether it was
 *       handing off, its share, for the next incarnation, which takes it before anything else.
 * </ul>
 *
 * <p>It reads no clock and no actor context; it iterates only insertion-ordered or sorted
 * collections (its table sorts what it keeps in hash maps before handing several entities over),
 * so a run replays alike everywhere.
 *
 * <p>Internal API: public for shardkit's simulation tests; not for applications, and it may change
 * in any release. Not thread-safe: one owner hands it its inputs.
 *
 * @param <E> what an entity's incarnation is: a classic actor ref in the shard actor, a simulated
 *     entity in the simulation
 */
@InternalApi
public final class ShardMachine<E> implements Machine<ShardInput<E>, ShardEffect<E>> {

  /** Where the shard is in its life. */
  public enum Phase {
    /** Not started yet: {@link ShardInput.Start} comes first. */
    NEW,
    /** Reading its remembered entities; new entities wait for that. */
    LOADING,
    /** Running. */
    RUNNING,
    /** Stopping every entity, then itself. */
    HANDING_OFF,
    /** Done: it handles nothing any more. */
    STOPPED
  }

  private final ShardConfig cfg;
  private final EntityTable<E> entities;
  private final Recency recency;
  private final long idleNanos;
  private final RememberedStore store;
  private final TimerTable<ShardTimer> timers;
  private final EffectBuffer<ShardEffect<E>> effects = new EffectBuffer<>();
  /** The failed incarnation's messages, until {@link Start} delivers them. */
  private Map<String, List<Object>> carriedOver;
  private final boolean carriedHandOff;
  private final int incarnation;
  private boolean begun;
  private boolean storeRead;
  private boolean stopped;
  /** Set while the shard waits to hear that the gate opened, so that it asks once. */
  private boolean parkedOnGate;
  /** A store request was refused while the gate was closed ({@link #storeRefused}): it goes out when it opens. */
  private boolean storeAwaitsGate;
  /** Set after a share is heard and while the shard passivates down to a smaller one: the region waits to hear. */
  private boolean reportingLive;
  /** How many {@link EntityLimit}s the shard actor has taken (its share at start is not one). */
  private int limitsHeard;
  private long idlePassivations;
  private long limitPassivations;
  /** The time of the input being handled. */
  private long now;

  /**
   * @param taken what the shard actor's previous incarnation left (see {@link ShardCarryOver})
   * @param idByName the id an entity's name says it was started for, or null: a hint the table
   *     checks, which spares it a reverse map per entity
   */
  public ShardMachine(ShardConfig cfg, ShardCarryOver.Taken taken, Function<E, @Nullable String> idByName) {
    this.cfg = cfg;
    this.entities = new EntityTable<>(cfg.bufferSize(), cfg.remembering(),
        new RestartBackoff(cfg.restartBackoff(), cfg.restartBackoffMax()), idByName);
    entities.limit(taken.entityLimit());
    this.recency = cfg.automaticPassivation() ? new EntityRecency() : Recency.OFF;
    this.idleNanos = cfg.idleTimeout().map(Duration::toNanos).orElse(0L);
    this.store = new RememberedStore(new Backoff(cfg.rememberRetry(), cfg.rememberRetryMax(), 2),
        taken.incarnation());
    this.carriedOver = taken.held();
    this.carriedHandOff = taken.handingOff();
    this.incarnation = taken.incarnation();
    // The actor and its mailbox outlive an incarnation that failed: a firing the one before
    // started may still be on its way, and must not be taken for this one's.
    this.timers = new TimerTable<>(taken.incarnation());
    this.limitsHeard = taken.limitsHeard();
    this.storeRead = !cfg.remembering();
  }

  // ---- the fast lane and queries

  /**
   * The fast lane of delivery: the active incarnation of {@code entityId}, its recency touched at
   * {@code now}; null if it is not active, and the message is then to be handed to
   * {@link #handle} as a {@link Deliver}. Allocates nothing (keeping recency, with automatic
   * passivation on, costs what it always did).
   *
   * @param now read from the clock only with automatic passivation on
   *     ({@link ShardConfig#automaticPassivation}); ignored otherwise
   */
  public @Nullable E activeFor(String entityId, long now) {
    E entity = entities.active(entityId);
    if (entity != null) {
      recency.touch(entityId, now);
    }
    return entity;
  }

  public Phase phase() {
    if (stopped) {
      return Phase.STOPPED;
    }
    if (!begun) {
      return Phase.NEW;
    }
    if (entities.handingOff()) {
      return Phase.HANDING_OFF;
    }
    return storeRead ? Phase.RUNNING : Phase.LOADING;
  }

  /** How many entities are live (starting, active or passivating). */
  public int liveEntities() {
    return entities.size();
  }

  /** How many messages are held, over all entities. */
  public int heldMessages() {
    return entities.heldMessages();
  }

  /** Each message held, with its entity's id: entities in the order of their ids, each one's oldest first. */
  public void forEachHeld(BiConsumer<String, Object> action) {
    entities.forEachHeld(action);
  }

  /**
   * What the next incarnation of a shard that failed starts with: the messages held here (taken
   * out: this machine holds none afterwards), with those of {@code unfinished} that no entity got
   * (the starts not carried out, the refused starts not handed back; see
   * {@link ShardDriver#unfinished}) in front of each entity's; whether it was handing off; its
   * share and the shares heard.
   */
  public ShardCarryOver.Taken carryOver(List<?> unfinished) {
    Map<String, List<Object>> held = entities.takeAllHeld();
    for (Object o : unfinished) {
      if (o instanceof StartEntity<?> start) {
        putFirst(held, start.entityId(), start.messages());
      } else if (o instanceof EntityStartRefused<?> refused) {
        putFirst(held, refused.entityId(), refused.messages());
      }
    }
    return new ShardCarryOver.Taken(held, entities.handingOff(), entities.limit(), limitsHeard, incarnation);
  }

  private static void putFirst(Map<String, List<Object>> held, String entityId, List<Object> messages) {
    if (messages.isEmpty()) {
      return;
    }
    List<Object> all = new ArrayList<>(messages);
    all.addAll(held.getOrDefault(entityId, List.of()));
    held.put(entityId, all);
  }

  // ---- inputs

  @Override
  public List<ShardEffect<E>> handle(ShardInput<E> input, long now) {
    effects.clear();
    if (stopped) {
      return effects.view();
    }
    this.now = now;
    if (!begun && !(input instanceof Start<E>)) {
      throw new IllegalStateException("Shard [" + cfg.shardId() + "] got " + input + " before it started");
    }
    decide(input);
    if (entities.handingOff() && storeRead && entities.allStopped() && store.settled()) {
      // The region sees it terminate after all its entities did and every change is written.
      stopped = true;
      effects.add(new Stopped<>());
    }
    return effects.view();
  }

  private void decide(ShardInput<E> input) {
    if (input instanceof Deliver<E> d) {
      receive(d.entityId(), List.of(d.message()));
    } else if (input instanceof EntityStarted<E> s) {
      started(s.entityId(), s.entity());
    } else if (input instanceof EntityTerminated<E> t) {
      terminated(t.entity(), t.failed(), t.cause());
    } else if (input instanceof Passivate<E> p) {
      passivateAsked(p.entity());
    } else if (input instanceof TimerFired<E> f) {
      timerFired(f.key(), f.generation());
    } else if (input instanceof RememberWritten<E> w) {
      written(w.batchId());
    } else if (input instanceof EntityStartRefused<E> r) {
      startRefused(r.entityId(), r.messages());
    } else if (input instanceof EntityCreationFailed<E> f) {
      creationFailed(f.entityId(), f.messages(), f.cause());
    } else if (input instanceof EntityLimit<E> l) {
      limitHeard(l.limit());
    } else if (input instanceof GateOpened<E>) {
      gateOpened();
    } else if (input instanceof RememberLoaded<E> l) {
      if (!storeRead && store.isReading(l.readId())) {
        loaded(l.entityIds());
      }
    } else if (input instanceof RememberLoadFailed<E> f) {
      if (store.isReading(f.readId())) {
        loadFailed(f.cause());
      }
    } else if (input instanceof RememberWriteFailed<E> f) {
      writeFailed(f.batchId(), f.cause());
    } else if (input instanceof RememberRefused<E> r) {
      storeRefused(r.requestId());
    } else if (input instanceof HandOff<E>) {
      handOff();
    } else if (input instanceof CancelHandOff<E>) {
      cancelHandOff();
    } else if (input instanceof GetShardState<E> g) {
      effects.add(new ReplySnapshot<>(g.replyTo(),
          new ShardSnapshot(cfg.shardId(), entities.entityIds(), idlePassivations, limitPassivations)));
    } else if (input instanceof Start<E>) {
      begin();
    } else {
      throw new IllegalArgumentException("Shard [" + cfg.shardId() + "] has no rule for " + input);
    }
  }

  /** The shard starts: the store is read, then what the failed incarnation held is delivered first. */
  private void begin() {
    if (begun) {
      throw new IllegalStateException("Shard [" + cfg.shardId() + "] started twice");
    }
    begun = true;
    cfg.idleTimeout().ifPresent(timeout -> startTimer(ShardTimer.IDLE, Recency.checkInterval(timeout)));
    if (!storeRead) {
      effects.add(new RememberLoad<>(store.read()));
    }
    Map<String, List<Object>> carried = carriedOver;
    carried.forEach(this::receive);
    carriedOver = null;
    if (carriedHandOff) {
      handOff();
    }
  }

  // ---- delivery

  /**
   * Messages for one entity, in order: to it if it is active; else it starts with them, or they are
   * held while it waits (to start, for the store, for room) or passivates.
   */
  private void receive(String entityId, List<Object> messages) {
    Optional<String> invalid = ShardIds.problem("entity id", entityId);
    if (invalid.isPresent()) {
      for (Object m : messages) {
        drop(m, "dropping a message for shard [" + cfg.shardId() + "]: " + invalid.get());
      }
      return;
    }
    E entity = entities.active(entityId);
    if (entity != null) {
      recency.touch(entityId, now);
      for (Object m : messages) {
        effects.add(new ToEntity<>(entity, m));
      }
      return;
    }
    boolean unknown = entities.status(entityId) == null;
    if (unknown && entities.startsAtOnce()) {
      // The common case, kept free of holding and draining.
      startEntity(entityId, messages);
      return;
    }
    boolean held = false;
    for (Object m : messages) {
      if (entities.hold(entityId, m)) {
        held = true;
      } else {
        drop(m, "buffer full while entity [" + entityId + "] of shard [" + cfg.shardId()
            + "] waits to start or passivates");
      }
    }
    if (!held) {
      return;
    }
    if (!storeRead) {
      if (unknown) {
        entities.awaitLoad(entityId);
      }
      return;
    }
    switch (entities.arrived(entityId)) {
      case ADMIT -> admit(entityId);
      case REMEMBER_FIRST -> {
        store.started(entityId);
        flush();
      }
      case HOLD -> { }
    }
  }

  /** Starts an entity whose start is allowed, now if the limit leaves room, else when it does. */
  private void admit(String entityId) {
    if (entities.admit(entityId)) {
      startEntity(entityId, entities.takeHeld(entityId));
    } else {
      makeRoom();
    }
  }

  /**
   * Starts one incarnation with {@code messages}. It counts as live at once (so the limit's room is
   * kept for it, and it may be chosen to make room); during a hand-off it is stopped right after
   * its messages.
   */
  private void startEntity(String entityId, List<Object> messages) {
    if (!entities.starting(entityId)) {
      recency.touch(entityId, now);
    }
    effects.add(new StartEntity<>(entityId, messages));
  }

  private void started(String entityId, E entity) {
    if (entities.started(entityId, entity)) {
      // The hand-off, or room for others, wants it stopped: after the messages it was given.
      recency.remove(entityId);
      effects.add(new StopEntity<>(entity));
    }
  }

  /**
   * The node's delivery gate is closed: the node may have been downed while it was not looking, and
   * the entity started elsewhere. It starts here only once the gate has opened, with its messages
   * first.
   */
  private void startRefused(String entityId, List<Object> messages) {
    entities.notStarted(entityId);
    recency.remove(entityId);
    for (Object m : messages) {
      if (!entities.hold(entityId, m)) {
        drop(m, "buffer full while entity [" + entityId + "] of shard [" + cfg.shardId() + "] waits for this "
            + "node to be confirmed a member");
      }
    }
    entities.awaitGate(entityId);
    if (!parkedOnGate) {
      parkedOnGate = true;
      effects.add(new ParkOnGate<>());
    }
    roomFreed();
  }

  /** A behavior factory that fails costs its messages; a remembered entity tries again after its back-off. */
  private void creationFailed(String entityId, List<Object> messages, Throwable cause) {
    entities.notStarted(entityId);
    recency.remove(entityId);
    report(new CreationFailed(cfg.typeName(), cfg.shardId(), entityId, cause));
    for (Object m : messages) {
      drop(m, "entity [" + entityId + "] could not be created: " + cause);
    }
    afterStop(entityId, entities.creationFailed(entityId, now));
    roomFreed();
  }

  private void gateOpened() {
    parkedOnGate = false;
    if (storeAwaitsGate) {
      storeAwaitsGate = false;
      if (!storeRead && !store.reading()) {
        effects.add(new RememberLoad<>(store.read()));
      }
      flush();
    }
    entities.waitingIds(Wait.GATE).forEach(this::admit);
  }

  /**
   * A read or write of the store did not go out: this node's delivery gate is closed. A node that
   * may have been removed meanwhile must not change what the store says (its shards may already
   * run elsewhere, started from what the store held), nor act on what it reads; the request goes
   * out again once the gate opens, and never if the node is out of the cluster.
   */
  private void storeRefused(long requestId) {
    if (store.readRefused(requestId) || store.writeRefused(requestId)) {
      storeAwaitsGate = true;
      if (!parkedOnGate) {
        parkedOnGate = true;
        effects.add(new ParkOnGate<>());
      }
    }
  }

  // ---- passivation and room

  private void passivateAsked(E entity) {
    String entityId = entities.idOf(entity);
    if (entityId == null) {
      report(new PassivateIgnored(cfg.typeName(), cfg.shardId(), entity));
    } else {
      passivate(entityId);
    }
  }

  /** Passivation asked for by a live entity or decided by the shard: it stops after what is in its mailbox. */
  private void passivate(String entityId) {
    E entity = entities.active(entityId);
    if (entities.passivate(entityId)) {
      recency.remove(entityId);
      // One still starting is told once it has started.
      if (entity != null) {
        effects.add(new StopEntity<>(entity));
      }
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

  /** An entity is no longer live: its room goes to one waiting, and the region hears if it waits to. */
  private void roomFreed() {
    fillRoom();
    reportLive();
  }

  private void idleCheck() {
    for (String entityId : recency.idle(idleNanos, now)) {
      idlePassivations++;
      passivate(entityId);
    }
    cfg.idleTimeout().ifPresent(timeout -> startTimer(ShardTimer.IDLE, Recency.checkInterval(timeout)));
  }

  private void limitHeard(int limit) {
    limitsHeard++;
    if (entities.limit(limit)) {
      makeRoom();
    } else {
      fillRoom();
    }
    // Every share heard is answered: the region takes back room only on a count made under the
    // share it told last.
    reportingLive = true;
    reportLive();
  }

  /** After a share is heard, and while passivating down to a smaller one: tells the region how many are live. */
  private void reportLive() {
    if (reportingLive) {
      effects.add(new TellRegion<>(new EntitiesLive(cfg.shardId(), entities.size(), limitsHeard)));
      reportingLive = entities.overLimit();
    }
  }

  // ---- entities that stopped

  private void terminated(E entity, boolean failed, Throwable cause) {
    String entityId = entities.idOf(entity);
    if (entityId == null) {
      return;
    }
    AfterStop after = entities.terminated(entityId, failed, now);
    recency.remove(entityId);
    if (failed && after.failuresInARow() > 0) {
      report(new EntityFailed(cfg.typeName(), cfg.shardId(), entityId, after.failuresInARow(), cause));
    }
    afterStop(entityId, after);
    roomFreed();
  }

  /** Carries out the table's decision after an incarnation ended or could not be created. */
  private void afterStop(String entityId, AfterStop after) {
    switch (after.next()) {
      case START_FOR_HELD, START_REMEMBERED -> admit(entityId);
      case FORGET -> {
        store.stopped(entityId);
        flush();
      }
      case BACK_OFF -> {
        report(new BackingOff(cfg.typeName(), cfg.shardId(), entityId, after.failuresInARow(), after.delay()));
        scheduleBackoffEnd();
      }
      case KEEP_FOR_NEXT_HOME, NONE -> { }
    }
  }

  /** One timer, for the earliest back-off to end. */
  private void scheduleBackoffEnd() {
    OptionalLong end = entities.nextBackoffEnd();
    if (end.isPresent()) {
      startTimer(ShardTimer.BACKOFF, Duration.ofNanos(Math.max(0, end.getAsLong() - now)));
    } else {
      cancelTimer(ShardTimer.BACKOFF);
    }
  }

  private void timerFired(ShardTimer key, long generation) {
    if (!timers.fired(key, generation)) {
      return;
    }
    switch (key) {
      case IDLE -> idleCheck();
      case RECOVERY -> recoverNext(cfg.recoveryBatch());
      case BACKOFF -> {
        entities.backoffsEnded(now).forEach(this::admit);
        scheduleBackoffEnd();
      }
      case RETRY_LOAD -> effects.add(new RememberLoad<>(store.read()));
      case RETRY_WRITE -> flush();
    }
  }

  // ---- remember-entities

  private void loaded(Set<String> remembered) {
    store.loaded();
    // Sorted: the store's set may iterate in a per-JVM order, and the order here is the order
    // entities start in.
    TreeSet<String> ids = new TreeSet<>(remembered);
    if (!ids.isEmpty()) {
      report(new StartingRemembered(cfg.typeName(), cfg.shardId(), ids.size(), cfg.recoveryBatch(),
          cfg.recoveryFrequency()));
    }
    EntityTable.Loaded decided = entities.loaded(ids);
    decided.admit().forEach(this::admit);
    decided.remember().forEach(store::started);
    flush();
    int batch = cfg.recoveryBatch();
    recoverNext(batch == 0 ? Integer.MAX_VALUE : batch);
    storeRead = true;
  }

  private void recoverNext(int count) {
    entities.nextRecoveries(count).forEach(this::admit);
    if (entities.recovering() && !timers.isRunning(ShardTimer.RECOVERY)) {
      startTimer(ShardTimer.RECOVERY, cfg.recoveryFrequency());
    }
  }

  private void loadFailed(Throwable cause) {
    Duration retry = store.loadFailed();
    report(new StoreReadFailed(cfg.typeName(), cfg.shardId(), cfg.storeDescription(), cause, retry));
    startTimer(ShardTimer.RETRY_LOAD, retry);
  }

  /** Starts the next write if none is in flight and the store is not waiting for the gate. */
  private void flush() {
    if (storeAwaitsGate) {
      return;
    }
    RememberedStore.Write write = store.flush();
    if (write != null) {
      effects.add(new RememberUpdate<>(write.id(), write.batch().started(), write.batch().stopped()));
    }
  }

  private void written(long batchId) {
    Set<String> started = store.written(batchId);
    if (started == null) {
      return; // the answer to another request, of a previous incarnation of the shard
    }
    flush();
    entities.written(started).forEach(this::admit);
  }

  private void writeFailed(long batchId, Throwable cause) {
    RememberedStore.Failure failure = store.writeFailed(batchId);
    if (failure == null) {
      return;
    }
    report(new StoreWriteFailed(cfg.typeName(), cfg.shardId(), failure.changes(), cfg.storeDescription(), cause,
        failure.retryIn()));
    startTimer(ShardTimer.RETRY_WRITE, failure.retryIn());
  }

  // ---- hand-off

  private void handOff() {
    if (entities.handingOff()) {
      return;
    }
    cancelTimer(ShardTimer.RECOVERY);
    cancelTimer(ShardTimer.BACKOFF);
    HandOffPlan<E> plan = entities.handOff();
    plan.stop().forEach((entityId, entity) -> {
      recency.remove(entityId);
      effects.add(new StopEntity<>(entity));
    });
    plan.start().forEach(entityId -> startEntity(entityId, entities.takeHeld(entityId)));
  }

  private void cancelHandOff() {
    if (entities.handingOff()) {
      entities.cancelHandOff().forEach(this::admit);
    }
  }

  // ---- effects

  private void startTimer(ShardTimer key, Duration delay) {
    effects.add(new StartTimer<>(key, timers.start(key), delay));
  }

  private void cancelTimer(ShardTimer key) {
    if (timers.isRunning(key)) {
      timers.cancel(key);
      effects.add(new CancelTimer<>(key));
    }
  }

  private void drop(Object message, String reason) {
    effects.add(new Drop<>(message, reason));
  }

  private void report(ShardNotice notice) {
    effects.add(new Report<>(notice));
  }
}
