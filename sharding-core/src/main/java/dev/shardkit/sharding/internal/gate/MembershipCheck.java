package dev.shardkit.sharding.internal.gate;

import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The decisions behind a node's {@link DeliveryGate}, as pure functions of cluster views: when a
 * node whose gate closed may open it again, when it is out for good, and what a node answers when
 * another asks whether it still counts as a member.
 *
 * <p>Why this is enough to keep one writer per entity: another node starts a shard that lived here
 * only once this node has been downed and removed (and the coordinator's removal margin has
 * passed). A node that others have downed is no longer Up in their views, and one they have
 * removed is quarantined by them, so its questions no longer even arrive: it never gets a majority
 * of answers again, and it learns that it is out (downed, removed or quarantined) instead. A node
 * that was only unreachable, or that nobody missed, gets its answers as soon as the others see it
 * reachable, and goes on where it stopped.
 */
final class MembershipCheck {

  private MembershipCheck() {}

  /** A member's status, as far as the gate cares. */
  public enum Status {
    JOINING, WEAKLY_UP, UP, LEAVING, EXITING, DOWN, REMOVED;

    /** A member that still hosts shards and may take part in the cluster's decisions. */
    boolean inService() {
      return this == WEAKLY_UP || this == UP || this == LEAVING;
    }
  }

  /** One member in one node's view: its address, the uid of its incarnation, and its status. */
  public record Member(String address, long uid, Status status) {}

  /**
   * One node's view of the cluster.
   *
   * @param self this node, with its own status ({@link Status#REMOVED} once it is out)
   * @param others every other member, by address
   * @param unreachable the addresses of the other members that some member sees as unreachable
   */
  public record View(Member self, Map<String, Member> others, Set<String> unreachable) {}

  /**
   * The members whose confirmation counts: the others in service, as this node sees them, by
   * address in sorted order (so that they are asked in the same order on every run).
   */
  public static List<String> voters(View view) {
    return view.others().values().stream().filter(m -> m.status().inService()).map(Member::address).sorted()
        .toList();
  }

  /** True once this node is no longer a member: downed, or removed. */
  public static boolean out(View view) {
    Status self = view.self().status();
    return self == Status.DOWN || self == Status.REMOVED;
  }

  /**
   * True if this node, whose gate closed, may open it: it is still a member, and since the gate
   * closed either more than half of the members it counts as voters now have confirmed it from a
   * current view (their own gate open), or every one of them has confirmed it, some perhaps from a
   * view that may be old (their gate closed too, as when every node was paused at once). With no
   * other member in service (a single node), nobody can have taken its shards, and it goes on.
   *
   * @param current the members that confirmed it with their own gate open
   * @param any the members that confirmed it at all
   */
  public static boolean mayOpen(View view, Set<String> current, Set<String> any) {
    if (out(view) || view.self().status() == Status.EXITING) {
      return false;
    }
    List<String> voters = voters(view);
    long fresh = voters.stream().filter(current::contains).count();
    return 2 * fresh > voters.size() || any.containsAll(voters);
  }

  /**
   * Whether this node confirms a member (its address and incarnation) that asks whether it still
   * counts as one: only if in this node's view the asker is the same incarnation, not on its way
   * out, and reachable for every member. The answer says separately whether this node's own gate
   * is open, so whether its view is current ({@link #mayOpen}).
   */
  public static boolean confirms(View view, String askerAddress, long askerUid) {
    if (out(view)) {
      return false;
    }
    Member asker = view.others().get(askerAddress);
    return asker != null && asker.uid() == askerUid
        && (asker.status() == Status.JOINING || asker.status().inService())
        && !view.unreachable().contains(askerAddress);
  }
}
