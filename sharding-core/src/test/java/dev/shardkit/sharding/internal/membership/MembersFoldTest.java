package dev.shardkit.sharding.internal.membership;

import static dev.shardkit.sharding.internal.TestRefs.node;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.internal.TestRefs;
import dev.shardkit.sharding.spi.CoordinatorEvent.ProxyRegistered;
import dev.shardkit.sharding.spi.CoordinatorEvent.RegionRegistered;
import dev.shardkit.sharding.spi.CoordinatorEvent.RegionTerminated;
import dev.shardkit.sharding.spi.CoordinatorState;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.UniqueAddress;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class MembersFoldTest {
  @RegisterExtension static final TestRefs refs = new TestRefs();

  private static ClusterChange.Node member(int n, MemberStatus status, int upNumber, String... roles) {
    return new ClusterChange.Node(new UniqueAddress(node(n), n), status, Set.of(roles), upNumber, "1.0");
  }

  private static ClusterChange.MemberChanged changed(ClusterChange.Node node) {
    return new ClusterChange.MemberChanged(node);
  }

  @Test
  void unknownUntilTheFirstFullMembershipThenFoldedChangeByChange() {
    MembersFold fold = new MembersFold(node(1));
    assertFalse(fold.known());
    fold.apply(new ClusterChange.Members(List.of(member(1, MemberStatus.up(), 1)), Set.of()));
    assertTrue(fold.known());
    assertTrue(fold.snapshot().isUp(node(1)));
    assertFalse(fold.snapshot().isMember(node(2)));
    assertTrue(fold.apply(changed(member(2, MemberStatus.joining(), Integer.MAX_VALUE))));
    assertTrue(fold.snapshot().isMember(node(2)));
    assertFalse(fold.snapshot().isUp(node(2)));
    fold.apply(changed(member(2, MemberStatus.up(), 2)));
    assertTrue(fold.snapshot().isUp(node(2)));
    fold.apply(changed(member(2, MemberStatus.down(), 2)));
    assertFalse(fold.snapshot().isMemberNotDown(node(2)), "down is not a member for the removal margin");
    fold.apply(changed(member(2, MemberStatus.removed(), 2)));
    assertFalse(fold.snapshot().isMember(node(2)), "removed is no member at all");
  }

  @Test
  void theSnapshotIsBuiltOnlyWhenTheMembershipChanged() {
    MembersFold fold = new MembersFold(node(1));
    fold.apply(new ClusterChange.Members(List.of(member(1, MemberStatus.up(), 1)), Set.of()));
    MemberSnapshot first = fold.snapshot();
    assertFalse(fold.apply(changed(member(1, MemberStatus.up(), 1))), "the same again changes nothing");
    assertSame(first, fold.snapshot());
    fold.apply(new ClusterChange.ReachabilityChanged(member(1, MemberStatus.up(), 1), false));
    assertSame(first, fold.snapshot(), "reachability is not membership");
    assertEquals(Set.of(new UniqueAddress(node(1), 1)), fold.unreachable());
  }

  @Test
  void rankedMembersAreOldestFirstByUpNumber() {
    MembersFold fold = new MembersFold(node(1));
    fold.apply(new ClusterChange.Members(List.of(member(3, MemberStatus.up(), 1), member(1, MemberStatus.up(), 3),
        member(2, MemberStatus.leaving(), 2), member(4, MemberStatus.joining(), Integer.MAX_VALUE)), Set.of()));
    var taking = fold.snapshot().takingShards(List.of(refs.region(1), refs.region(3)), Set.of());
    assertEquals(0, taking.get(refs.region(3)).upNumber(), "node 3 came up first");
    assertEquals(2, taking.get(refs.region(1)).upNumber());
    assertEquals(Set.of(node(1), node(2), node(3)), fold.snapshot().mayHostShards(Optional.empty()));
  }

  @Test
  void regionsAndProxiesOfNodesThatAreNoMembersAreTheOnesForgottenOnLoad() {
    MembersFold fold = new MembersFold(node(1));
    fold.apply(new ClusterChange.Members(List.of(member(1, MemberStatus.up(), 1)), Set.of()));
    CoordinatorState state = TestRefs.applied(CoordinatorState.empty(), List.of(new RegionRegistered(refs.region(1)),
        new RegionRegistered(refs.region(2)), new ProxyRegistered(refs.proxy(3))));
    assertEquals(List.of(new RegionTerminated(refs.region(2)),
        new dev.shardkit.sharding.spi.CoordinatorEvent.ProxyTerminated(refs.proxy(3))),
        fold.snapshot().leftTheCluster(state));
  }
}
