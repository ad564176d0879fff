package dev.shardkit.sharding.internal;

import static dev.shardkit.sharding.internal.TestRefs.node;
import static dev.shardkit.sharding.internal.TestRefs.region;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.RegionInfo;
import dev.shardkit.sharding.internal.MemberSnapshot.Node;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.cluster.MemberStatus;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class MemberSnapshotTest {
  private static ActorTestKit testKit;

  @BeforeAll
  static void start() {
    testKit = TestRefs.remotingTestKit();
  }

  @AfterAll
  static void stop() {
    testKit.shutdownTestKit();
  }

  private static Node member(int n, MemberStatus status, String... roles) {
    return new Node(node(n), status, Set.of(roles));
  }

  private static ActorRef<Object> r(int n) {
    return region(testKit, n);
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
    MemberSnapshot members = new MemberSnapshot(List.of(member(1, MemberStatus.up()), member(2, MemberStatus.joining())),
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
  void aLocalReferenceIsOnThisNode() {
    MemberSnapshot members = new MemberSnapshot(List.of(), node(9));
    assertEquals(node(9), members.addressOf(testKit.createTestProbe(Object.class).ref()));
    assertEquals(node(3), members.addressOf(r(3)));
  }
}
