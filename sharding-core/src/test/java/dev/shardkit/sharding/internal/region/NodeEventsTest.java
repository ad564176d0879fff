package dev.shardkit.sharding.internal.region;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;
import org.apache.pekko.actor.Address;
import org.apache.pekko.cluster.ClusterEvent.MemberDowned;
import org.apache.pekko.cluster.ClusterEvent.MemberExited;
import org.apache.pekko.cluster.ClusterEvent.MemberJoined;
import org.apache.pekko.cluster.ClusterEvent.MemberUp;
import org.apache.pekko.cluster.ClusterEvent.MemberWeaklyUp;
import org.apache.pekko.cluster.ClusterEvent.ReachableMember;
import org.apache.pekko.cluster.ClusterEvent.UnreachableMember;
import org.apache.pekko.cluster.Member;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.UniqueAddress;
import org.apache.pekko.util.Version;
import org.junit.jupiter.api.Test;

class NodeEventsTest {
  private static final Address A = new Address("pekko", "app", "10.0.0.1", 2552);
  private static final UniqueAddress SELF = new UniqueAddress(new Address("pekko", "app", "10.0.0.9", 2552), 99L);

  private static Member member(Address node, long uid, MemberStatus status) {
    return member(new UniqueAddress(node, uid), status);
  }

  private static Member member(UniqueAddress node, MemberStatus status) {
    return new Member(node, 1, status, scala.collection.immutable.Set$.MODULE$.<String>empty().incl("dc-default"),
        Version.Zero());
  }

  private static HeldNodes apply(Object event, HeldNodes held) {
    return NodeEvents.of(event, SELF).orElseThrow().held().apply(held);
  }

  @Test
  void unreachableHoldsTheNodeAndReachableMakesItReturning() {
    HeldNodes held = apply(new UnreachableMember(member(A, 1, MemberStatus.up())), HeldNodes.NONE);
    assertEquals(Set.of(A), held.addresses());
    HeldNodes back = apply(new ReachableMember(member(A, 1, MemberStatus.up())), held);
    assertEquals(Set.of(A), back.addresses(), "held until a link to it is confirmed");
    assertEquals(Set.of(), back.confirmed(A).addresses());
    assertEquals(A, NodeEvents.of(new UnreachableMember(member(A, 1, MemberStatus.up())), SELF).orElseThrow().node());
  }

  @Test
  void aDownedNodeStaysHeldWhenReachableAgain() {
    HeldNodes held = apply(new MemberDowned(member(A, 1, MemberStatus.down())), HeldNodes.NONE);
    assertEquals(Set.of(A), apply(new ReachableMember(member(A, 1, MemberStatus.up())), held).addresses());
  }

  @Test
  void joiningAgainAsANewIncarnationEndsTheOldHolds() {
    HeldNodes held = HeldNodes.NONE.unreachable(A, 1).downed(A, 1);
    assertEquals(Set.of(), apply(new MemberJoined(member(A, 2, MemberStatus.joining())), held).addresses());
    assertEquals(Set.of(), apply(new MemberWeaklyUp(member(A, 2, MemberStatus.weaklyUp())), held).addresses());
    assertEquals(Set.of(), apply(new MemberUp(member(A, 2, MemberStatus.up())), held).addresses());
  }

  @Test
  void eventsAboutThisNodeOrOtherMemberEventsChangeNothing() {
    assertTrue(NodeEvents.of(new UnreachableMember(member(SELF, MemberStatus.up())), SELF).isEmpty());
    assertTrue(NodeEvents.of(new MemberDowned(member(SELF, MemberStatus.down())), SELF).isEmpty());
    assertTrue(NodeEvents.of(new MemberExited(member(A, 1, MemberStatus.exiting())), SELF).isEmpty());
    assertTrue(NodeEvents.of("not a cluster event", SELF).isEmpty());
  }
}
