package dev.shardkit.sharding.internal;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.apache.pekko.actor.Address;

/**
 * The other nodes whose shards a region holds messages for instead of sending them: those it sees
 * unreachable, and those that have been downed. Immutable.
 *
 * <p>A node that becomes reachable again gets what was held for it, unless it was downed: a downed
 * node is on its way out of the cluster whether it can be reached or not (a frozen node can wake up
 * just after the others downed it), its shards are about to get new homes, and whatever it is sent
 * now would be lost with it. Those messages wait for the new homes instead.
 *
 * <p>Nodes are told apart by their incarnation (uid): a node that joins again at the address of one
 * that was held ends that one's entries, since an address is reused only after its old incarnation
 * has been removed.
 */
final class HeldNodes {

  public static final HeldNodes NONE = new HeldNodes(Map.of(), Map.of());

  /** Held address → the incarnation (uid) it is held for. */
  private final Map<Address, Long> unreachable;
  private final Map<Address, Long> downed;

  private HeldNodes(Map<Address, Long> unreachable, Map<Address, Long> downed) {
    this.unreachable = unreachable;
    this.downed = downed;
  }

  public HeldNodes unreachable(Address node, long uid) {
    return new HeldNodes(with(unreachable, node, uid), downed);
  }

  /** Reachable again: no longer held, unless it was downed. */
  public HeldNodes reachable(Address node, long uid) {
    return new HeldNodes(without(unreachable, node, uid), downed);
  }

  public HeldNodes downed(Address node, long uid) {
    return new HeldNodes(unreachable, with(downed, node, uid));
  }

  /** A member joined: an older incarnation held at its address is gone for good. */
  public HeldNodes joined(Address node, long uid) {
    return new HeldNodes(olderGone(unreachable, node, uid), olderGone(downed, node, uid));
  }

  /** The addresses whose shards are held. */
  public Set<Address> addresses() {
    if (downed.isEmpty()) {
      return unreachable.keySet();
    }
    Map<Address, Long> all = new HashMap<>(unreachable);
    all.putAll(downed);
    return all.keySet();
  }

  private static Map<Address, Long> with(Map<Address, Long> map, Address node, long uid) {
    Map<Address, Long> copy = new HashMap<>(map);
    copy.put(node, uid);
    return Map.copyOf(copy);
  }

  private static Map<Address, Long> without(Map<Address, Long> map, Address node, long uid) {
    Long held = map.get(node);
    if (held == null || held != uid) {
      return map;
    }
    Map<Address, Long> copy = new HashMap<>(map);
    copy.remove(node);
    return Map.copyOf(copy);
  }

  private static Map<Address, Long> olderGone(Map<Address, Long> map, Address node, long uid) {
    Long held = map.get(node);
    return held == null || held == uid ? map : without(map, node, held);
  }
}
