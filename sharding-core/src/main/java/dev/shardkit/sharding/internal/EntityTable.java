package dev.shardkit.sharding.internal;

import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * A shard's entities: which ids are live, which are being passivated (their messages held until
 * they have stopped), and the messages held for them. Owned by the shard actor; not thread-safe.
 */
public final class EntityTable {
  /** The lifecycle of one live entity. */
  public enum Status { ACTIVE, PASSIVATING }

  // Active and passivating entities share one map (one entry per entity); the few passivating
  // ones are also in a set, which is empty on the hot path.
  private final Map<String, ActorRef<Object>> live = new HashMap<>();
  private final Set<String> passivatingIds = new HashSet<>();
  private final MessageBuffers<String> held;

  /** @param bufferLimit the most messages held over all passivating entities */
  public EntityTable(int bufferLimit) {
    this.held = new MessageBuffers<>(bufferLimit);
  }

  /** The live, active entity with this id, or null. */
  public ActorRef<Object> active(String entityId) {
    ActorRef<Object> ref = live.get(entityId);
    return ref == null || (!passivatingIds.isEmpty() && passivatingIds.contains(entityId)) ? null : ref;
  }

  public Status status(String entityId) {
    if (!live.containsKey(entityId)) {
      return null;
    }
    return passivatingIds.contains(entityId) ? Status.PASSIVATING : Status.ACTIVE;
  }

  /**
   * The id of a live entity, or null if {@code ref} is not one. Entities are named after their ids
   * ({@link #actorName}), so no reverse map is kept per entity; a ref named otherwise is looked for
   * among all entities.
   */
  public String idOf(ActorRef<?> ref) {
    try {
      String byName = URLDecoder.decode(ref.path().name(), StandardCharsets.UTF_8);
      if (ref.equals(live.get(byName))) {
        return byName;
      }
    } catch (IllegalArgumentException notEncoded) {
      // Not a name this table gave; look among all entities.
    }
    for (Map.Entry<String, ActorRef<Object>> e : live.entrySet()) {
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

  public void started(String entityId, ActorRef<Object> ref) {
    if (live.containsKey(entityId)) {
      throw new IllegalStateException("Entity [" + entityId + "] is already live");
    }
    live.put(entityId, ref);
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
   * Holds a message for a passivating entity.
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

  public int size() {
    return live.size();
  }

  public int heldMessages() {
    return held.total();
  }
}
