package dev.shardkit.sharding.internal.util;

import dev.shardkit.sharding.internal.InternalApi;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Messages held per key (a shard without a known home, an entity being passivated) with one limit
 * over all keys, so that memory stays bounded whatever the traffic. Owned by one actor; not
 * thread-safe.
 *
 * @param <K> the key messages are held under
 */
@InternalApi
public final class MessageBuffers<K> {
  private final int limit;
  /** In the order keys first got a message: the machines that iterate the keys do so alike in every JVM. */
  private final Map<K, ArrayDeque<Object>> buffers = new LinkedHashMap<>();
  private int total;

  /** @param limit the most messages held over all keys; 0 holds none */
  public MessageBuffers(int limit) {
    if (limit < 0) {
      throw new IllegalArgumentException("buffer limit must not be negative, got " + limit);
    }
    this.limit = limit;
  }

  /**
   * Holds a message under a key, after those already held for it.
   *
   * @return false, holding nothing, when the limit is reached
   */
  public boolean offer(K key, Object message) {
    if (total >= limit) {
      return false;
    }
    buffers.computeIfAbsent(key, k -> new ArrayDeque<>()).addLast(message);
    total++;
    return true;
  }

  /**
   * Holds messages under a key ahead of those already held for it, whatever the limit: they were
   * admitted under a limit before (sent, and handed back when their destination went away), and
   * are older than anything held here since.
   */
  public void prepend(K key, List<Object> messages) {
    if (messages.isEmpty()) {
      return;
    }
    ArrayDeque<Object> held = buffers.computeIfAbsent(key, k -> new ArrayDeque<>());
    for (int i = messages.size() - 1; i >= 0; i--) {
      held.addFirst(messages.get(i));
    }
    total += messages.size();
  }

  /** Removes and returns what is held for a key, oldest first; empty if nothing. */
  public List<Object> drain(K key) {
    ArrayDeque<Object> held = buffers.remove(key);
    if (held == null) {
      return List.of();
    }
    total -= held.size();
    return List.copyOf(held);
  }

  /** Gives each message held for a key to {@code action}, oldest first, holding them still. */
  public void forEach(K key, Consumer<Object> action) {
    ArrayDeque<Object> messages = buffers.get(key);
    if (messages != null) {
      messages.forEach(action);
    }
  }

  /** How many messages are held for a key. */
  public int size(K key) {
    ArrayDeque<Object> held = buffers.get(key);
    return held == null ? 0 : held.size();
  }

  public boolean contains(K key) {
    return buffers.containsKey(key);
  }

  /**
   * The keys that have messages held, in the order they first got one (a {@code Set.copyOf} would
   * iterate in an order each JVM salts, and a region asks for homes in this order).
   */
  public Set<K> keys() {
    return Collections.unmodifiableSet(new LinkedHashSet<>(buffers.keySet()));
  }

  /** How many messages are held over all keys. */
  public int total() {
    return total;
  }

  public int limit() {
    return limit;
  }
}
