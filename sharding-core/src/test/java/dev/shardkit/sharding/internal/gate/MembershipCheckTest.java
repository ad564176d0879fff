package dev.shardkit.sharding.internal.gate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.internal.gate.MembershipCheck.Member;
import dev.shardkit.sharding.internal.gate.MembershipCheck.Status;
import dev.shardkit.sharding.internal.gate.MembershipCheck.View;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class MembershipCheckTest {

  private static Member m(String address, Status status) {
    return new Member(address, address.hashCode(), status);
  }

  private static View view(Status self, Set<String> unreachable, Member... others) {
    Map<String, Member> map = new HashMap<>();
    for (Member o : others) {
      map.put(o.address(), o);
    }
    return new View(m("self", self), map, unreachable);
  }

  @Test
  void votersAreTheOtherMembersInService() {
    View v = view(Status.UP, Set.of(), m("a", Status.UP), m("b", Status.WEAKLY_UP), m("c", Status.LEAVING),
        m("d", Status.JOINING), m("e", Status.EXITING), m("f", Status.DOWN));
    assertEquals(List.of("a", "b", "c"), MembershipCheck.voters(v), "in sorted order, whatever the view's");
  }

  @Test
  void aMajorityOfCurrentConfirmationsOpensTheGate() {
    View v = view(Status.UP, Set.of(), m("a", Status.UP), m("b", Status.UP), m("c", Status.UP));
    assertFalse(MembershipCheck.mayOpen(v, Set.of("a"), Set.of("a")));
    assertTrue(MembershipCheck.mayOpen(v, Set.of("a", "b"), Set.of("a", "b")));
    // Confirmations of members that do not count (no longer members, or gone) do not help.
    assertFalse(MembershipCheck.mayOpen(v, Set.of("a", "x"), Set.of("a", "x")));
  }

  @Test
  void halfIsNotAMajority() {
    View v = view(Status.UP, Set.of(), m("a", Status.UP), m("b", Status.UP), m("c", Status.UP), m("d", Status.UP));
    assertFalse(MembershipCheck.mayOpen(v, Set.of("a", "b"), Set.of("a", "b")));
    assertTrue(MembershipCheck.mayOpen(v, Set.of("a", "b", "c"), Set.of("a", "b", "c")));
  }

  @Test
  void answersFromPossiblyOldViewsCountOnlyWhenEveryoneAnswers() {
    View v = view(Status.UP, Set.of(), m("a", Status.UP), m("b", Status.UP), m("c", Status.UP));
    // Every node was paused at once: nobody's view is current, and nobody can have downed anyone.
    assertFalse(MembershipCheck.mayOpen(v, Set.of(), Set.of("a", "b")));
    assertTrue(MembershipCheck.mayOpen(v, Set.of(), Set.of("a", "b", "c")));
  }

  @Test
  void aNodeThatWasRemovedGetsNoAnswersAndStaysClosed() {
    // Its view is from before the freeze; the others quarantined it and never answer.
    View stale = view(Status.UP, Set.of(), m("a", Status.UP), m("b", Status.UP), m("c", Status.UP));
    assertFalse(MembershipCheck.mayOpen(stale, Set.of(), Set.of()));
  }

  @Test
  void aDownedNodeIsOutWhateverItHears() {
    View v = view(Status.DOWN, Set.of(), m("a", Status.UP));
    assertTrue(MembershipCheck.out(v));
    assertFalse(MembershipCheck.mayOpen(v, Set.of("a"), Set.of("a")));
    assertTrue(MembershipCheck.out(view(Status.REMOVED, Set.of())));
    assertFalse(MembershipCheck.out(view(Status.LEAVING, Set.of())));
  }

  @Test
  void aNodeAloneGoesOn() {
    View v = view(Status.UP, Set.of(), m("a", Status.DOWN));
    assertTrue(MembershipCheck.mayOpen(v, Set.of(), Set.of()));
  }

  @Test
  void anExitingNodeDoesNotReopen() {
    View v = view(Status.EXITING, Set.of());
    assertFalse(MembershipCheck.mayOpen(v, Set.of(), Set.of()));
  }

  @Test
  void aMemberIsConfirmedOnlyIfItIsTheSameIncarnationInServiceAndReachableForAll() {
    Member asker = m("asker", Status.UP);
    View v = view(Status.UP, Set.of(), asker, m("a", Status.UP));
    assertTrue(MembershipCheck.confirms(v, "asker", asker.uid()));
    assertFalse(MembershipCheck.confirms(v, "asker", asker.uid() + 1), "another incarnation on the same address");
    assertFalse(MembershipCheck.confirms(v, "stranger", 1), "not a member");
    assertFalse(MembershipCheck.confirms(view(Status.UP, Set.of("asker"), asker), "asker", asker.uid()),
        "someone sees it unreachable");
    assertFalse(MembershipCheck.confirms(view(Status.UP, Set.of(), m("asker", Status.DOWN)), "asker",
        asker.uid()), "downed");
    assertTrue(MembershipCheck.confirms(view(Status.UP, Set.of(), m("asker", Status.LEAVING)), "asker",
        asker.uid()), "leaving: still hands off its shards");
    assertTrue(MembershipCheck.confirms(view(Status.UP, Set.of(), m("asker", Status.JOINING)), "asker",
        asker.uid()));
    assertFalse(MembershipCheck.confirms(view(Status.DOWN, Set.of(), asker), "asker", asker.uid()),
        "a node that is out itself confirms nobody");
  }
}
