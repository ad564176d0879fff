package dev.shardkit.sharding.internal.region;

import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import org.apache.pekko.actor.Address;

/**
 * The other nodes whose shards a region holds messages for instead of sending them: those it sees
 * unreachable, those returning (seen reachable again, not yet confirmed), and those that have been
 * downed. Immutable.
 *
 * <p>A node seen reachable again is <em>returning</em>, not released: seeing it reachable does not
 * mean the cluster keeps it. The decision to down it may have been taken on a view older than this
 * one and not have reached this node yet, and a node back from a pause refuses batches until a
 * majority confirms it a member. What was held for it goes on only once it is {@link #confirmed}:
 * a link to it had a batch sent after its return acknowledged, which the node does only with its
 * delivery gate open. Released earlier, everything held for it would ride into the link's window
 * unacknowledged and be lost with it when the late Down removes it.
 *
 * <p>A downed node stays held whether it can be reached or not (a frozen node can wake up just
 * after the others downed it): its shards are about to get new homes, and whatever it is sent now
 * would be lost with it. Those messages wait for the new homes instead.
 *
 * <p>Nodes are told apart by their incarnation (uid): a node that joins again at the address of one
 * that was held ends that one's entries, since an address is reused only after its old incarnation
 * has been removed. The maps keep the order nodes were first held in, so that what is derived from
 * them is the same in every JVM.
 */
final class HeldNodes {

  public static final HeldNodes NONE = new HeldNodes(Map.of(), Map.of(), Map.of());

  /** Held address → the incarnation (uid) it is held for. */
  private final Map<Address, Long> unreachable;
  private final Map<Address, Long> returning;
  private final Map<Address, Long> downed;

  private HeldNodes(Map<Address, Long> unreachable, Map<Address, Long> returning, Map<Address, Long> downed) {
    this.unreachable = unreachable;
    this.returning = returning;
    this.downed = downed;
  }

  public HeldNodes unreachable(Address node, long uid) {
    return new HeldNodes(with(unreachable, node, uid), without(returning, node, uid), downed);
  }

  /**
   * Reachable again: returning, still held until {@link #confirmed}, if it was held as unreachable
   * and not downed; a node that was not held stays so.
   */
  public HeldNodes reachable(Address node, long uid) {
    Long held = unreachable.get(node);
    if (held == null || held != uid) {
      return this;
    }
    Map<Address, Long> back = downed.containsKey(node) ? returning : with(returning, node, uid);
    return new HeldNodes(without(unreachable, node, uid), back, downed);
  }

  /** A returning node acknowledged a batch sent after its return: no longer held (unless it was downed meanwhile). */
  public HeldNodes confirmed(Address node) {
    Long held = returning.get(node);
    return held == null ? this : new HeldNodes(unreachable, without(returning, node, held), downed);
  }

  public HeldNodes downed(Address node, long uid) {
    return new HeldNodes(unreachable, without(returning, node, uid), with(downed, node, uid));
  }

  /** A member joined: an older incarnation held at its address is gone for good. */
  public HeldNodes joined(Address node, long uid) {
    return new HeldNodes(olderGone(unreachable, node, uid), olderGone(returning, node, uid),
        olderGone(downed, node, uid));
  }

  /** Whether {@code node} is returning: seen reachable again, its shards held until it is confirmed. */
  public boolean isReturning(Address node) {
    return returning.containsKey(node);
  }

  /** Whether {@code node} was downed: held for good, until its incarnation is gone. */
  public boolean isDowned(Address node) {
    return downed.containsKey(node);
  }

  /** The addresses whose shards are held. */
  public Set<Address> addresses() {
    if (returning.isEmpty() && downed.isEmpty()) {
      return unreachable.keySet();
    }
    Set<Address> all = new LinkedHashSet<>(unreachable.keySet());
    all.addAll(returning.keySet());
    all.addAll(downed.keySet());
    return all;
  }

  private static Map<Address, Long> with(Map<Address, Long> map, Address node, long uid) {
    Map<Address, Long> copy = new LinkedHashMap<>(map);
    copy.put(node, uid);
    return java.util.Collections.unmodifiableMap(copy);
  }

  private static Map<Address, Long> without(Map<Address, Long> map, Address node, long uid) {
    Long held = map.get(node);
    if (held == null || held != uid) {
      return map;
    }
    Map<Address, Long> copy = new LinkedHashMap<>(map);
    copy.remove(node);
    return java.util.Collections.unmodifiableMap(copy);
  }

  private static Map<Address, Long> olderGone(Map<Address, Long> map, Address node, long uid) {
    Long held = map.get(node);
    return held == null || held == uid ? map : without(map, node, held);
  }
}
