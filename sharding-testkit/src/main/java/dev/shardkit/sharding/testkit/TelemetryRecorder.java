package dev.shardkit.sharding.testkit;

import dev.shardkit.sharding.spi.ShardingEvent;
import dev.shardkit.sharding.spi.ShardingTelemetry;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.apache.pekko.actor.typed.ActorSystem;

import static dev.shardkit.sharding.internal.util.Arguments.requireNonNull;

/**
 * A telemetry binding that keeps the {@link ShardingEvent}s of its actor system in memory, so
 * that a test can wait for what sharding reports ("a rebalance round of type T on node N") instead
 * of sleeping or matching log text. {@link TestCluster} names it in every system's
 * configuration; elsewhere add
 * {@code shardkit.sharding.telemetry.bindings = ["dev.shardkit.sharding.testkit.TelemetryRecorder"]}.
 *
 * <pre>{@code
 * TelemetryRecorder events = TelemetryRecorder.of(cluster.system(0));
 * ShardingEvent.RebalanceRound round = events.await(Duration.ofSeconds(30),
 *     ShardingEvent.RebalanceRound.class, r -> r.typeName().equals("Counter"));
 * }</pre>
 *
 * <p>It keeps the last {@value #CAPACITY} events; older ones are forgotten. Thread-safe.
 */
public final class TelemetryRecorder implements ShardingTelemetry {
  /** How many events a recorder keeps. */
  public static final int CAPACITY = 100_000;

  /**
   * By identity: an actor system equals every other of the same name (it is the reference to its
   * guardian, compared by path), and the systems of one {@link TestCluster} share their name.
   */
  private static final Map<ActorSystem<?>, TelemetryRecorder> RECORDERS =
      Collections.synchronizedMap(new IdentityHashMap<>());

  private final ArrayDeque<ShardingEvent> events = new ArrayDeque<>();

  /** Created by sharding, once per actor system that names it in its configuration. */
  public TelemetryRecorder(ActorSystem<?> system) {
    RECORDERS.put(system, this);
    system.getWhenTerminated().thenRun(() -> RECORDERS.remove(system));
  }

  /**
   * The recorder of {@code system}.
   *
   * @throws IllegalStateException if sharding has not started a type there yet, or its
   *     configuration does not name this binding
   */
  public static TelemetryRecorder of(ActorSystem<?> system) {
    TelemetryRecorder recorder = RECORDERS.get(requireNonNull(system, "TelemetryRecorder.of", "system"));
    if (recorder == null) {
      throw new IllegalStateException("no TelemetryRecorder for " + system + ": sharding has not started a type "
          + "there yet, or shardkit.sharding.telemetry.bindings does not name " + TelemetryRecorder.class.getName());
    }
    return recorder;
  }

  @Override
  public void onEvent(ShardingEvent event) {
    synchronized (events) {
      if (events.size() == CAPACITY) {
        events.removeFirst();
      }
      events.addLast(event);
    }
  }

  /** Every event kept, oldest first. */
  public List<ShardingEvent> events() {
    synchronized (events) {
      return List.copyOf(events);
    }
  }

  /** The events kept of one kind that {@code filter} accepts, oldest first. */
  public <E extends ShardingEvent> List<E> events(Class<E> kind, Predicate<? super E> filter) {
    List<E> found = new ArrayList<>();
    for (ShardingEvent e : events()) {
      if (kind.isInstance(e) && filter.test(kind.cast(e))) {
        found.add(kind.cast(e));
      }
    }
    return found;
  }

  /** The events kept of one kind about entity type {@code typeName}, oldest first. */
  public <E extends ShardingEvent.Typed> List<E> events(Class<E> kind, String typeName) {
    return events(kind, e -> e.typeName().equals(typeName));
  }

  /**
   * Waits until an event of {@code kind} that {@code filter} accepts was recorded (at once if one
   * was already) and returns the first.
   *
   * @throws AssertionError if none was within {@code max}
   */
  public <E extends ShardingEvent> E await(Duration max, Class<E> kind, Predicate<? super E> filter) {
    return awaitCount(max, 1, kind, filter).get(0);
  }

  /** Waits for an event of {@code kind} about entity type {@code typeName}; as {@link #await(Duration, Class, Predicate)}. */
  public <E extends ShardingEvent.Typed> E await(Duration max, Class<E> kind, String typeName) {
    return await(max, kind, e -> e.typeName().equals(typeName));
  }

  /**
   * Waits until at least {@code n} events of {@code kind} that {@code filter} accepts were
   * recorded, and returns all of them so far.
   *
   * @throws AssertionError if fewer were within {@code max}
   */
  public <E extends ShardingEvent> List<E> awaitCount(Duration max, int n, Class<E> kind,
      Predicate<? super E> filter) {
    TestCluster.await(max, () -> events(kind, filter).size() >= n,
        n + " " + kind.getSimpleName() + " event(s) (seen " + events(kind, filter).size() + ")");
    return events(kind, filter);
  }
}
