package dev.shardkit.sharding.internal;

import java.util.Optional;
import java.util.function.UnaryOperator;
import org.apache.pekko.actor.Address;
import org.apache.pekko.cluster.ClusterEvent.MemberDowned;
import org.apache.pekko.cluster.ClusterEvent.MemberEvent;
import org.apache.pekko.cluster.ClusterEvent.MemberJoined;
import org.apache.pekko.cluster.ClusterEvent.MemberUp;
import org.apache.pekko.cluster.ClusterEvent.MemberWeaklyUp;
import org.apache.pekko.cluster.ClusterEvent.ReachabilityEvent;
import org.apache.pekko.cluster.ClusterEvent.ReachableMember;
import org.apache.pekko.cluster.ClusterEvent.UnreachableMember;
import org.apache.pekko.cluster.Member;
import org.apache.pekko.cluster.UniqueAddress;

/**
 * What a cluster event about another node means for the nodes a region holds messages for
 * ({@link HeldNodes}): unreachable or downed, messages for its shards are held; reachable again,
 * they go on (unless it was downed); a node joining at a held address ends the holds of its old
 * incarnation. Events about this node, and every other member event, change nothing. Pure.
 */
final class NodeEvents {

  /** The held nodes change by {@code held}, because of an event about {@code node}. */
  record Change(Address node, UnaryOperator<HeldNodes> held) {}

  /** A transition of {@link HeldNodes} for one node's incarnation. */
  private interface Transition {
    HeldNodes apply(HeldNodes held, Address node, long uid);
  }

  private NodeEvents() {}

  /**
   * @param event a cluster event the region is subscribed to
   * @param self this node's incarnation
   * @return empty if the event changes nothing for the held nodes
   */
  static Optional<Change> of(Object event, UniqueAddress self) {
    Transition transition = event instanceof UnreachableMember ? HeldNodes::unreachable
        : event instanceof ReachableMember ? HeldNodes::reachable
        : event instanceof MemberDowned ? HeldNodes::downed
        : event instanceof MemberJoined || event instanceof MemberWeaklyUp || event instanceof MemberUp
            ? HeldNodes::joined
        : null;
    if (transition == null) {
      return Optional.empty();
    }
    Member member = event instanceof ReachabilityEvent r ? r.member() : ((MemberEvent) event).member();
    if (member.uniqueAddress().equals(self)) {
      return Optional.empty();
    }
    Address node = member.address();
    long uid = member.uniqueAddress().longUid();
    return Optional.of(new Change(node, held -> transition.apply(held, node, uid)));
  }
}
