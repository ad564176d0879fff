package dev.shardkit.sharding.internal.sim;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The remember-entities store of the simulated cluster: for each shard, the ids of its remembered
 * entities. It lives outside the nodes, as a database does: a write takes effect when it arrives,
 * whether or not the node that issued it is still there to hear the answer.
 *
 * <p>Each call takes a drawn latency (on some seeds a slow one, tens to hundreds of milliseconds).
 * A call fails while the coordinator's store is out or the caller is cut off from it (one database
 * for both), and at a per-seed rate: a failed read reads nothing; a failed write either did not
 * take effect or did and its answer was lost (a timeout), half and half. Answers go to the caller's
 * node, which hears them only if it still runs.
 */
final class SimRememberStore {

  /** What the store's latency and failures are on one seed. */
  record Behaviour(double minMillis, double maxMillis, double failRate) {
    static Behaviour draw(SimRng draw) {
      String s = "cluster.remember.store";
      boolean slow = draw.chance(s, 0.3);
      double failRate = draw.chance(s, 0.4) ? 0.1 : 0;
      return slow ? new Behaviour(20, 400, failRate) : new Behaviour(0.5, 5, failRate);
    }
  }

  private final CoordinatorOnlySim sim;
  private final Behaviour behaviour;
  private final Map<String, TreeSet<String>> entities = new TreeMap<>();

  SimRememberStore(CoordinatorOnlySim sim, Behaviour behaviour) {
    this.sim = sim;
    this.behaviour = behaviour;
  }

  /** Reads shard {@code shardId}'s remembered entities for node {@code node}. */
  void read(int node, String shardId, Consumer<Set<String>> read, Consumer<Throwable> failed) {
    call(node, "read of shard " + shardId, () -> remembered(shardId), read, failed);
  }

  /** Reads which shards have remembered entities, for a coordinator on node {@code node}. */
  void readShards(int node, Consumer<Set<String>> read, Consumer<Throwable> failed) {
    call(node, "read of the shards", this::shards, read, failed);
  }

  /** Writes that {@code started} entities of shard {@code shardId} are remembered, {@code stopped} not. */
  void update(int node, String shardId, Set<String> started, Set<String> stopped, Runnable written,
      Consumer<Throwable> failed) {
    long latency = latency();
    sim.after(latency, () -> {
      boolean fails = !sim.store.available(node) || sim.rng.chance("remember.store.fail", behaviour.failRate());
      if (fails && sim.rng.chance("remember.store.fail.applied", 0.5) || !fails) {
        TreeSet<String> ids = entities.computeIfAbsent(shardId, k -> new TreeSet<>());
        ids.addAll(started);
        ids.removeAll(stopped);
        if (ids.isEmpty()) {
          entities.remove(shardId);
        }
        sim.trace(node, "remember store", "shard " + shardId + " +" + started + " -" + stopped, fails
            ? List.of("applied, the answer lost") : List.of());
      }
      Runnable answer = fails ? () -> failed.accept(new TimeoutException("simulated remember-entities write failed"))
          : written;
      sim.after(node, 0, answer);
    });
  }

  /** Shard {@code shardId}'s remembered entities now. */
  Set<String> remembered(String shardId) {
    TreeSet<String> ids = entities.get(shardId);
    return ids == null ? Set.of() : Collections.unmodifiableSet(new TreeSet<>(ids));
  }

  /** The shards with remembered entities now, and their entities. */
  Map<String, TreeSet<String>> all() {
    return Collections.unmodifiableMap(entities);
  }

  private Set<String> shards() {
    return Collections.unmodifiableSet(new TreeSet<>(entities.keySet()));
  }

  /** A read: what the store holds when the call arrives, heard when the node runs (a frozen node hears it at thaw). */
  private void call(int node, String what, Supplier<Set<String>> snapshot, Consumer<Set<String>> read,
      Consumer<Throwable> failed) {
    sim.after(latency(), () -> {
      if (!sim.store.available(node) || sim.rng.chance("remember.store.fail", behaviour.failRate())) {
        sim.after(node, 0, () -> failed.accept(new TimeoutException("simulated remember-entities " + what + " failed")));
      } else {
        Set<String> held = snapshot.get();
        sim.after(node, 0, () -> read.accept(held));
      }
    });
  }

  private long latency() {
    return sim.rng.millis("remember.store.latency", behaviour.minMillis(), behaviour.maxMillis());
  }
}
