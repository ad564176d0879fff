package dev.shardkit.sharding.internal.coordinator;

import static dev.shardkit.sharding.internal.TestRefs.member;
import static dev.shardkit.sharding.internal.TestRefs.node;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.internal.TestRefs;
import dev.shardkit.sharding.internal.membership.MemberSnapshot;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.GetShardHome;
import java.util.List;
import java.util.Optional;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.cluster.MemberStatus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class SettlingTest {
  @RegisterExtension static final TestRefs refs = new TestRefs();

  private static ActorRef<Object> r(int n) {
    return refs.region(n);
  }

  @Test
  void settledOnceEveryNodeThatMayHostShardsHasARegionOrSaidItHasNone() {
    MemberSnapshot members = new MemberSnapshot(List.of(member(1, MemberStatus.up()), member(2, MemberStatus.leaving()),
        member(3, MemberStatus.exiting()), member(4, MemberStatus.joining())), node(1));
    Settling settling = new Settling(Optional.empty(), 10);
    assertFalse(settling.check(members, List.of(r(1))));
    assertFalse(settling.check(members, List.of(r(1), r(2))), "the exiting node may still hand off shards");
    settling.noRegionOn(node(3));
    assertTrue(settling.check(members, List.of(r(1), r(2))), "a joining node hosts nothing yet");
    assertTrue(settling.done());
  }

  @Test
  void onlyNodesWithTheRoleAreWaitedFor() {
    MemberSnapshot members = new MemberSnapshot(List.of(member(1, MemberStatus.up(), "backend"),
        member(2, MemberStatus.up(), "frontend")), node(1));
    assertTrue(new Settling(Optional.of("backend"), 10).check(members, List.of(r(1))));
    assertFalse(new Settling(Optional.empty(), 10).check(members, List.of(r(1))));
  }

  @Test
  void onceSettledANodeThatJoinsLaterDoesNotUnsettle() {
    Settling settling = new Settling(Optional.empty(), 10);
    assertTrue(settling.check(new MemberSnapshot(List.of(member(1, MemberStatus.up())), node(1)), List.of(r(1))));
    MemberSnapshot grown = new MemberSnapshot(List.of(member(1, MemberStatus.up()), member(2, MemberStatus.up())),
        node(1));
    assertTrue(settling.check(grown, List.of(r(1))));
  }

  @Test
  void requestsWaitInArrivalOrderOnceEachUpToTheLimit() {
    Settling settling = new Settling(Optional.empty(), 3);
    GetShardHome a = new GetShardHome("a", r(1));
    GetShardHome b = new GetShardHome("b", r(2));
    GetShardHome c = new GetShardHome("c", r(1));
    assertTrue(settling.defer(a));
    assertTrue(settling.defer(b));
    assertTrue(settling.defer(a), "a repeat waits already");
    assertTrue(settling.defer(c));
    assertFalse(settling.defer(new GetShardHome("d", r(1))), "over the limit it is refused");
    assertTrue(settling.defer(b), "a repeat of one that waits is not refused at the limit");
    assertEquals(List.of(a, b, c), settling.deferred(), "a repeat is kept once; over the limit is dropped");
    assertEquals(3, settling.deferredCount());
  }

  @Test
  void theTimeoutEndsSettlingForGoodWhoeverWasNotHeardFrom() {
    MemberSnapshot members = new MemberSnapshot(List.of(member(1, MemberStatus.up()), member(2, MemberStatus.up())),
        node(1));
    Settling settling = new Settling(Optional.empty(), 10);
    assertFalse(settling.check(members, List.of(r(1))));
    settling.timedOut();
    assertTrue(settling.done());
    assertTrue(settling.check(members, List.of(r(1))), "node 2 was never heard from, and settling stays over");
  }
}
