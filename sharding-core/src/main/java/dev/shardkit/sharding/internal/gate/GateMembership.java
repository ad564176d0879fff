package dev.shardkit.sharding.internal.gate;

import dev.shardkit.sharding.internal.gate.GateInput.Membership.Kind;
import dev.shardkit.sharding.internal.membership.ClusterChange;
import dev.shardkit.sharding.internal.membership.ClusterChanges;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import org.apache.pekko.cluster.ClusterEvent;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.UniqueAddress;

/**
 * Turns Pekko's cluster events into the {@link GateMachine}'s {@link GateInput.Membership}: folds
 * them into this node's view of the cluster the way Pekko's own read view (behind
 * {@code Cluster.state()}) does, so the view after an event is the one the event brings, and says
 * what the event means for this node. Part of the keeper's shell: it translates, and decides
 * nothing. The same fold takes {@link ClusterChange}s too, as the simulation of the cluster reports
 * membership.
 *
 * <p>Interim, until the one membership vocabulary of issue 27 ({@code ClusterChange}, folded by
 * {@code MembersFold}, which gives the same view) feeds the machine; then this class goes.
 */
final class GateMembership {
  private final UniqueAddress self;
  private final Map<UniqueAddress, MembershipCheck.Status> members = new LinkedHashMap<>();
  private final Set<UniqueAddress> unreachable = new LinkedHashSet<>();
  private MembershipCheck.Status selfStatus = MembershipCheck.Status.REMOVED;

  GateMembership(UniqueAddress self) {
    this.self = self;
  }

  /** The event folded in, as the machine's input; {@code reason} is coordinated shutdown's, now. */
  GateInput.Membership apply(ClusterEvent.ClusterDomainEvent event, Departure.ShutdownReason reason) {
    if (event instanceof ClusterEvent.MemberRemoved r) {
      return removed(r.member().uniqueAddress(), status(r.previousStatus()), reason);
    } else if (event instanceof ClusterEvent.MemberEvent m) {
      return changed(m.member().uniqueAddress(), status(m.member().status()),
          event instanceof ClusterEvent.MemberDowned, reason);
    } else if (event instanceof ClusterEvent.UnreachableMember u) {
      unreachable.add(u.member().uniqueAddress());
    } else if (event instanceof ClusterEvent.ReachableMember r) {
      unreachable.remove(r.member().uniqueAddress());
    } else if (event instanceof ClusterEvent.ReachabilityChanged r && !r.reachability().isReachable(self)) {
      // Pekko's own events never say that this node is the unreachable one; the reachability
      // table that comes with its gossip does (observer by observer).
      return input(Kind.SEEN_UNREACHABLE, reason);
    } else if (event == ClusterEvent.ClusterShuttingDown$.MODULE$) {
      return input(Kind.SHUTTING_DOWN, reason);
    }
    return input(Kind.OTHER, reason);
  }

  /**
   * The change folded in, as the machine's input. A {@link ClusterChange.ReachabilityChanged} of
   * this node itself (which {@link ClusterChanges} never makes, as Pekko's events never say so)
   * stands for what Pekko's reachability table says: some member sees this node unreachable.
   */
  GateInput.Membership apply(ClusterChange change, Departure.ShutdownReason reason) {
    if (change instanceof ClusterChange.Members all) {
      members.clear();
      unreachable.clear();
      selfStatus = MembershipCheck.Status.REMOVED;
      for (ClusterChange.Node node : all.members()) {
        put(node.id(), status(node.status()));
      }
      boolean seenUnreachable = false;
      for (UniqueAddress node : all.unreachable()) {
        if (node.equals(self)) {
          seenUnreachable = true;
        } else if (members.containsKey(node)) {
          unreachable.add(node);
        }
      }
      return input(seenUnreachable ? Kind.SEEN_UNREACHABLE : Kind.OTHER, reason);
    } else if (change instanceof ClusterChange.MemberChanged c) {
      MembershipCheck.Status status = status(c.node().status());
      if (status == MembershipCheck.Status.REMOVED) {
        return removed(c.node().id(), c.node().id().equals(self) ? selfStatus : status, reason);
      }
      boolean downed = status == MembershipCheck.Status.DOWN && selfStatus != MembershipCheck.Status.DOWN;
      return changed(c.node().id(), status, downed, reason);
    } else if (change instanceof ClusterChange.ReachabilityChanged r) {
      if (r.node().id().equals(self)) {
        return input(r.reachable() ? Kind.OTHER : Kind.SEEN_UNREACHABLE, reason);
      } else if (r.reachable()) {
        unreachable.remove(r.node().id());
      } else {
        unreachable.add(r.node().id());
      }
      return input(Kind.OTHER, reason);
    } else if (change instanceof ClusterChange.ShuttingDown) {
      return input(Kind.SHUTTING_DOWN, reason);
    }
    return input(Kind.OTHER, reason);
  }

  /** A member was removed, {@code previous} its status before. */
  private GateInput.Membership removed(UniqueAddress node, MembershipCheck.Status previous,
      Departure.ShutdownReason reason) {
    if (!node.equals(self)) {
      members.remove(node);
      unreachable.remove(node);
      return input(Kind.OTHER, reason);
    }
    // As Pekko's read view: a node removed sees nobody, itself included.
    members.clear();
    unreachable.clear();
    selfStatus = MembershipCheck.Status.REMOVED;
    return new GateInput.Membership(view(), Kind.REMOVED, previous, reason);
  }

  /** A member's status changed (or it joined); {@code downed} if the event says this node was downed. */
  private GateInput.Membership changed(UniqueAddress node, MembershipCheck.Status status, boolean downed,
      Departure.ShutdownReason reason) {
    put(node, status);
    return input(downed && node.equals(self) ? Kind.DOWNED : Kind.OTHER, reason);
  }

  private void put(UniqueAddress node, MembershipCheck.Status status) {
    if (node.equals(self)) {
      selfStatus = status;
    } else {
      members.put(node, status);
    }
  }

  private GateInput.Membership input(Kind kind, Departure.ShutdownReason reason) {
    return new GateInput.Membership(view(), kind, selfStatus, reason);
  }

  private MembershipCheck.View view() {
    Map<String, MembershipCheck.Member> others = new LinkedHashMap<>();
    members.forEach((node, status) -> others.put(node.address().toString(),
        new MembershipCheck.Member(node.address().toString(), node.longUid(), status)));
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
