package dev.shardkit.sharding.internal.region;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import org.apache.pekko.actor.Address;
import org.junit.jupiter.api.Test;

class HeldNodesTest {
  private static final Address A = new Address("pekko", "app", "10.0.0.1", 2552);
  private static final Address B = new Address("pekko", "app", "10.0.0.2", 2552);

  @Test
  void anUnreachableNodeIsHeldUntilItIsReachableAgainAndConfirmed() {
    HeldNodes held = HeldNodes.NONE.unreachable(A, 1).unreachable(B, 2);
    assertEquals(Set.of(A, B), held.addresses());
    HeldNodes returning = held.reachable(A, 1);
    assertEquals(Set.of(A, B), returning.addresses(), "returning is still held");
    assertTrue(returning.isReturning(A));
    assertFalse(returning.isReturning(B));
    assertEquals(Set.of(B), returning.confirmed(A).addresses());
    assertFalse(returning.confirmed(A).isReturning(A));
  }

  @Test
  void aReturningNodeUnreachableAgainOrDownedIsNoLongerReturning() {
    HeldNodes returning = HeldNodes.NONE.unreachable(A, 1).reachable(A, 1);
    HeldNodes again = returning.unreachable(A, 1);
    assertFalse(again.isReturning(A));
    assertEquals(Set.of(A), again.confirmed(A).addresses(), "a confirmation for the earlier return releases nothing");
    HeldNodes downed = returning.downed(A, 1);
    assertFalse(downed.isReturning(A));
    assertEquals(Set.of(A), downed.confirmed(A).addresses());
  }

  @Test
  void aNodeNotHeldIsNotReturningWhenSeenReachable() {
    assertEquals(Set.of(), HeldNodes.NONE.reachable(A, 1).addresses());
    assertFalse(HeldNodes.NONE.reachable(A, 1).isReturning(A));
  }

  @Test
  void theAddressesComeInTheOrderTheyWereFirstHeld() {
    HeldNodes held = HeldNodes.NONE.unreachable(B, 2).unreachable(A, 1).reachable(B, 2).downed(A, 1);
    assertEquals(List.of(A, B), List.copyOf(held.addresses()), "unreachable, then returning, then downed");
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
    assertFalse(held.reachable(A, 7).isReturning(A));
  }

  @Test
  void aNewIncarnationAtTheSameAddressEndsTheOldOnesHolds() {
    HeldNodes held = HeldNodes.NONE.unreachable(A, 1).downed(A, 1).unreachable(B, 2);
    assertEquals(Set.of(B), held.joined(A, 9).addresses());
    assertEquals(Set.of(A, B), held.joined(A, 1).addresses(), "the same incarnation joining changes nothing");
  }
}
