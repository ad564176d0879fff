package dev.shardkit.sharding.internal.gate;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.shardkit.sharding.internal.gate.GateInput.Membership.Kind;
import dev.shardkit.sharding.internal.gate.MembershipCheck.Status;
import dev.shardkit.sharding.internal.membership.ClusterChange;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.pekko.actor.Address;
import org.apache.pekko.cluster.ClusterEvent;
import org.apache.pekko.cluster.Member;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.Reachability$;
import org.apache.pekko.cluster.UniqueAddress;
import org.apache.pekko.util.Version;
import org.junit.jupiter.api.Test;

/**
 * Pekko's cluster events, and the same as {@link ClusterChange}s, as the gate machine's input: the
 * view they fold into, and what each says of this node.
 */
class GateMembershipTest {
  private static final UniqueAddress SELF = node(0, 1);
  private static final Departure.ShutdownReason NONE = Departure.ShutdownReason.NONE;

  private static UniqueAddress node(int n, long uid) {
    return new UniqueAddress(new Address("pekko", "app", "10.0.0." + n, 2552), uid);
  }

  private static Member member(UniqueAddress node, MemberStatus status) {
    return new Member(node, 1, status, scala.collection.immutable.Set$.MODULE$.<String>empty().incl("dc-default"),
        Version.Zero());
  }

  private static MembershipCheck.Member checked(UniqueAddress node, Status status) {
    return new MembershipCheck.Member(node.address().toString(), node.longUid(), status);
  }

  private final GateMembership fold = new GateMembership(SELF);

  private GateInput.Membership apply(ClusterEvent.ClusterDomainEvent event) {
    return fold.apply(event, NONE);
  }

  @Test
  void beforeItJoinsThisNodeIsReportedRemovedAsPekkoDoes() {
    GateInput.Membership m = apply(new ClusterEvent.MemberUp(member(node(1, 5), MemberStatus.up())));
    assertEquals(checked(SELF, Status.REMOVED), m.view().self());
    assertEquals(Kind.OTHER, m.kind());
  }

  @Test
  void membersAndTheirStatusesAndWhoIsUnreachable() {
    apply(new ClusterEvent.MemberUp(member(SELF, MemberStatus.up())));
    apply(new ClusterEvent.MemberUp(member(node(1, 5), MemberStatus.up())));
    apply(new ClusterEvent.MemberJoined(member(node(2, 6), MemberStatus.joining())));
    apply(new ClusterEvent.UnreachableMember(member(node(1, 5), MemberStatus.up())));
    GateInput.Membership m = apply(new ClusterEvent.MemberLeft(member(node(2, 6), MemberStatus.leaving())));
    assertEquals(new MembershipCheck.View(checked(SELF, Status.UP),
        Map.of(node(1, 5).address().toString(), checked(node(1, 5), Status.UP),
            node(2, 6).address().toString(), checked(node(2, 6), Status.LEAVING)),
        Set.of(node(1, 5).address().toString())), m.view());

    m = apply(new ClusterEvent.ReachableMember(member(node(1, 5), MemberStatus.up())));
    assertEquals(Set.of(), m.view().unreachable());
    m = apply(new ClusterEvent.MemberRemoved(member(node(2, 6), MemberStatus.removed()), MemberStatus.exiting()));
    assertEquals(Set.of(node(1, 5).address().toString()), m.view().others().keySet());
    assertEquals(Kind.OTHER, m.kind(), "another node's removal");
  }

  @Test
  void whatAnEventSaysOfThisNode() {
    apply(new ClusterEvent.MemberUp(member(SELF, MemberStatus.up())));
    apply(new ClusterEvent.MemberUp(member(node(1, 5), MemberStatus.up())));
    assertEquals(Kind.OTHER, apply(new ClusterEvent.MemberDowned(member(node(1, 5), MemberStatus.down()))).kind());

    ClusterEvent.ReachabilityChanged othersOnly = new ClusterEvent.ReachabilityChanged(
        Reachability$.MODULE$.empty().unreachable(SELF, node(1, 5)));
    assertEquals(Kind.OTHER, apply(othersOnly).kind());
    ClusterEvent.ReachabilityChanged self = new ClusterEvent.ReachabilityChanged(
        Reachability$.MODULE$.empty().unreachable(node(1, 5), SELF));
    assertEquals(Kind.SEEN_UNREACHABLE, apply(self).kind());

    GateInput.Membership downed = apply(new ClusterEvent.MemberDowned(member(SELF, MemberStatus.down())));
    assertEquals(Kind.DOWNED, downed.kind());
    assertEquals(Status.DOWN, downed.view().self().status());

    GateInput.Membership removed = apply(new ClusterEvent.MemberRemoved(member(SELF, MemberStatus.removed()),
        MemberStatus.down()));
    assertEquals(Kind.REMOVED, removed.kind());
    assertEquals(Status.DOWN, removed.previous());
    assertEquals(new MembershipCheck.View(checked(SELF, Status.REMOVED), Map.of(), Set.of()), removed.view(),
        "a removed node sees nobody");

    assertEquals(Kind.SHUTTING_DOWN, apply(ClusterEvent.ClusterShuttingDown$.MODULE$).kind());
  }

