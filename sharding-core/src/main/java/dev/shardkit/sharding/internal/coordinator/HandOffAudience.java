package dev.shardkit.sharding.internal.coordinator;

import java.util.LinkedHashSet;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Whom the coordinator tells of a hand-off, out of every registered region and proxy. Pure.
 *
 * <p>A region shutting down gracefully stops as soon as it hosts and holds nothing, and Pekko
 * tells no remote watcher that an actor of a node in coordinated shutdown stopped until that node
 * is removed from the cluster (Artery withholds the death-watch notification). Until then the
 * coordinator cannot see that the region is gone, so what it tells the region after the region's
 * last hand-off reaches a stopped actor: a dead letter on a node that is leaving, one per shard
 * moved. The two rules below leave such a region out where it needs nothing, rather than telling
 * it and hiding the dead letters.
 */
final class HandOffAudience {

  private HandOffAudience() {}

  /**
   * Who takes part in a hand-off ({@code BeginHandOff}, and a marker to the owner): every region
   * and proxy but a region that is shutting down and has nothing left ({@code hasShards} false: no
   * shard homed there, none being handed off from there). Such a region is about to stop; told,
   * it would be a dead letter, and the owner would wait for its marker until its node is removed.
   * Left out, whatever it still routes for the moving shard goes to the owner on the one path from
   * that region, behind what it sent before; the owner passes it to the shard until the shard
   * stops, then holds it and sends it on to the shard's next home, as it does its own callers'
   * messages. That region is not told the next home either ({@link #toldNewHome}), so it keeps
   * sending by way of the owner, and the order holds.
   *
   * @param everyone every registered region and proxy
   * @param shuttingDown the regions that asked to shut down gracefully
   * @param hasShards whether a region still has a shard homed there, or being handed off from there
   */
  static <R> Set<R> participants(Set<R> everyone, Set<R> shuttingDown, Predicate<R> hasShards) {
    Set<R> told = new LinkedHashSet<>();
    for (R r : everyone) {
      if (!shuttingDown.contains(r) || hasShards.test(r)) {
        told.add(r);
      }
    }
    return told;
  }

  /**
   * Who hears the next home of a shard whose hand-off ended: every region and proxy but the regions
   * shutting down, unless they asked for it. A region shutting down gets no shard, and routes to
   * one only for messages it holds, and for those it has asked where the shard lives (when the
   * hand-off began, when its own shard stopped, or when the first of them came), so the askers
   * are the only ones that need it. The others (the owner the shard just left, above all, which
   * stops as soon as its last shard has) would get it as a dead letter.
   *
   * @param everyone every registered region and proxy
   * @param shuttingDown the regions that asked to shut down gracefully
   * @param asked the regions that asked for the shard's home while it was handed off
   */
  static <R> Set<R> toldNewHome(Set<R> everyone, Set<R> shuttingDown, Set<R> asked) {
    Set<R> told = new LinkedHashSet<>();
    for (R r : everyone) {
      if (!shuttingDown.contains(r) || asked.contains(r)) {
        told.add(r);
      }
    }
    return told;
  }
}
