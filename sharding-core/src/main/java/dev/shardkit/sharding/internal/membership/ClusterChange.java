package dev.shardkit.sharding.internal.membership;

import dev.shardkit.sharding.internal.InternalApi;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.apache.pekko.actor.NoSerializationVerificationNeeded;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.UniqueAddress;

/**
 * What a machine hears about the cluster's membership: Pekko's cluster events as values, made by
 * {@link ClusterChanges} (the one converter) and folded by {@link MembersFold}. A machine reads
 * membership only from these, never from the cluster at the moment it decides, so its decisions
 * replay alike; the whole-cluster simulation feeds the same values. Immutable.
 */
@InternalApi
public sealed interface ClusterChange extends NoSerializationVerificationNeeded {

  /**
   * One member as an event shows it.
   *
   * @param id its address and incarnation
   * @param status its status (Removed for one that left the membership)
   * @param roles its roles, sorted (so that whoever iterates them does so alike in every JVM)
   * @param upNumber its age among the members: lower is older ({@code Integer.MAX_VALUE} while it
   *     joins)
   * @param appVersion the application version it runs
   */
  record Node(UniqueAddress id, MemberStatus status, Set<String> roles, int upNumber, String appVersion) {
    public Node {
      roles = Collections.unmodifiableSet(new TreeSet<>(roles));
    }
  }

  /**
   * Every member and the unreachable ones at one moment: what a subscription starts with. It
   * replaces whatever was known before.
   */
  record Members(List<Node> members, Set<UniqueAddress> unreachable) implements ClusterChange {
    public Members {
      members = List.copyOf(members);
      unreachable = Set.copyOf(unreachable);
    }
  }

  /** A member's status changed (to Removed too): it is as {@code node} says now. */
  record MemberChanged(Node node) implements ClusterChange {}

  /** Some member sees {@code node} as unreachable, or (reachable) none does any more. */
  record ReachabilityChanged(Node node, boolean reachable) implements ClusterChange {}

  /** The whole cluster is shutting down. */
  record ShuttingDown() implements ClusterChange {}
}
