package dev.shardkit.sharding.internal.sim;

import dev.shardkit.sharding.spi.CoordinatorEvent;
import dev.shardkit.sharding.spi.CoordinatorState;
import dev.shardkit.sharding.spi.CoordinatorStateSupersededException;
import dev.shardkit.sharding.spi.LoadedCoordinatorState;
import java.io.IOException;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * The coordinator's durable state, as a replicated store keeps it: one state for the cluster and
 * a term that every load raises, so that a write by a coordinator that loaded before the last load
 * is refused as superseded. Calls answer after a drawn latency; during an outage, or from a node
 * cut off from the majority, they fail without effect; a write's reply may be lost after the write
 * was done (the caller sees a failure and writes again: a write sets the whole state, so doing it
 * twice is harmless). It checks, on every write done, that each shard has at most one home, and it
 * keeps every home stored at each term, for the regions' fencing check.
 */
final class SimCoordinatorStore {

  /** A home as a coordinator stored it at a term. */
  record StoredHome(long term, String shardId, ActorRef<Object> region) {}

  /** What the store sees of the simulation: whether a node reaches it now. */
  interface Reach {
    boolean reachesStore(int node);
  }

  private final SimScheduler scheduler;
  private final SimRng rng;
  private final Reach reach;
  private final double lostReplies;
  /** When replies stop being lost, in simulated nanoseconds. */
  private final long lostUntil;
  private CoordinatorState state = CoordinatorState.empty();
  private long term;
  private long outageUntil = -1;
  /** Each call's latency is drawn from these bounds, in milliseconds. */
  private double minMillis = 1;
  private double maxMillis = 50;
  private final Set<StoredHome> history = new HashSet<>();

  /**
   * @param lostReplies the share of writes whose reply is lost, until {@code lostUntil}: like every
   *     other fault, lost replies end with the scenario's faults, so that the calm tail ends with
   *     the coordinator's view confirmed (four lost in a row near the end, each retried after a
   *     longer back-off, outlasted the tail and failed the end's check with nothing wrong)
   */
  SimCoordinatorStore(SimScheduler scheduler, SimRng rng, Reach reach, double lostReplies, long lostUntil) {
    this.scheduler = scheduler;
    this.rng = rng;
    this.reach = reach;
    this.lostReplies = lostReplies;
    this.lostUntil = lostUntil;
  }

  /** Calls take 20 ms to 1 s, as a replicated store's do under load, instead of 1-50 ms. */
  void slow() {
    minMillis = 20;
    maxMillis = 1000;
  }

  /** One coordinator incarnation's use of the store: it writes at the term it loaded. */
  final class Handle {
    private final int node;
    private long loadedTerm = -1;

    Handle(int node) {
      this.node = node;
    }

    void load(Consumer<LoadedCoordinatorState> loaded, Consumer<Throwable> failed) {
      scheduler.after(rng.millis("store.latency", minMillis, maxMillis), () -> {
        if (!available(node)) {
          failed.accept(new IOException("store unavailable"));
          return;
        }
        loadedTerm = ++term;
        // What it loaded is what it knows as stored at its term.
        remember(state);
        loaded.accept(new LoadedCoordinatorState(loadedTerm, state));
      });
    }

    void store(List<CoordinatorEvent> events, CoordinatorState after, Runnable stored, Consumer<Throwable> failed) {
      scheduler.after(rng.millis("store.latency", minMillis, maxMillis), () -> {
        if (!available(node)) {
          failed.accept(new IOException("store unavailable"));
        } else if (loadedTerm < term) {
          failed.accept(new CoordinatorStateSupersededException("term " + loadedTerm + " superseded by " + term));
        } else {
          write(after);
          if (scheduler.now() < lostUntil && rng.chance("store.lost", lostReplies)) {
            scheduler.after(rng.millis("store.lost.after", 100, 1000),
                () -> failed.accept(new TimeoutException("reply lost")));
          } else {
            stored.run();
          }
        }
      });
    }
  }

  /** Whether node {@code node} reaches the store now (no outage, not cut off from it). */
  boolean available(int node) {
    return scheduler.now() >= outageUntil && reach.reachesStore(node);
  }

  private void write(CoordinatorState after) {
    int listed = 0;
    for (Map.Entry<ActorRef<Object>, List<String>> region : after.regions().entrySet()) {
      for (String shardId : region.getValue()) {
        listed++;
        ActorRef<Object> home = after.shards().get(shardId);
        if (!region.getKey().equals(home)) {
          throw new SimViolation("I1 one home per shard", "shard " + shardId + " is listed under " + region.getKey()
              + " but its home is " + home + " in " + after);
        }
      }
    }
    if (listed != after.shards().size()) {
      throw new SimViolation("I1 one home per shard", listed + " shard entries under regions, " + after.shards().size()
          + " homes in " + after);
    }
    state = after;
    remember(after);
  }

  private void remember(CoordinatorState stored) {
    for (Map.Entry<String, ActorRef<Object>> home : stored.shards().entrySet()) {
      history.add(new StoredHome(term, home.getKey(), home.getValue()));
    }
  }

  void outage(long nanos) {
    outageUntil = Math.max(outageUntil, scheduler.now() + nanos);
  }

  CoordinatorState state() {
    return state;
  }

  long term() {
    return term;
  }

  /** Whether a coordinator at {@code term} stored {@code region} as the home of {@code shardId}. */
  boolean stored(long atTerm, String shardId, ActorRef<Object> region) {
    return history.contains(new StoredHome(atTerm, shardId, region));
  }
}