  @Test
  void aNodeOnItsWayOutIsLeaving() {
    GateInput.Membership m = apply(new ClusterEvent.MemberPreparingForShutdown(
        member(SELF, MemberStatus.shuttingDown())));
    assertEquals(Status.LEAVING, m.view().self().status());
    m = apply(new ClusterEvent.MemberExited(member(SELF, MemberStatus.exiting())));
    assertEquals(Status.EXITING, m.previous(), "not removed: the status it has");
  }

  @Test
  void anotherIncarnationAtThisNodesAddressIsAnotherMember() {
    apply(new ClusterEvent.MemberUp(member(SELF, MemberStatus.up())));
    GateInput.Membership m = apply(new ClusterEvent.MemberDowned(member(node(0, 99), MemberStatus.down())));
    assertEquals(Kind.OTHER, m.kind());
    assertEquals(Status.UP, m.view().self().status());
  }

  private static ClusterChange.Node changed(UniqueAddress node, MemberStatus status) {
    return new ClusterChange.Node(node, status, Set.of(), 1, "1.0.0");
  }

  private GateInput.Membership apply(ClusterChange change) {
    return fold.apply(change, NONE);
  }

  @Test
  void clusterChangesFoldIntoTheSameViews() {
    GateInput.Membership m = apply(new ClusterChange.Members(List.of(changed(node(1, 5), MemberStatus.up())),
        Set.of()));
    assertEquals(checked(SELF, Status.REMOVED), m.view().self(), "not joined yet");
    apply(new ClusterChange.MemberChanged(changed(SELF, MemberStatus.up())));
    apply(new ClusterChange.MemberChanged(changed(node(2, 6), MemberStatus.leaving())));
    m = apply(new ClusterChange.ReachabilityChanged(changed(node(1, 5), MemberStatus.up()), false));
    assertEquals(new MembershipCheck.View(checked(SELF, Status.UP),
        Map.of(node(1, 5).address().toString(), checked(node(1, 5), Status.UP),
            node(2, 6).address().toString(), checked(node(2, 6), Status.LEAVING)),
        Set.of(node(1, 5).address().toString())), m.view());
    assertEquals(Kind.OTHER, m.kind());

    m = apply(new ClusterChange.MemberChanged(changed(node(1, 5), MemberStatus.removed())));
    assertEquals(Set.of(node(2, 6).address().toString()), m.view().others().keySet());
    assertEquals(Set.of(), m.view().unreachable());

    m = apply(new ClusterChange.Members(List.of(changed(SELF, MemberStatus.up()),
        changed(node(2, 6), MemberStatus.up())), Set.of(SELF)));
    assertEquals(Kind.SEEN_UNREACHABLE, m.kind(), "a snapshot in which some member sees this node unreachable");
  }

  @Test
  void whatAClusterChangeSaysOfThisNode() {
    apply(new ClusterChange.MemberChanged(changed(SELF, MemberStatus.up())));
    assertEquals(Kind.SEEN_UNREACHABLE,
        apply(new ClusterChange.ReachabilityChanged(changed(SELF, MemberStatus.up()), false)).kind());
    assertEquals(Kind.OTHER,
        apply(new ClusterChange.ReachabilityChanged(changed(SELF, MemberStatus.up()), true)).kind());
    assertEquals(Kind.OTHER, apply(new ClusterChange.MemberChanged(changed(node(1, 5), MemberStatus.down()))).kind());

    GateInput.Membership downed = apply(new ClusterChange.MemberChanged(changed(SELF, MemberStatus.down())));
    assertEquals(Kind.DOWNED, downed.kind());
    GateInput.Membership removed = apply(new ClusterChange.MemberChanged(changed(SELF, MemberStatus.removed())));
    assertEquals(Kind.REMOVED, removed.kind());
    assertEquals(Status.DOWN, removed.previous(), "its status before the removal");
    assertEquals(new MembershipCheck.View(checked(SELF, Status.REMOVED), Map.of(), Set.of()), removed.view());

    assertEquals(Kind.SHUTTING_DOWN, apply(new ClusterChange.ShuttingDown()).kind());
  }
}
