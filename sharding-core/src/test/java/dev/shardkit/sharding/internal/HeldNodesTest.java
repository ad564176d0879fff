package dev.shardkit.sharding.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Set;
import org.apache.pekko.actor.Address;
import org.junit.jupiter.api.Test;

class HeldNodesTest {
  private static final Address A = new Address("pekko", "app", "10.0.0.1", 2552);
  private static final Address B = new Address("pekko", "app", "10.0.0.2", 2552);

  @Test
  void anUnreachableNodeIsHeldUntilItIsReachableAgain() {
    HeldNodes held = HeldNodes.NONE.unreachable(A, 1).unreachable(B, 2);
    assertEquals(Set.of(A, B), held.addresses());
    assertEquals(Set.of(B), held.reachable(A, 1).addresses());
  }

  @Test
  void aDownedNodeStaysHeldEvenWhenItIsReachableAgain() {
    // Frozen, seen unreachable, downed, then it wakes up: it is reachable, and out.
    HeldNodes held = HeldNodes.NONE.unreachable(A, 1).downed(A, 1).reachable(A, 1);
    assertEquals(Set.of(A), held.addresses());
    assertEquals(Set.of(A), HeldNodes.NONE.downed(A, 1).addresses(), "downed while reachable");
  }

  @Test
  void onlyTheSameIncarnationComesBack() {
    HeldNodes held = HeldNodes.NONE.unreachable(A, 1);
    assertEquals(Set.of(A), held.reachable(A, 7).addresses());
  }

  @Test
  void aNewIncarnationAtTheSameAddressEndsTheOldOnesHolds() {
    HeldNodes held = HeldNodes.NONE.unreachable(A, 1).downed(A, 1).unreachable(B, 2);
    assertEquals(Set.of(B), held.joined(A, 9).addresses());
    assertEquals(Set.of(A, B), held.joined(A, 1).addresses(), "the same incarnation joining changes nothing");
  }
}
