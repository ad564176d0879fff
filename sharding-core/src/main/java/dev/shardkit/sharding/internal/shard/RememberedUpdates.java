package dev.shardkit.sharding.internal.shard;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The changes a shard still has to write to its remember-entities store. One write is in flight
 * at a time; every start and passivation that happens meanwhile waits for the next, so a burst of
 * new entities costs a few writes rather than one each. The latest change of an id wins: an
 * entity passivated and started again before its removal was written is written as started.
 * Owned by one shard; not thread-safe.
 */
final class RememberedUpdates {

  /**
   * One write: these entities started, those were passivated. An id is in at most one of the sets.
   * Each set iterates in the order its ids changed (not by a per-JVM hash seed, as {@code Set.copyOf}
   * would), so that what a shard does after a write replays alike in every JVM.
   */
  public record Batch(Set<String> started, Set<String> stopped) {
    public Batch {
      started = Collections.unmodifiableSet(new LinkedHashSet<>(started));
      stopped = Collections.unmodifiableSet(new LinkedHashSet<>(stopped));
    }

    public int size() {
      return started.size() + stopped.size();
    }
  }

  // id -> true if started, false if passivated; insertion order keeps writes predictable.
  private final Map<String, Boolean> pending = new LinkedHashMap<>();
  private Batch inFlight;

  /** The entity started and must be remembered. */
  public void started(String entityId) {
    pending.put(entityId, Boolean.TRUE);
  }

  /** The entity was passivated and must be forgotten. */
  public void stopped(String entityId) {
    pending.put(entityId, Boolean.FALSE);
  }

  /**
   * Takes everything pending as the next write.
   *
   * @return the batch to write now, or null if a write is in flight or nothing is pending
   */
  public @Nullable Batch nextBatch() {
    if (inFlight != null || pending.isEmpty()) {
      return null;
    }
    Set<String> started = new LinkedHashSet<>();
    Set<String> stopped = new LinkedHashSet<>();
    pending.forEach((id, start) -> (start ? started : stopped).add(id));
    pending.clear();
    inFlight = new Batch(started, stopped);
    return inFlight;
  }

  /**
   * The write in flight is durable.
   *
   * @return that batch
   * @throws IllegalStateException if no write is in flight
   */
  public Batch written() {
    Batch done = requireInFlight();
    inFlight = null;
    return done;
  }

  /**
   * The write in flight failed: its changes go back in front of what is pending, so the retry
   * writes them again together with anything newer (a newer change of the same id wins).
   *
   * @throws IllegalStateException if no write is in flight
   */
  public void failed() {
    Batch lost = requireInFlight();
    inFlight = null;
    Map<String, Boolean> merged = new LinkedHashMap<>();
    lost.started().forEach(id -> merged.put(id, Boolean.TRUE));
    lost.stopped().forEach(id -> merged.put(id, Boolean.FALSE));
    merged.putAll(pending);
    pending.clear();
    pending.putAll(merged);
  }

  private Batch requireInFlight() {
    if (inFlight == null) {
      throw new IllegalStateException("no remember-entities write is in flight");
    }
    return inFlight;
  }

  /**
   * The write in flight.
   *
   * @throws IllegalStateException if no write is in flight
   */
  public Batch inFlight() {
    return requireInFlight();
  }

  /** Whether a write is in flight. */
  public boolean writing() {
    return inFlight != null;
  }

  /** Whether nothing is in flight or pending: the store holds every change made so far. */
  public boolean settled() {
    return inFlight == null && pending.isEmpty();
  }
}
