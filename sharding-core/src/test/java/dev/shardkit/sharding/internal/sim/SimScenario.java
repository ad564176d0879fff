package dev.shardkit.sharding.internal.sim;

import java.util.ArrayList;
import java.util.List;

/**
 * What one seed simulates: the cluster's size, the entity type's settings, the traffic, and a
 * timed list of actions (crashes, partitions, leaves, joins, store outages, bursts of traffic that
 * make regions unbalanced). Made from the seed alone; prints as one line.
 */
record SimScenario(long seed, int nodes, int knownShards, int askedShards, boolean tellsHomes, int rebalanceThreshold,
    long rebalanceIntervalMs, double trafficRate, double lostReplies, boolean storeOutsideCluster,
    List<Action> actions) {

  enum Kind { CRASH, PARTITION, LEAVE, JOIN, STORE_OUTAGE, BURST, FREEZE }

  /**
   * @param atMs when, from the start
   * @param onCoordinator whether a crash, partition or leave picks the coordinator's node
   * @param size how many nodes a partition cuts off
   * @param durationMs how long a partition, outage or burst lasts
   */
  record Action(long atMs, Kind kind, boolean onCoordinator, int size, long durationMs) {
    @Override
    public String toString() {
      return atMs + "ms:" + kind + (onCoordinator ? "(coordinator)" : "") + (size > 0 ? "x" + size : "")
          + (durationMs > 0 ? "/" + durationMs + "ms" : "");
    }
  }

  /**
   * The scenario of {@code seed}: 3–7 nodes, 0–6 actions within the first 30 s. With a store
   * outside the cluster and {@code zombies}, a node may be frozen for longer than it takes to down
   * it: a coordinator that thaws after its node was removed still reaches such a store (the
   * default; {@code -Dsim.zombies=false} gives the scenarios of the seeds found without them).
   */
  static SimScenario generate(long seed, boolean zombies) {
    SimRng rng = new SimRng(seed);
    String s = "scenario";
    int roll = rng.between(s, 0, 9);
    int nodes = roll < 4 ? 3 : roll < 7 ? 4 : roll < 9 ? 5 : rng.between(s, 6, 7);
    boolean upFront = rng.chance(s, 0.5);
    int knownShards = upFront ? rng.between(s, 8, 32) : 0;
    int asked = upFront ? knownShards : rng.between(s, 8, 32);
    boolean tellsHomes = upFront && rng.chance(s, 0.6);
    int threshold = rng.between(s, 1, 3);
    long interval = rng.between(s, 1, 4) * 1000L;
    double rate = 0.2 + rng.stream(s).nextDouble() * 0.6;
    double lost = rng.chance(s, 0.3) ? 0.05 : 0;
    // A database outside the cluster answers both sides of a partition; a replicated store only the majority.
    boolean outside = rng.chance(s, 0.5);
    int count = rng.between(s, 0, 6);
    List<Action> actions = new ArrayList<>();
    long at = 2000;
    for (int i = 0; i < count; i++) {
      at += rng.between(s, 500, 8000);
      Kind kind = Kind.values()[rng.between(s, 0, Kind.values().length - 1)];
      boolean onCoordinator = rng.chance(s, 0.4);
      int size = kind == Kind.PARTITION ? rng.between(s, 1, Math.max(1, (nodes - 1) / 2)) : 0;
      long duration = switch (kind) {
        case PARTITION -> rng.between(s, 500, 15_000);
        case STORE_OUTAGE -> rng.between(s, 300, 12_000);
        case BURST -> rng.between(s, 1000, 8000);
        case FREEZE -> outside && !zombies ? rng.between(s, 1000, 5000) : rng.between(s, 1000, 15_000);
        default -> 0;
      };
      actions.add(new Action(at, kind, onCoordinator, size, duration));
    }
    return new SimScenario(seed, nodes, knownShards, asked, tellsHomes, threshold, interval, rate, lost, outside,
        List.copyOf(actions));
  }

  /** The same scenario with other actions (a fault kind left out, or a shrunk list). */
  SimScenario withActions(List<Action> others) {
    return new SimScenario(seed, nodes, knownShards, askedShards, tellsHomes, rebalanceThreshold, rebalanceIntervalMs,
        trafficRate, lostReplies, storeOutsideCluster, List.copyOf(others));
  }

  /** When the last action ends. */
  long lastActionEndMs() {
    long end = 0;
    for (Action a : actions) {
      end = Math.max(end, a.atMs() + a.durationMs());
    }
    return end;
  }
}
