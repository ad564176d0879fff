package dev.shardkit.sharding.internal.membership;

import dev.shardkit.sharding.internal.InternalApi;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.pekko.cluster.ClusterEvent;
import org.apache.pekko.cluster.Member;
import org.apache.pekko.cluster.UniqueAddress;

/**
 * Pekko's cluster events as {@link ClusterChange} values: the one place that reads Pekko's
 * membership types for the machines. Stateless.
 */
@InternalApi
public final class ClusterChanges {
  private ClusterChanges() {}

  /**
   * The change an event (or the state a subscription starts with) means; empty for an event that
   * machines do not use.
   */
  public static Optional<ClusterChange> of(Object event) {
    if (event instanceof ClusterEvent.CurrentClusterState state) {
      List<ClusterChange.Node> members = new ArrayList<>();
      state.getMembers().forEach(m -> members.add(node(m)));
      Set<UniqueAddress> unreachable = new HashSet<>();
      state.getUnreachable().forEach(m -> unreachable.add(m.uniqueAddress()));
      return Optional.of(new ClusterChange.Members(members, unreachable));
    } else if (event instanceof ClusterEvent.MemberEvent e) {
      return Optional.of(new ClusterChange.MemberChanged(node(e.member())));
    } else if (event instanceof ClusterEvent.UnreachableMember u) {
      return Optional.of(new ClusterChange.ReachabilityChanged(node(u.member()), false));
    } else if (event instanceof ClusterEvent.ReachableMember r) {
      return Optional.of(new ClusterChange.ReachabilityChanged(node(r.member()), true));
    } else if (event == ClusterEvent.ClusterShuttingDown$.MODULE$) {
      return Optional.of(new ClusterChange.ShuttingDown());
    }
    return Optional.empty();
  }

  /** A member as a value. */
  static ClusterChange.Node node(Member m) {
    return new ClusterChange.Node(m.uniqueAddress(), m.status(), scala.jdk.javaapi.CollectionConverters.asJava(m.roles()),
        m.upNumber(), m.appVersion().version());
  }
}
