package dev.shardkit.sharding.internal.membership;

import dev.shardkit.sharding.internal.InternalApi;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.pekko.actor.Address;
import org.apache.pekko.cluster.Member;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.UniqueAddress;

/**
 * The cluster's membership as a machine knows it: the {@link ClusterChange}s it was given, folded.
 * It starts unknown and is known from the first {@link ClusterChange.Members} on (what a
 * subscription starts with). A removed member is no longer a member. The {@link MemberSnapshot}
 * the coordinator's decisions read is built only when the membership changed since the last one.
 * Owned by one machine; not thread-safe. Iterates in insertion order only.
 */
@InternalApi
public final class MembersFold {
  private final Address self;
  private final Map<UniqueAddress, ClusterChange.Node> members = new LinkedHashMap<>();
  private final Set<UniqueAddress> unreachable = new LinkedHashSet<>();
  private boolean known;
  private MemberSnapshot snapshot;

  /** @param self this node's address, the address of local references */
  public MembersFold(Address self) {
    this.self = self;
  }

  /**
   * Folds a change in.
   *
   * @return whether the members or their statuses changed
   */
  public boolean apply(ClusterChange change) {
    if (change instanceof ClusterChange.Members all) {
      members.clear();
      unreachable.clear();
      all.members().forEach(this::put);
      unreachable.addAll(all.unreachable());
      known = true;
      snapshot = null;
      return true;
    } else if (change instanceof ClusterChange.MemberChanged changed) {
      ClusterChange.Node node = changed.node();
      if (node.equals(members.get(node.id()))) {
        return false;
      }
      put(node);
      snapshot = null;
      return true;
    } else if (change instanceof ClusterChange.ReachabilityChanged r) {
      if (r.reachable()) {
        unreachable.remove(r.node().id());
      } else if (members.containsKey(r.node().id())) {
        unreachable.add(r.node().id());
      }
    }
    return false;
  }

  private void put(ClusterChange.Node node) {
    if (node.status() == MemberStatus.removed()) {
      members.remove(node.id());
      unreachable.remove(node.id());
    } else {
      members.put(node.id(), node);
    }
  }

  /**
   * Whether {@code node} may host a region this node can reach: it is a member in this view (any
   * status but removed), or the view is still empty (nothing heard yet). A node this view has no
   * member at is gone (removed) or was never seen (removed before this node joined).
   */
  public boolean mayBeMemberAt(Address node) {
    if (members.isEmpty()) {
      return true;
    }
    for (UniqueAddress id : members.keySet()) {
      if (id.address().equals(node)) {
        return true;
      }
    }
    return false;
  }

  /** Whether the membership is known: a {@link ClusterChange.Members} was folded in. */
  public boolean known() {
    return known;
  }

  /** The members now, the ranked ones oldest first, as {@link MemberSnapshot} wants them. */
  public MemberSnapshot snapshot() {
    if (snapshot == null) {
      List<ClusterChange.Node> ranked = new ArrayList<>();
      List<ClusterChange.Node> others = new ArrayList<>();
      for (ClusterChange.Node node : members.values()) {
        (ranked(node.status()) ? ranked : others).add(node);
      }
      // Pekko's Member.ageOrdering: the lower up-number is older; the address breaks a tie.
      ranked.sort((a, b) -> a.upNumber() != b.upNumber() ? Integer.compare(a.upNumber(), b.upNumber())
          : Member.addressOrdering().compare(a.id().address(), b.id().address()));
      ranked.addAll(others);
      List<MemberSnapshot.Node> nodes = new ArrayList<>(ranked.size());
      ranked.forEach(n -> nodes.add(new MemberSnapshot.Node(n.id().address(), n.status(), n.roles())));
      snapshot = new MemberSnapshot(nodes, self);
    }
    return snapshot;
  }

  /** The members some member sees as unreachable; a read-only view. */
  Set<UniqueAddress> unreachable() {
    return Collections.unmodifiableSet(unreachable);
  }

  private static boolean ranked(MemberStatus status) {
    return status == MemberStatus.up() || status == MemberStatus.weaklyUp() || status == MemberStatus.leaving();
  }
}
