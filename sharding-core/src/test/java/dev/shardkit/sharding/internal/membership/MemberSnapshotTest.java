package dev.shardkit.sharding.internal.membership;

import static dev.shardkit.sharding.internal.TestRefs.node;
import static dev.shardkit.sharding.internal.TestRefs.member;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.RegionInfo;
import dev.shardkit.sharding.internal.TestRefs;
import dev.shardkit.sharding.spi.CoordinatorEvent.ProxyRegistered;
import dev.shardkit.sharding.spi.CoordinatorEvent.ProxyTerminated;
import dev.shardkit.sharding.spi.CoordinatorEvent.RegionRegistered;
import dev.shardkit.sharding.spi.CoordinatorEvent.RegionTerminated;
import dev.shardkit.sharding.spi.CoordinatorState;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.cluster.MemberStatus;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class MemberSnapshotTest {
  @RegisterExtension static final TestRefs refs = new TestRefs();

  private static ActorRef<Object> r(int n) {
    return refs.region(n);
  }

  @Test
  void regionsOnUpNodesTakeShardsRankedByAgeAmongUpAndLeavingNodes() {
    MemberSnapshot members = new MemberSnapshot(List.of(member(1, MemberStatus.up(), "a"),
        member(2, MemberStatus.joining()), member(3, MemberStatus.leaving()), member(4, MemberStatus.exiting()),
        member(5, MemberStatus.weaklyUp(), "b")), node(0));
    Map<ActorRef<Object>, RegionInfo> taking = members.takingShards(List.of(r(5), r(1), r(2), r(3), r(4)), Set.of());
    // The leaving node counts for the ranks but takes no shards while an Up one does.
    assertEquals(List.of(r(5), r(1)), List.copyOf(taking.keySet()), "in the order given");
    assertEquals(new RegionInfo(node(1), Set.of("a"), 0), taking.get(r(1)));
    assertEquals(new RegionInfo(node(5), Set.of("b"), 2), taking.get(r(5)));
  }

  @Test
  void withNoRegionOnAnUpNodeTheOthersTakeShardsUnranked() {
    MemberSnapshot members = new MemberSnapshot(List.of(member(1, MemberStatus.leaving(), "a"),
        member(2, MemberStatus.exiting(), "a")), node(0));
    Map<ActorRef<Object>, RegionInfo> taking = members.takingShards(List.of(r(1), r(2), r(3)), Set.of());
    assertEquals(Map.of(r(1), new RegionInfo(node(1), Set.of("a"), 0),
        r(2), new RegionInfo(node(2), Set.of(), Integer.MAX_VALUE),
        r(3), new RegionInfo(node(3), Set.of(), Integer.MAX_VALUE)), taking);
  }

  @Test
  void regionsShuttingDownTakeNoShards() {
    MemberSnapshot members = new MemberSnapshot(List.of(member(1, MemberStatus.up()), member(2, MemberStatus.up())),
        node(0));
    assertEquals(Set.of(r(2)), members.takingShards(List.of(r(1), r(2)), Set.of(r(1))).keySet());
    assertTrue(members.takingShards(List.of(r(1)), Set.of(r(1))).isEmpty());
  }

  @Test
  void theNodesThatMayHostShardsAreUpOrOnTheirWayOutWithTheRole() {
    MemberSnapshot members = new MemberSnapshot(List.of(member(1, MemberStatus.up(), "backend"),
        member(2, MemberStatus.weaklyUp(), "backend"), member(3, MemberStatus.leaving(), "backend"),
        member(4, MemberStatus.exiting(), "backend"), member(5, MemberStatus.joining(), "backend"),
        member(6, MemberStatus.down(), "backend"), member(7, MemberStatus.up(), "frontend")), node(0));
    assertEquals(Set.of(node(1), node(2), node(3), node(4)),
        members.mayHostShards(Optional.of("backend")));
    assertEquals(Set.of(node(1), node(2), node(3), node(4), node(7)),
        members.mayHostShards(Optional.empty()));
  }

  @Test
  void everyRegionUpWaitsForARegionOnAJoiningNodeUnlessItIsShuttingDown() {
    MemberSnapshot members = new MemberSnapshot(
        List.of(member(1, MemberStatus.up()), member(2, MemberStatus.joining())),
        node(0));
    assertTrue(members.everyRegionUp(List.of(r(1)), Set.of()));
    assertFalse(members.everyRegionUp(List.of(r(1), r(2)), Set.of()));
    assertTrue(members.everyRegionUp(List.of(r(1), r(2)), Set.of(r(2))));
    assertFalse(members.everyRegionUp(List.of(), Set.of()), "no region at all");
    // Outside a formed cluster (no member Up), regions are taken as they are.
    assertTrue(new MemberSnapshot(List.of(), node(0)).everyRegionUp(List.of(r(1), r(2)), Set.of()));
  }

  @Test
  void membershipOfANode() {
    MemberSnapshot members = new MemberSnapshot(List.of(member(1, MemberStatus.up()), member(2, MemberStatus.down()),
        member(3, MemberStatus.removed())), node(0));
    assertTrue(members.isMember(node(1)));
    assertTrue(members.isMember(node(2)), "down, not yet removed");
    assertFalse(members.isMember(node(3)));
    assertFalse(members.isMember(node(4)));
    assertTrue(members.isMemberNotDown(node(1)));
    assertFalse(members.isMemberNotDown(node(2)));
    assertFalse(members.isMemberNotDown(node(3)));
    assertFalse(members.isMemberNotDown(node(4)));
  }

  @Test
  void theRegionsAndProxiesOfNodesThatLeftAreForgotten() {
    MemberSnapshot members = new MemberSnapshot(List.of(member(1, MemberStatus.up()), member(2, MemberStatus.down()),
        member(3, MemberStatus.removed())), node(0));
    CoordinatorState state = CoordinatorState.empty();
    for (int n = 1; n <= 4; n++) {
      state = state.applied(new RegionRegistered(r(n)));
    }
    state = state.applied(new ProxyRegistered(refs.proxy(3))).applied(new ProxyRegistered(refs.proxy(1)));
    assertEquals(List.of(new RegionTerminated(r(3)), new RegionTerminated(r(4)), new ProxyTerminated(refs.proxy(3))),
        members.leftTheCluster(state), "a down node is still a member: it is removed later");
  }

  @Test
  void aLocalReferenceIsOnThisNode() {
    MemberSnapshot members = new MemberSnapshot(List.of(), node(9));
    assertEquals(node(9), members.addressOf(refs.local()));
    assertEquals(node(3), members.addressOf(r(3)));
  }
}
