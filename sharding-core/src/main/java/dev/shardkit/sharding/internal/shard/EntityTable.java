package dev.shardkit.sharding.internal.shard;

import dev.shardkit.sharding.internal.util.MessageBuffers;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * A shard's entities, where each is in its life, and the messages held for those that are not
 * active: every decision about an entity's lifecycle, for the shard's machine
 * ({@link ShardMachine}). Owned by it; not thread-safe. Times are a monotonic clock's nanoseconds,
 * passed in.
 *
 * <p>An entity the table knows is in one {@link Status}: {@code WAITING} to start (and why, a
 * {@link Wait}), {@code STARTING} (its incarnation is being created: it counts as live, and is
 * active once {@link #started} says what it is), {@code ACTIVE}, {@code PASSIVATING} (told to stop,
 * or to be stopped as soon as it has started; its messages are held for its next incarnation), or
 * {@code HANDED_OFF} (remembered and stopped by the shard's hand-off). Every
 * change of state is one method here, which checks the state it starts from. A step that state
 * does not allow is a bug in the shard: it is refused with an {@link IllegalStateException} that
 * names the entity, its state and the step, and changes nothing, so that no second incarnation can
 * follow from it. The shard decides how a refusal is reported.
 *
 * <p>Shard-wide, the table knows the shard's share of the active-entity limit and whether the shard
 * is handing off. While it is, room is no object, every entity that starts is stopped right after
 * the messages held for it, and remembered entities that stop are left to the next home.
 *
 * <p>Methods that return ids "to admit" leave those entities waiting; the shard then admits each
 * ({@link #admit}).
 *
 * @param <E> what a live incarnation is to the shard: its classic actor ref in the shard actor (the
 *     typed ref that {@code spawn} returns is a wrapper object of its own, and a shard of a million
 *     entities would hold a million of them), a simulated entity in shardkit's simulation
 */
final class EntityTable<E> {
  /** Where an entity the shard knows is in its life. */
  public enum Status { WAITING, STARTING, ACTIVE, PASSIVATING, HANDED_OFF }

  /** Why an entity that is not live yet waits before it starts. */
  public enum Wait {
    /** The shard is still reading its remembered entities. */
    LOADING,
    /** Its start is being written to the remember-entities store. */
    STORE,
    /** The shard's share of the active-entity limit is used up. */
    SLOT,
    /** It stopped without passivating and starts again after a back-off. */
    BACKOFF,
    /** It is remembered and starts with the next recovery batch. */
    RECOVERY,
    /** The node's delivery gate is closed: the node may have been replaced elsewhere. */
    GATE
  }

  /** What the shard does with a message it just held for an entity that is not active. */
  public enum Arrival {
    /** Start the entity ({@link #admit}): nothing needs to happen first. */
    ADMIT,
    /** Write the new entity to the remember-entities store; it waits for that write. */
    REMEMBER_FIRST,
    /** Nothing: the entity waits or stops, and gets the message when it starts. */
    HOLD
  }

  /** What the shard does after an incarnation ended, or could not be created. */
  public enum Next {
    /** Messages came while it stopped: admit it again, its next incarnation takes them. */
    START_FOR_HELD,
    /** It is remembered and stopped for a hand-off that was cancelled meanwhile: admit it again. */
    START_REMEMBERED,
    /** It passivated: forget it in the remember-entities store. */
    FORGET,
    /** A remembered entity stopped by the hand-off: it starts at the shard's next home. */
    KEEP_FOR_NEXT_HOME,
    /** It waits out {@link AfterStop#delay}, then starts again ({@link #backoffsEnded}). */
    BACK_OFF,
    /** Nothing: it starts again with its next message, if any. */
    NONE
  }

  /**
   * The decision after an incarnation ended.
   *
   * @param failuresInARow how many times in a row it stopped without passivating, this time
   *     included; 0 when this stop does not count as one
   * @param delay the back-off; zero unless {@code next} is {@link Next#BACK_OFF}
   */
  public record AfterStop(Next next, int failuresInARow, Duration delay) {
    static AfterStop of(Next next) {
      return new AfterStop(next, 0, Duration.ZERO);
    }
  }

  /**
   * What reading the store decided.
   *
   * @param admit remembered entities that had messages waiting for the read: admit them now
   * @param remember new entities that had messages waiting: write them to the store first
   */
  public record Loaded(List<String> admit, List<String> remember) {}

  /**
   * What beginning a hand-off decided.
   *
   * @param stop active entities now passivating for the hand-off: send each its stop
   * @param start waiting entities with messages held for them, which may start now: start each,
   *     and {@link #started} will have it stopped right after them
   */
  public record HandOffPlan<E>(Map<String, E> stop, List<String> start) {}

  /** Why a live entity is being stopped. */
  private enum Stopping { REQUESTED, HAND_OFF }

  private final boolean remembering;
  private final RestartBackoff restarts;
  private final Function<E, String> idByName;
  // Active and passivating entities share one map (one entry per entity, the only per-entity cost
  // on the hot path); the few passivating, waiting and handed-off ones are also kept apart, in
  // collections that are empty on the hot path. A starting entity is in it with no value yet.
  private final Map<String, E> live = new HashMap<>();
  private final Map<String, Stopping> passivating = new HashMap<>();
  private final Map<String, Wait> waiting = new HashMap<>();
  /** The waiting ids by why they wait, each in the order it began to wait. */
  private final Map<Wait, LinkedHashSet<String>> queues = new EnumMap<>(Wait.class);
  /** When the back-off of each entity waiting for {@link Wait#BACKOFF} ends. */
  private final Map<String, Long> backoffUntil = new HashMap<>();
  private final Set<String> handedOff = new HashSet<>();
  private final MessageBuffers<String> held;
  private int limit = Integer.MAX_VALUE;
  private boolean handingOff;

  /**
   * @param bufferLimit the most messages held over all entities that are not active
   * @param remembering whether the entity type remembers its entities
   * @param restarts the back-off of entities that stop without passivating
   * @param idByName the id an incarnation's name says it was started for, or null: a hint, checked
   *     against the table, that spares a reverse map per entity ({@link #idOf})
   */
  public EntityTable(int bufferLimit, boolean remembering, RestartBackoff restarts, Function<E, @Nullable String> idByName) {
    this.held = new MessageBuffers<>(bufferLimit);
    this.remembering = remembering;
    this.restarts = restarts;
    this.idByName = idByName;
    for (Wait why : Wait.values()) {
      queues.put(why, new LinkedHashSet<>());
    }
  }

  // ---- what the table knows

  /** The live, active entity with this id, or null. */
  public E active(String entityId) {
    E ref = live.get(entityId);
    return ref == null || (!passivating.isEmpty() && passivating.containsKey(entityId)) ? null : ref;
  }

  /** The entity's status, or null if the shard does not know it. */
  public Status status(String entityId) {
    if (live.containsKey(entityId)) {
      return live.get(entityId) == null ? Status.STARTING
          : passivating.containsKey(entityId) ? Status.PASSIVATING : Status.ACTIVE;
    }
    if (waiting.containsKey(entityId)) {
      return Status.WAITING;
    }
    return handedOff.contains(entityId) ? Status.HANDED_OFF : null;
  }

  /** Why a waiting entity waits, or null if it is not waiting. */
  public Wait waitingFor(String entityId) {
    return waiting.isEmpty() ? null : waiting.get(entityId);
  }

  /** The ids of the entities waiting for {@code why}, in the order they began to wait. */
  public List<String> waitingIds(Wait why) {
    return List.copyOf(queues.get(why));
  }

  /**
   * The id of a live entity, or null if {@code entity} is not one. Entities are named after their
   * ids ({@link #actorName}), so no reverse map is kept per entity; one whose name says nothing is
   * looked for among all entities.
   */
  public @Nullable String idOf(E entity) {
    String byName = idByName.apply(entity);
    if (byName != null && entity.equals(live.get(byName))) {
      return byName;
    }
    for (Map.Entry<String, E> e : live.entrySet()) {
      if (entity.equals(e.getValue())) {
        return e.getKey();
      }
    }
    return null;
  }

  /** The actor name of an entity: its id, URL-encoded (the same string when nothing needs encoding). */
  public static String actorName(String entityId) {
    return URLEncoder.encode(entityId, StandardCharsets.UTF_8);
  }

  /** The id an actor named by {@link #actorName} was named for; null for a name it never gives. */
  public static @Nullable String idFromName(String actorName) {
    try {
      return URLDecoder.decode(actorName, StandardCharsets.UTF_8);
    } catch (IllegalArgumentException notEncoded) {
      return null;
    }
  }

  /** The ids of every live entity: starting, active or passivating. */
  public Set<String> entityIds() {
    return Set.copyOf(live.keySet());
  }

  /** How many entities are live: starting, active or passivating. */
  public int size() {
    return live.size();
  }

  public int heldMessages() {
    return held.total();
  }

  /**
   * Whether a new entity may start with its first message, without holding it: nothing has to be
   * written first and no limit has to be checked.
   */
  public boolean startsAtOnce() {
    return !remembering && limit == Integer.MAX_VALUE;
  }

  /** Whether more entities are live than the shard's share of the limit allows. */
  public boolean overLimit() {
    return live.size() > limit;
  }

  /** Whether no entity is live or waiting to start: a shard handing off may stop. */
  public boolean allStopped() {
    return live.isEmpty() && waiting.isEmpty();
  }

  /** When the earliest back-off ends; empty if no entity is backing off. */
  public OptionalLong nextBackoffEnd() {
    return backoffUntil.values().stream().mapToLong(Long::longValue).min();
  }

  // ---- messages

  /**
   * Holds a message for an entity that is not active (an active one gets its messages).
   *
   * @return false, holding nothing, when the limit is reached
   */
  public boolean hold(String entityId, Object message) {
    if (active(entityId) != null) {
      throw refused(entityId, "have a message held");
    }
    return held.offer(entityId, message);
  }

  /**
   * Every message held, per entity (in the order of their ids, so that the next incarnation starts
   * them alike in every JVM), each entity's oldest first; none is held afterwards. For a shard that
   * fails and hands them to its next incarnation.
   */
  public Map<String, List<Object>> takeAllHeld() {
    List<String> ids = new ArrayList<>(held.keys());
    Collections.sort(ids);
    Map<String, List<Object>> all = new LinkedHashMap<>();
    for (String entityId : ids) {
      all.put(entityId, held.drain(entityId));
    }
    return all;
  }

  /** Each message held, per entity in the order of their ids, each entity's oldest first. */
  public void forEachHeld(BiConsumer<String, Object> action) {
    List<String> ids = new ArrayList<>(held.keys());
    Collections.sort(ids);
    for (String entityId : ids) {
      held.forEach(entityId, message -> action.accept(entityId, message));
    }
  }

  /** Whether the shard is handing off: its entities are being stopped for good. */
  public boolean handingOff() {
    return handingOff;
  }

  /** The shard's share of the active-entity limit; {@code Integer.MAX_VALUE} for none. */
  public int limit() {
    return limit;
  }

  /** The messages held for an entity, oldest first; they are no longer held. */
  public List<Object> takeHeld(String entityId) {
    return held.drain(entityId);
  }

  /**
   * A message was just held ({@link #hold}) for an entity that is not active: a new entity (or a
   * handed-off one) is admitted, or, when entities are remembered, waits for its start to be
   * written; a remembered entity waiting for its recovery batch need not wait for it.
   */
  public Arrival arrived(String entityId) {
    Status status = status(entityId);
    if (status == null || status == Status.HANDED_OFF) {
      if (!remembering) {
        return Arrival.ADMIT;
      }
      handedOff.remove(entityId);
      setWaiting(entityId, Wait.STORE);
      return Arrival.REMEMBER_FIRST;
    }
    return switch (status) {
      case WAITING -> waiting.get(entityId) == Wait.RECOVERY ? Arrival.ADMIT : Arrival.HOLD;
      case PASSIVATING -> Arrival.HOLD;
      default -> throw refused(entityId, "have a message held");
    };
  }

  // ---- starting

  /** Unknown → waiting for the store to be read. */
  public void awaitLoad(String entityId) {
    if (status(entityId) != null) {
      throw refused(entityId, "wait for the store to be read");
    }
    setWaiting(entityId, Wait.LOADING);
  }

  /**
   * The store has been read. Entities that waited for it start if remembered, else wait for their
   * start to be written. Unless the shard is handing off (its next home starts them), the
   * remembered entities it does not know yet wait for their recovery batch ({@link #nextRecoveries}).
   */
  public Loaded loaded(Set<String> remembered) {
    List<String> admit = new ArrayList<>();
    List<String> remember = new ArrayList<>();
    for (String entityId : waitingIds(Wait.LOADING)) {
      if (remembered.contains(entityId)) {
        admit.add(entityId);
      } else {
        setWaiting(entityId, Wait.STORE);
        remember.add(entityId);
      }
    }
    if (!handingOff) {
      for (String entityId : remembered) {
        if (status(entityId) == null) {
          setWaiting(entityId, Wait.RECOVERY);
        }
      }
    }
    return new Loaded(admit, remember);
  }

  /** The next {@code count} remembered entities waiting for their recovery batch, to admit. */
  public List<String> nextRecoveries(int count) {
    return queues.get(Wait.RECOVERY).stream().limit(count).toList();
  }

  /** Whether remembered entities still wait for a recovery batch. */
  public boolean recovering() {
    return !queues.get(Wait.RECOVERY).isEmpty();
  }

  /** Which of the entities whose start was just written wait for that write, to admit. */
  public List<String> written(Collection<String> started) {
    return started.stream().filter(id -> waitingFor(id) == Wait.STORE).toList();
  }

  /**
   * An entity whose start is allowed (unknown, or waiting for anything but room): true if it may
   * start now; else it waits for room (the shard should passivate others, {@link #roomToKeep}).
   */
  public boolean admit(String entityId) {
    Wait why = waitingFor(entityId);
    if (live.containsKey(entityId) || why == Wait.SLOT || handedOff.contains(entityId)) {
      throw refused(entityId, "be admitted");
    }
    if (hasRoom()) {
      return true;
    }
    setWaiting(entityId, Wait.SLOT);
    return false;
  }

  /** The entity that waited longest for room, if there is room for it now; else null. Start it. */
  public String nextForRoom() {
    LinkedHashSet<String> slot = queues.get(Wait.SLOT);
    return slot.isEmpty() || !hasRoom() ? null : slot.iterator().next();
  }

  /** How many active entities may stay so that those waiting for room fit. */
  public int roomToKeep() {
    return Math.max(0, limit - queues.get(Wait.SLOT).size());
  }

  private boolean hasRoom() {
    return handingOff || live.size() < limit;
  }

  /** Unknown or waiting → waiting for the node's delivery gate to open. */
  public void awaitGate(String entityId) {
    requireStartable(entityId, "wait for the delivery gate");
    setWaiting(entityId, Wait.GATE);
  }

  /**
   * Unknown or waiting → starting: its incarnation is being created, with the messages held for it
   * (the shard {@linkplain #takeHeld takes} them first). It counts as live from now on, so that the
   * limit's room is kept for it; it is active once {@link #started}, or unknown again if it could not
   * start ({@link #notStarted}).
   *
   * @return true if the shard is handing off: the entity is passivating already, and is to be told
   *     to stop right after the messages it is given
   */
  public boolean starting(String entityId) {
    requireStartable(entityId, "start");
    clearWaiting(entityId);
    live.put(entityId, null);
    if (handingOff) {
      passivating.put(entityId, Stopping.HAND_OFF);
    }
    return handingOff;
  }

  /**
   * Starting → active (or passivating): the incarnation exists and has its messages.
   *
   * @return true if it is passivating already (the shard hands off, or it was chosen to make room
   *     while it started): tell it to stop, after those messages
   */
  public boolean started(String entityId, E entity) {
    requireStarting(entityId, "have started");
    live.put(entityId, entity);
    return passivating.containsKey(entityId);
  }

  /**
   * Starting → unknown: no incarnation was created (the node's delivery gate is closed, or the
   * behavior could not be created); whatever stop was decided for it meanwhile is moot.
   */
  public void notStarted(String entityId) {
    requireStarting(entityId, "fail to start");
    live.remove(entityId);
    passivating.remove(entityId);
  }

  /**
   * Unknown or waiting: its behavior could not be created. A remembered entity waits out its
   * back-off (unless the shard is handing off); any other is forgotten until its next message.
   */
  public AfterStop creationFailed(String entityId, long now) {
    requireStartable(entityId, "fail to start");
    clearWaiting(entityId);
    if (!remembering || handingOff) {
      return AfterStop.of(Next.NONE);
    }
    return backOff(entityId, restarts.failed(entityId, now), now);
  }

  // ---- stopping

  /**
   * Active (or starting) → passivating, because the entity asked or the shard decided. A remembered
   * entity is forgotten once it has stopped; that holds also for one already stopping for a
   * hand-off: it asked to go, so it must not start again at the shard's next home.
   *
   * @return true if the entity was active (tell it to stop) or starting (tell it once it has
   *     started, {@link #started})
   */
  public boolean passivate(String entityId) {
    if (!live.containsKey(entityId)) {
      throw refused(entityId, "passivate");
    }
    return passivating.put(entityId, Stopping.REQUESTED) == null;
  }

  /**
   * The decision when a live entity's incarnation has stopped, in this order:
   * <ol>
   *   <li>messages were held for it: its next incarnation takes them ({@link Next#START_FOR_HELD});
   *       it stays remembered;
   *   <li>it passivated: a remembered entity is forgotten ({@link Next#FORGET});
   *   <li>it was stopped for a hand-off: a remembered one is kept for the next home
   *       ({@link Next#KEEP_FOR_NEXT_HOME}, → {@code HANDED_OFF}), or, if the hand-off was
   *       cancelled meanwhile, starts again ({@link Next#START_REMEMBERED});
   *   <li>it stopped by itself while the shard runs: a remembered or failed entity counts a failure
   *       in a row and backs off ({@link Next#BACK_OFF}, → waiting); a failed one that is not
   *       remembered waits only from its second failure in a row (the next message restarts it).
   * </ol>
   * Otherwise nothing ({@link Next#NONE}); the entity is unknown from now on.
   *
   * @param failed whether it stopped with a failure
   */
  public AfterStop terminated(String entityId, boolean failed, long now) {
    if (!live.containsKey(entityId)) {
      throw refused(entityId, "have stopped");
    }
    live.remove(entityId);
    Stopping stopping = passivating.remove(entityId);
    if (held.contains(entityId)) {
      return AfterStop.of(Next.START_FOR_HELD);
    }
    if (stopping == Stopping.REQUESTED) {
      return AfterStop.of(remembering ? Next.FORGET : Next.NONE);
    }
    if (stopping == Stopping.HAND_OFF) {
      if (!remembering) {
        return AfterStop.of(Next.NONE);
      }
      if (handingOff) {
        handedOff.add(entityId);
        return AfterStop.of(Next.KEEP_FOR_NEXT_HOME);
      }
      setWaiting(entityId, Wait.RECOVERY);
      return AfterStop.of(Next.START_REMEMBERED);
    }
    if (handingOff || !(remembering || failed)) {
      return AfterStop.of(Next.NONE);
    }
    return backOff(entityId, restarts.failed(entityId, now), now);
  }

  /**
   * After the {@code inARow}-th unexpected stop: a remembered entity starts again after its
   * back-off; any other starts again with its next message, except one that keeps failing, whose
   * messages wait out a back-off (one shorter than a remembered entity's, since its first failure
   * costs nothing).
   */
  private AfterStop backOff(String entityId, int inARow, long now) {
    Duration delay = restarts.delay(remembering ? inARow : inARow - 1);
    if (delay.isZero() && !remembering) {
      return new AfterStop(Next.NONE, inARow, Duration.ZERO);
    }
    setWaiting(entityId, Wait.BACKOFF);
    backoffUntil.put(entityId, now + delay.toNanos());
    return new AfterStop(Next.BACK_OFF, inARow, delay);
  }

  /**
   * The back-offs that have ended at {@code now}: those entities to admit (remembered ones, and
   * others with messages held); the rest are forgotten until their next message.
   */
  public List<String> backoffsEnded(long now) {
    List<String> ended = new ArrayList<>();
    for (Iterator<Map.Entry<String, Long>> it = backoffUntil.entrySet().iterator(); it.hasNext(); ) {
      Map.Entry<String, Long> e = it.next();
      if (e.getValue() - now <= 0) {
        ended.add(e.getKey());
        it.remove();
      }
    }
    // In the order of their ids, not the hash map's: the order they start in is the machine's decision.
    Collections.sort(ended);
    List<String> admit = new ArrayList<>();
    for (String entityId : ended) {
      if (remembering || held.contains(entityId)) {
        admit.add(entityId);
      } else {
        clearWaiting(entityId);
      }
    }
    return admit;
  }

  // ---- the shard as a whole

  /**
   * The shard's share of the active-entity limit ({@code Integer.MAX_VALUE}: none).
   *
   * @return true if it shrank: the shard passivates down to it
   */
  public boolean limit(int newLimit) {
    boolean shrinks = newLimit < limit;
    limit = newLimit;
    return shrinks;
  }

  /**
   * The shard begins its hand-off. Active entities passivate for it. Remembered entities waiting
   * for their recovery batch are left to the next home (nothing is held for them: a message admits
   * such an entity at once). Entities waiting for a back-off start now if messages are held for
   * them, since those were sent before the move, and are forgotten otherwise; entities waiting for
   * room start now, room being no object any more. Entities waiting for the store or the delivery
   * gate go on waiting. Whatever starts from now on (or is starting) is stopped right after its
   * messages.
   *
   * @throws IllegalStateException if the shard is handing off already
   */
  public HandOffPlan<E> handOff() {
    if (handingOff) {
      throw new IllegalStateException("The shard is handing off already: it cannot begin another hand-off");
    }
    handingOff = true;
    waitingIds(Wait.RECOVERY).forEach(this::clearWaiting);
    List<String> start = new ArrayList<>();
    for (String entityId : waitingIds(Wait.BACKOFF)) {
      backoffUntil.remove(entityId);
      if (held.contains(entityId)) {
        start.add(entityId);
      } else {
        clearWaiting(entityId);
      }
    }
    start.addAll(queues.get(Wait.SLOT));
    // In the order of their ids, not the hash map's (a sort per hand-off, not a linked map per entity).
    List<String> liveIds = new ArrayList<>(live.keySet());
    Collections.sort(liveIds);
    Map<String, E> stop = new LinkedHashMap<>();
    for (String entityId : liveIds) {
      E ref = live.get(entityId);
      // One still starting is stopped once it has started (started says so).
      if (passivating.putIfAbsent(entityId, Stopping.HAND_OFF) == null && ref != null) {
        stop.put(entityId, ref);
      }
    }
    return new HandOffPlan<>(stop, start);
  }

  /**
   * The hand-off was given up and the shard keeps running: the remembered entities it stopped
   * wait for recovery again, to admit now. Those still stopping start again once they have
   * stopped ({@link #terminated}); others come back with their next message.
   *
   * @throws IllegalStateException if the shard is not handing off
   */
  public List<String> cancelHandOff() {
    if (!handingOff) {
      throw new IllegalStateException("The shard is not handing off: it cannot cancel a hand-off");
    }
    handingOff = false;
    List<String> recover = new ArrayList<>(handedOff);
    Collections.sort(recover); // not the hash set's order: they recover in this order
    handedOff.clear();
    recover.forEach(entityId -> setWaiting(entityId, Wait.RECOVERY));
    return recover;
  }

  // ---- checks and bookkeeping

  /**
   * Starting (or failing to) is allowed from unknown or waiting, not from live or handed off (a
   * handed-off entity first arrives again, {@link #arrived}). An id is in at most one of live,
   * waiting and handed off.
   */
  private void requireStartable(String entityId, String step) {
    if (live.containsKey(entityId) || handedOff.contains(entityId)) {
      throw refused(entityId, step);
    }
  }

  private void requireStarting(String entityId, String step) {
    if (!live.containsKey(entityId) || live.get(entityId) != null) {
      throw refused(entityId, step);
    }
  }

  private IllegalStateException refused(String entityId, String step) {
    Status status = status(entityId);
    String state = status == null ? "unknown"
        : status == Status.WAITING ? "WAITING (" + waiting.get(entityId) + ")"
        : status == Status.PASSIVATING || status == Status.STARTING && passivating.containsKey(entityId)
            ? status.name() + " (" + passivating.get(entityId) + ")"
        : status.name();
    return new IllegalStateException("Entity [" + entityId + "] is " + state + ": it cannot " + step);
  }

  private void setWaiting(String entityId, Wait why) {
    clearWaiting(entityId);
    waiting.put(entityId, why);
    queues.get(why).add(entityId);
  }

  private void clearWaiting(String entityId) {
    Wait before = waiting.remove(entityId);
    if (before != null) {
      queues.get(before).remove(entityId);
      if (before == Wait.BACKOFF) {
        backoffUntil.remove(entityId);
      }
    }
  }
}
