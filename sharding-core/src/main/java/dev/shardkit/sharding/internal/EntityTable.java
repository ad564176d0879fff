package dev.shardkit.sharding.internal;

import java.util.HashMap;
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

  private record Slot(ActorRef<Object> ref, Status status) {}

  private final Map<String, Slot> slots = new HashMap<>();
  private final Map<ActorRef<Object>, String> ids = new HashMap<>();
  private final MessageBuffers<String> held;

  /** @param bufferLimit the most messages held over all passivating entities */
  public EntityTable(int bufferLimit) {
    this.held = new MessageBuffers<>(bufferLimit);
  }

  /** The live, active entity with this id, or null. */
  public ActorRef<Object> active(String entityId) {
    Slot s = slots.get(entityId);
    return s != null && s.status == Status.ACTIVE ? s.ref : null;
  }

  public Status status(String entityId) {
    Slot s = slots.get(entityId);
    return s == null ? null : s.status;
  }

  public String idOf(ActorRef<?> ref) {
    return ids.get(ref);
  }

  public void started(String entityId, ActorRef<Object> ref) {
    if (slots.containsKey(entityId)) {
      throw new IllegalStateException("Entity [" + entityId + "] is already live");
    }
    slots.put(entityId, new Slot(ref, Status.ACTIVE));
    ids.put(ref, entityId);
  }

  /**
   * Marks a live entity as passivating.
   *
   * @return false if the entity is not live or already passivating
   */
  public boolean passivating(String entityId) {
    Slot s = slots.get(entityId);
    if (s == null || s.status != Status.ACTIVE) {
      return false;
    }
    slots.put(entityId, new Slot(s.ref, Status.PASSIVATING));
    return true;
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
    Slot s = slots.remove(entityId);
    if (s != null) {
      ids.remove(s.ref);
    }
    return held.drain(entityId);
  }

  /** The ids of every live entity, active or passivating. */
  public Set<String> entityIds() {
    return Set.copyOf(slots.keySet());
  }

  public int size() {
    return slots.size();
  }

  public int heldMessages() {
    return held.total();
  }
}
