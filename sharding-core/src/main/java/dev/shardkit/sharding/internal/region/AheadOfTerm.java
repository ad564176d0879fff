package dev.shardkit.sharding.internal.region;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a coordinator told a region at a term above the region's current one, kept until a
 * coordinator acknowledges the region at that term. A coordinator that has just taken over
 * announces itself by actor selection, which may reach the region after its direct messages; the
 * homes it sends to start shards with remembered entities are sent once and never again, so a
 * region that only refused them would leave those entities stopped until their next message.
 *
 * <p>Nothing held is acted on before its term's coordinator has acknowledged the region, so the
 * fence is not weakened: a message at a term no coordinator acknowledges at is never released. An
 * acknowledgement releases what was held at its term and forgets what was held below it (from
 * coordinators already replaced). At most {@code capacity} messages are held; beyond that, what
 * arrives is refused as before (a region asks again for a home it needs). Mutable state with no
 * other side effect, owned by one region's machine; not thread-safe.
 *
 * @param <M> the messages held
 */
final class AheadOfTerm<M> {

  private final int capacity;
  private final TreeMap<Long, List<M>> held = new TreeMap<>();
  private int size;

  /** @throws IllegalArgumentException if {@code capacity} is negative */
  AheadOfTerm(int capacity) {
    if (capacity < 0) {
      throw new IllegalArgumentException("capacity must be >= 0, got " + capacity);
    }
    this.capacity = capacity;
  }

  /**
   * Holds {@code message}, told at {@code term}, which is above the region's current term.
   *
   * @return false if it is not held, because {@code capacity} messages are held already
   */
  boolean hold(long term, M message) {
    if (size >= capacity) {
      return false;
    }
    held.computeIfAbsent(term, t -> new ArrayList<>()).add(message);
    size++;
    return true;
  }

  /**
   * A coordinator acknowledged the region at {@code term}: what was held at that term, in the
   * order it arrived. What was held below it is forgotten; what was held above it stays.
   */
  List<M> acknowledgedAt(long term) {
    Map<Long, List<M>> upTo = held.headMap(term, true);
    List<M> released = upTo.getOrDefault(term, List.of());
    upTo.values().forEach(messages -> size -= messages.size());
    upTo.clear();
    return released;
  }

  /** How many messages are held. */
  int size() {
    return size;
  }
}
