package dev.shardkit.sharding.internal.region;

import dev.shardkit.sharding.internal.membership.ClusterChange;
import dev.shardkit.sharding.internal.membership.ClusterChanges;
import java.util.Optional;
import java.util.function.UnaryOperator;
import org.apache.pekko.actor.Address;
import org.apache.pekko.cluster.MemberStatus;
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
    return ClusterChanges.of(event).flatMap(change -> of(change, self));
  }

  /**
   * @param change a change of the cluster, as the machines see it
   * @param self this node's incarnation
   * @return empty if the change changes nothing for the held nodes
   */
  static Optional<Change> of(ClusterChange change, UniqueAddress self) {
    ClusterChange.Node member;
    Transition transition;
    if (change instanceof ClusterChange.ReachabilityChanged r) {
      member = r.node();
      transition = r.reachable() ? HeldNodes::reachable : HeldNodes::unreachable;
    } else if (change instanceof ClusterChange.MemberChanged m) {
      member = m.node();
      MemberStatus status = member.status();
      transition = status == MemberStatus.down() ? HeldNodes::downed
          : status == MemberStatus.joining() || status == MemberStatus.weaklyUp() || status == MemberStatus.up()
              ? HeldNodes::joined
          : null;
    } else {
      return Optional.empty();
    }
    if (transition == null || member.id().equals(self)) {
      return Optional.empty();
    }
    Address node = member.id().address();
    long uid = member.id().longUid();
    return Optional.of(new Change(node, held -> transition.apply(held, node, uid)));
  }
}
