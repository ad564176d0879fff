package dev.shardkit.sharding.internal.coordinator;

import dev.shardkit.sharding.spi.CoordinatorEvent;
import dev.shardkit.sharding.spi.CoordinatorState;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.pekko.actor.typed.ActorRef;
import org.jspecify.annotations.Nullable;

/**
 * The coordinator's writes to its state store. Decisions take effect at once in
 * {@link #decided()}, so later decisions build on them, and are stored in batches: one write is in
 * flight at a time, and everything decided meanwhile forms the next one. What makes a decision
 * known (a reply, an announcement) waits until the write that holds it is stored, so nothing is
 * ever announced that the store does not hold; effects run in the order they were given. A failed
 * write stays in flight and is retried together with what was decided since. Owned by the
 * coordinator actor; not thread-safe.
 */
final class CoordinatorWrites {

  /**
   * One write.
   *
   * @param events what was decided since the last stored state, in order; applied to
   *     {@link #stored()} they give {@code after}
   * @param after the state once they are stored
   * @param afterwards what runs once they are stored
   */
  record Batch(List<CoordinatorEvent> events, CoordinatorState after, List<Runnable> afterwards) {
    Batch {
      events = List.copyOf(events);
      afterwards = List.copyOf(afterwards);
    }
  }

  /**
   * What to do now.
   *
   * @param write the batch to write now, or null
   * @param run effects whose decisions are all stored, to run now
   */
  record Next(@Nullable Batch write, List<Runnable> run) {}

  private CoordinatorState decided;
  private CoordinatorState stored;
  /** The write in flight, or failed and waiting to be retried; null when none is. */
  private @Nullable Batch inFlight;
  /** The shards the events of {@link #inFlight} name; empty when none is in flight. Looked up only. */
  private Set<String> inFlightShards = Set.of();
  private final List<CoordinatorEvent> queuedEvents = new ArrayList<>();
  private final List<Runnable> queuedAfterwards = new ArrayList<>();

  /** @param loaded the state the store loaded */
  CoordinatorWrites(CoordinatorState loaded) {
    this.decided = loaded;
    this.stored = loaded;
  }

  /** The state with every decision taken so far, stored or not. */
  CoordinatorState decided() {
    return decided;
  }

  /** The state the store has confirmed. */
  CoordinatorState stored() {
    return stored;
  }

  /**
   * The shard's home if it is stored and no decision about it waits to be stored; else null. A
   * write in flight that names the shard leaves it unsettled even if the write would leave its
   * home as it is: a write that failed without an answer (a lost reply, a timeout) may have been
   * stored, and its retry carries it together with what was decided since, so until that retry is
   * confirmed the store may hold the failed attempt's home.
   */
  @Nullable ActorRef<Object> settledHome(String shardId) {
    ActorRef<Object> home = stored.shards().get(shardId);
    if (home == null || !home.equals(decided.shards().get(shardId)) || inFlightShards.contains(shardId)) {
      return null;
    }
    return home;
  }

  /**
   * How many effects wait for a write to be stored: those of the write in flight and those queued
   * for the next one. Each is a closure kept in memory, so this is what grows while the store is
   * away if something queues an effect per retried request.
   */
  int waitingEffects() {
    return queuedAfterwards.size() + (inFlight == null ? 0 : inFlight.afterwards().size());
  }

  /** The events of the write in flight (or failed and waiting to be retried); empty if none is. */
  List<CoordinatorEvent> inFlightEvents() {
    return inFlight == null ? List.of() : inFlight.events();
  }

  /** Whether a write is in flight or decisions wait to be written. */
  boolean busy() {
    return inFlight != null || !queuedEvents.isEmpty();
  }

  /**
   * Takes decisions: they apply to {@link #decided()} now and go into the next write, and
   * {@code afterwards} runs once that write is stored (once everything decided so far is, if there
   * are no events). Call {@link #next()} then.
   *
   * @throws IllegalStateException if an event does not fit the decided state; nothing is taken then
   */
  void decide(List<CoordinatorEvent> events, Runnable afterwards) {
    CoordinatorState after = decided;
    for (CoordinatorEvent event : events) {
      after = after.applied(event);
    }
    decided = after;
    queuedEvents.addAll(events);
    queuedAfterwards.add(afterwards);
  }

  /**
   * What to do now: nothing while a write is in flight; else the queued decisions as the next
   * write, or, if none waits, the queued effects to run (their decisions are all stored).
   */
  Next next() {
    if (inFlight != null) {
      return new Next(null, List.of());
    }
    List<Runnable> afterwards = List.copyOf(queuedAfterwards);
    queuedAfterwards.clear();
    if (queuedEvents.isEmpty()) {
      return new Next(null, afterwards);
    }
    inFlight(new Batch(queuedEvents, decided, afterwards));
    queuedEvents.clear();
    return new Next(inFlight, List.of());
  }

  /**
   * The write in flight is stored. Call {@link #next()} after running the effects.
   *
   * @return its effects, to run now
   * @throws IllegalStateException if no write is in flight
   */
  List<Runnable> written() {
    Batch done = requireInFlight();
    inFlight(null);
    stored = done.after();
    return done.afterwards();
  }

  /**
   * The write in flight failed: it is written again, together with everything decided since.
   *
   * @return the write to retry now
   * @throws IllegalStateException if no write is in flight
   */
  Batch retry() {
    Batch failed = requireInFlight();
    List<CoordinatorEvent> events = new ArrayList<>(failed.events());
    events.addAll(queuedEvents);
    List<Runnable> afterwards = new ArrayList<>(failed.afterwards());
    afterwards.addAll(queuedAfterwards);
    queuedEvents.clear();
    queuedAfterwards.clear();
    inFlight(new Batch(events, decided, afterwards));
    return inFlight;
  }

  private void inFlight(Batch batch) {
    inFlight = batch;
    if (batch == null) {
      inFlightShards = Set.of();
      return;
    }
    Set<String> named = new HashSet<>();
    for (CoordinatorEvent event : batch.events()) {
      if (event instanceof CoordinatorEvent.ShardHomeAllocated allocated) {
        named.add(allocated.shardId());
      } else if (event instanceof CoordinatorEvent.ShardHomeDeallocated deallocated) {
        named.add(deallocated.shardId());
      }
    }
    inFlightShards = named;
  }

  private Batch requireInFlight() {
    if (inFlight == null) {
      throw new IllegalStateException("no coordinator write is in flight");
    }
    return inFlight;
  }
}
