package dev.shardkit.sharding.internal;

import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.pekko.actor.ActorRef;

/**
 * A shard's entities: which ids are live, which are being passivated (their messages held until
 * they have stopped), which are waiting to start (their messages held until they may), and the
 * messages held for them. Owned by the shard actor; not thread-safe.
 *
 * <p>Entities are kept by their classic refs: the typed ref that {@code spawn} returns is a
 * wrapper object of its own, and a shard of a million entities would hold a million of them.
 */
final class EntityTable {
  /** The lifecycle of one entity the shard knows. */
  public enum Status { ACTIVE, PASSIVATING, WAITING }

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

  // Active and passivating entities share one map (one entry per entity); the few passivating
  // and waiting ones are also kept apart, in collections that are empty on the hot path.
  private final Map<String, ActorRef> live = new HashMap<>();
  private final Set<String> passivatingIds = new HashSet<>();
  private final Map<String, Wait> waiting = new HashMap<>();
  private final MessageBuffers<String> held;

  /** @param bufferLimit the most messages held over all passivating entities */
  public EntityTable(int bufferLimit) {
    this.held = new MessageBuffers<>(bufferLimit);
  }

  /** The live, active entity with this id, or null. */
  public ActorRef active(String entityId) {
    ActorRef ref = live.get(entityId);
    return ref == null || (!passivatingIds.isEmpty() && passivatingIds.contains(entityId)) ? null : ref;
  }

  /** The entity's status, or null if the shard does not know it. */
  public Status status(String entityId) {
    if (!live.containsKey(entityId)) {
      return waiting.containsKey(entityId) ? Status.WAITING : null;
    }
    return passivatingIds.contains(entityId) ? Status.PASSIVATING : Status.ACTIVE;
  }

  /** Why a waiting entity waits, or null if it is not waiting. */
  public Wait waitingFor(String entityId) {
    return waiting.isEmpty() ? null : waiting.get(entityId);
  }

  /**
   * Marks an entity that is not live as waiting to start, or changes why it waits.
   *
   * @throws IllegalStateException if the entity is live
   */
  public void waiting(String entityId, Wait why) {
    if (live.containsKey(entityId)) {
      throw new IllegalStateException("Entity [" + entityId + "] is live, it cannot wait to start");
    }
    waiting.put(entityId, why);
  }

  /**
   * Forgets a waiting entity that will not start after all.
   *
   * @return the messages held for it, oldest first
   */
  public List<Object> stopWaiting(String entityId) {
    waiting.remove(entityId);
    return held.drain(entityId);
  }

  /** The ids of the entities waiting for {@code why}. */
  public List<String> waitingIds(Wait why) {
    List<String> ids = new ArrayList<>();
    waiting.forEach((id, w) -> {
      if (w == why) {
        ids.add(id);
      }
    });
    return ids;
  }

  /** How many entities wait to start, for any reason. */
  public int waitingCount() {
    return waiting.size();
  }

  /**
   * The id of a live entity, or null if {@code ref} is not one. Entities are named after their ids
   * ({@link #actorName}), so no reverse map is kept per entity; a ref named otherwise is looked for
   * among all entities.
   */
  public String idOf(ActorRef ref) {
    try {
      String byName = URLDecoder.decode(ref.path().name(), StandardCharsets.UTF_8);
      if (ref.equals(live.get(byName))) {
        return byName;
      }
    } catch (IllegalArgumentException notEncoded) {
      // Not a name this table gave; look among all entities.
    }
    for (Map.Entry<String, ActorRef> e : live.entrySet()) {
      if (e.getValue().equals(ref)) {
        return e.getKey();
      }
    }
    return null;
  }

  /** The actor name of an entity: its id, URL-encoded (the same string when nothing needs encoding). */
  public static String actorName(String entityId) {
    return URLEncoder.encode(entityId, StandardCharsets.UTF_8);
  }

  /**
   * Records a started entity; it no longer waits. Its held messages stay held until
   * {@link #takeHeld} gives them to it.
   *
   * @throws IllegalStateException if an incarnation of it is live
   */
  public void started(String entityId, ActorRef ref) {
    if (live.containsKey(entityId)) {
      throw new IllegalStateException("Entity [" + entityId + "] is already live");
    }
    if (!waiting.isEmpty()) {
      waiting.remove(entityId);
    }
    live.put(entityId, ref);
  }

  /** Whether any message is held for the entity. */
  public boolean holds(String entityId) {
    return held.contains(entityId);
  }

  /** The messages held for an entity, oldest first; they are no longer held. */
  public List<Object> takeHeld(String entityId) {
    return held.drain(entityId);
  }

  /**
   * Marks a live entity as passivating.
   *
   * @return false if the entity is not live or already passivating
   */
  public boolean passivating(String entityId) {
    return live.containsKey(entityId) && passivatingIds.add(entityId);
  }

  /**
   * Holds a message for a passivating or waiting entity.
   *
   * @return false when the limit is reached
   */
  public boolean hold(String entityId, Object message) {
    return held.offer(entityId, message);
  }

  /**
   * Forgets a stopped entity.
   *
   * @return the messages held for it, oldest first, to give to its next incarnation
   */
  public List<Object> stopped(String entityId) {
    live.remove(entityId);
    passivatingIds.remove(entityId);
    return held.drain(entityId);
  }

  /** The ids of every live entity, active or passivating. */
  public Set<String> entityIds() {
    return Set.copyOf(live.keySet());
  }

  /** The ids of the passivating entities. */
  public Set<String> passivatingIds() {
    return Set.copyOf(passivatingIds);
  }

  /** How many entities are live, active or passivating. */
  public int size() {
    return live.size();
  }

  /** How many live entities are active (not passivating). */
  public int activeCount() {
    return live.size() - passivatingIds.size();
  }

  public int heldMessages() {
    return held.total();
  }
}
