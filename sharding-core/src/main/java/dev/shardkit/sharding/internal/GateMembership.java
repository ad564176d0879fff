package dev.shardkit.sharding.internal;

import dev.shardkit.sharding.internal.GateInput.Membership.Kind;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import org.apache.pekko.cluster.ClusterEvent;
import org.apache.pekko.cluster.Member;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.UniqueAddress;

/**
 * Turns Pekko's cluster events into the {@link GateMachine}'s {@link GateInput.Membership}: folds
 * them into this node's view of the cluster the way Pekko's own read view (behind
 * {@code Cluster.state()}) does, so the view after an event is the one the event brings, and says
 * what the event means for this node. Part of the keeper's shell: it translates, and decides
 * nothing.
 *
 * <p>Interim, until the one membership vocabulary of issue 27 ({@code ClusterChange}, folded by
 * {@code MembersFold}, which gives the same view) feeds the machine; then this class goes.
 */
final class GateMembership {
  private final UniqueAddress self;
  private final Map<UniqueAddress, Member> members = new LinkedHashMap<>();
  private final Set<UniqueAddress> unreachable = new LinkedHashSet<>();
  private MembershipCheck.Status selfStatus = MembershipCheck.Status.REMOVED;

  GateMembership(UniqueAddress self) {
    this.self = self;
  }

  /** The event folded in, as the machine's input; {@code reason} is coordinated shutdown's, now. */
  GateInput.Membership apply(ClusterEvent.ClusterDomainEvent event, Departure.ShutdownReason reason) {
    Kind kind = Kind.OTHER;
    MembershipCheck.Status previous = null;
    if (event instanceof ClusterEvent.MemberRemoved r) {
      if (r.member().uniqueAddress().equals(self)) {
        // As Pekko's read view: a node removed sees nobody, itself included.
        members.clear();
        unreachable.clear();
        previous = status(r.previousStatus());
        selfStatus = MembershipCheck.Status.REMOVED;
        kind = Kind.REMOVED;
      } else {
        members.remove(r.member().uniqueAddress());
        unreachable.remove(r.member().uniqueAddress());
      }
    } else if (event instanceof ClusterEvent.MemberEvent m) {
      if (m.member().uniqueAddress().equals(self)) {
        selfStatus = status(m.member().status());
        if (event instanceof ClusterEvent.MemberDowned) {
          kind = Kind.DOWNED;
        }
      } else {
        members.put(m.member().uniqueAddress(), m.member());
      }
    } else if (event instanceof ClusterEvent.UnreachableMember u) {
      unreachable.add(u.member().uniqueAddress());
    } else if (event instanceof ClusterEvent.ReachableMember r) {
      unreachable.remove(r.member().uniqueAddress());
    } else if (event instanceof ClusterEvent.ReachabilityChanged r && !r.reachability().isReachable(self)) {
      // Pekko's own events never say that this node is the unreachable one; the reachability
      // table that comes with its gossip does (observer by observer).
      kind = Kind.SEEN_UNREACHABLE;
    } else if (event == ClusterEvent.ClusterShuttingDown$.MODULE$) {
      kind = Kind.SHUTTING_DOWN;
    }
    return new GateInput.Membership(view(), kind, previous != null ? previous : selfStatus, reason);
  }

  private MembershipCheck.View view() {
    Map<String, MembershipCheck.Member> others = new LinkedHashMap<>();
    members.forEach((node, m) -> others.put(node.address().toString(),
        new MembershipCheck.Member(node.address().toString(), node.longUid(), status(m.status()))));
    Set<String> unreachableAddresses = new LinkedHashSet<>();
    unreachable.forEach(node -> unreachableAddresses.add(node.address().toString()));
    return new MembershipCheck.View(new MembershipCheck.Member(self.address().toString(), self.longUid(), selfStatus),
        others, unreachableAddresses);
  }

  static MembershipCheck.Status status(MemberStatus s) {
    if (s == MemberStatus.joining()) {
      return MembershipCheck.Status.JOINING;
    } else if (s == MemberStatus.weaklyUp()) {
      return MembershipCheck.Status.WEAKLY_UP;
    } else if (s == MemberStatus.up()) {
      return MembershipCheck.Status.UP;
    } else if (s == MemberStatus.exiting()) {
      return MembershipCheck.Status.EXITING;
    } else if (s == MemberStatus.down()) {
      return MembershipCheck.Status.DOWN;
    } else if (s == MemberStatus.removed()) {
      return MembershipCheck.Status.REMOVED;
    }
    // Leaving, and the states of a whole-cluster shutdown: still in service.
    return MembershipCheck.Status.LEAVING;
  }
}
