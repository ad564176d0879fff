package dev.shardkit.sharding.internal.region;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.internal.delivery.Outbox;
import dev.shardkit.sharding.internal.region.RegionRouting.Held;
import dev.shardkit.sharding.internal.region.RegionRouting.NodeChange;
import dev.shardkit.sharding.internal.region.RegionRouting.Refused;
import dev.shardkit.sharding.internal.region.RegionRouting.ToRegion;
import dev.shardkit.sharding.internal.region.RegionRouting.ToShard;
import dev.shardkit.sharding.internal.region.RoutingTable.Local;
import dev.shardkit.sharding.internal.region.RoutingTable.Remote;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.Deliver;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.testkit.typed.javadsl.TestInbox;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.Test;

/** A region's routing decisions and held messages; nothing is sent. */
class RegionRoutingTest {
  // Inboxes only provide ActorRef identities; the routing never sends anything.
  private static final ActorRef<Object> shard = TestInbox.create("shard").getRef();
  private static final ActorRef<Object> region = TestInbox.create("region").getRef();
  private static final Remote remote = new Remote(region, new Outbox(region, 10));
  private static final Address node = region.path().address();

  private static Deliver msg(String shardId, int n) {
    return new Deliver("type", shardId, "e" + n, n);
  }

  @Test
  void aMessageForAShardWithoutAKnownHomeIsHeldAndOnlyTheFirstAsksForTheHome() {
    RegionRouting routing = new RegionRouting(10);
    assertEquals(new Held(true), routing.route(msg("s1", 1)));
    assertEquals(new Held(false), routing.route(msg("s1", 2)));
    assertEquals(new Held(true), routing.route(msg("s2", 3)));
    assertEquals(3, routing.held());
    assertTrue(routing.holds("s1"));
    assertEquals(Set.of("s1", "s2"), routing.awaitingHome());
    assertEquals(Set.of("s1", "s2"), routing.heldShards());
  }

  @Test
  void pastTheLimitOverAllShardsAMessageIsRefused() {
    RegionRouting routing = new RegionRouting(2);
    routing.route(msg("s1", 1));
    routing.route(msg("s2", 2));
    Refused refused = assertInstanceOf(Refused.class, routing.route(msg("s3", 3)));
    assertTrue(refused.reason().contains("buffer-size = 2"), refused.reason());
    assertTrue(refused.reason().contains("shard [s3] whose home is not known yet"), refused.reason());
    assertFalse(routing.holds("s3"));
    assertEquals(2, routing.held());
  }

  @Test
  void aKnownHomeIsRoutedTo() {
    RegionRouting routing = new RegionRouting(10);
    routing.home("s1", new Local(shard));
    routing.home("s2", remote);
    assertEquals(new ToShard(shard), routing.route(msg("s1", 1)));
    assertEquals(new ToRegion(remote), routing.route(msg("s2", 2)));
    assertEquals(0, routing.held());
  }

  @Test
  void whatWasHeldIsReleasedOldestFirstAndOnlyOnce() {
    RegionRouting routing = new RegionRouting(10);
    routing.route(msg("s1", 1));
    routing.route(msg("s2", 2));
    routing.route(msg("s1", 3));
    routing.home("s1", new Local(shard));
    assertEquals(List.of(msg("s1", 1), msg("s1", 3)), routing.release("s1"));
    assertEquals(List.of(), routing.release("s1"));
    assertEquals(1, routing.held());
    assertEquals(List.of(msg("s2", 2)), routing.releaseAll());
    assertEquals(0, routing.held());
  }

  @Test
  void aShardWithoutHomeAnyMoreHoldsItsMessages() {
    RegionRouting routing = new RegionRouting(10);
    routing.home("s1", new Local(shard));
    routing.noHome("s1");
    assertNull(routing.table().knownHome("s1"));
    assertEquals(new Held(true), routing.route(msg("s1", 1)));
  }

  @Test
  void messagesForAnUnreachableNodeAreHeldWithoutAskingAndGoOnWhenItIsReachableAndConfirmed() {
    RegionRouting routing = new RegionRouting(10);
    routing.home("s1", remote);
    NodeChange away = routing.nodeChanged(node, held -> held.unreachable(node, 1)).orElseThrow();
    assertEquals(new NodeChange(false, List.of("s1"), List.of()), away);
    assertEquals(Optional.of("unreachable; messages for its 1 shard(s) are held"), away.report());

    assertEquals(new Held(false), routing.route(msg("s1", 1)), "asking again would give the same home");
    routing.route(msg("s1", 2));
    assertEquals(Set.of(), routing.awaitingHome());

    assertEquals(Optional.empty(), routing.nodeChanged(node, held -> held.reachable(node, 1)), "returning: still held");
    assertTrue(routing.isReturning(node));
    assertEquals(new Held(false), routing.route(msg("s1", 3)));
    NodeChange back = routing.nodeChanged(node, held -> held.confirmed(node)).orElseThrow();
    assertEquals(new NodeChange(true, List.of("s1"), List.of(msg("s1", 1), msg("s1", 2), msg("s1", 3))), back);
    assertEquals(Optional.of("reachable again; messages for its 1 shard(s) go on"), back.report());
    assertEquals(new ToRegion(remote), routing.route(msg("s1", 4)));
  }

  @Test
  void aNodeWithoutShardsOfThisRegionChangesSilently() {
    NodeChange away = new RegionRouting(10).nodeChanged(node, held -> held.unreachable(node, 1)).orElseThrow();
    assertEquals(List.of(), away.affected());
    assertEquals(Optional.empty(), away.report());
  }

  @Test
  void aFullBufferForAnUnreachableHomeNamesIt() {
    RegionRouting routing = new RegionRouting(0);
    routing.home("s1", remote);
    routing.nodeChanged(node, held -> held.unreachable(node, 1));
    Refused refused = assertInstanceOf(Refused.class, routing.route(msg("s1", 1)));
    assertTrue(refused.reason().contains(node + " is unreachable"), refused.reason());
  }

  @Test
  void aDownedNodeThatIsReachableAgainStaysHeld() {
    RegionRouting routing = new RegionRouting(10);
    routing.home("s1", remote);
    routing.nodeChanged(node, held -> held.unreachable(node, 1));
    assertEquals(Optional.empty(), routing.nodeChanged(node, held -> held.downed(node, 1)), "held already");
    assertEquals(Optional.empty(), routing.nodeChanged(node, held -> held.reachable(node, 1)));
    assertEquals(new Held(false), routing.route(msg("s1", 1)));
  }

  @Test
  void whileTheGateIsClosedLocalShardsAreHeldAndOpeningReleasesThem() {
    RegionRouting routing = new RegionRouting(10);
    routing.home("s1", new Local(shard));
    routing.route(msg("s2", 0));
    assertEquals(Optional.of(List.of()), routing.gate(true));
    assertEquals(Optional.empty(), routing.gate(true), "closed already");

    assertEquals(new Held(false), routing.route(msg("s1", 1)));
    Refused refused = assertInstanceOf(Refused.class, full(routing, "s1"));
    assertTrue(refused.reason().contains("here waits for this node to be confirmed a member"), refused.reason());

    List<Deliver> released = routing.gate(false).orElseThrow();
    assertEquals(msg("s1", 1), released.get(0));
    assertFalse(released.contains(msg("s2", 0)), "only the shards hosted here");
    assertEquals(new ToShard(shard), routing.route(msg("s1", 2)));
  }

  /** Fills the buffer, then routes one more for the shard. */
  private static RegionRouting.Route full(RegionRouting routing, String shardId) {
    int n = 100;
    RegionRouting.Route route;
    do {
      route = routing.route(msg(shardId, n++));
    } while (route instanceof Held);
    return route;
  }

  @Test
  void aGoneRegionsShardsAreHeldUntilItsLinkHandsBackWhichGoesFirstWhateverTheLimit() {
    RegionRouting routing = new RegionRouting(1);
    routing.home("s1", remote);
    routing.closing(region);
    assertTrue(routing.closingFor("s1"));
    assertEquals(new Held(false), routing.route(msg("s1", 3)));

    assertEquals(List.of("s1"), routing.handBack(List.of(msg("s1", 1), msg("s1", 2))));
    assertEquals(3, routing.held(), "handed back past the limit: it was admitted once");
    assertEquals(1, routing.forget(region));
    assertFalse(routing.closingFor("s1"));
    assertNull(routing.table().knownHome("s1"));
    assertEquals(Set.of("s1"), routing.awaitingHome());
    assertEquals(List.of(msg("s1", 1), msg("s1", 2), msg("s1", 3)), routing.release("s1"));
  }

  @Test
  void aHeldRegionsLinkMayHandBackForAShardRoutedThereEvenAfterItsHomeWasDropped() {
    RegionRouting routing = new RegionRouting(10);
    ActorRef<Object> next = TestInbox.create("next").getRef();
    routing.home("s1", remote);
    assertFalse(routing.mayHandBack("s1", next, r -> true), "its region is not held");
    routing.closing(region);
    assertTrue(routing.mayHandBack("s1", next, r -> true));
    assertFalse(routing.mayHandBack("s1", region, r -> true), "the same region named again");
    assertFalse(routing.mayHandBack("s1", next, r -> false), "no link to it");
    routing.noHome("s1");
    assertTrue(routing.mayHandBack("s1", next, r -> true), "a hand-off dropped the home, not the link's messages");
    routing.forget(region);
    assertFalse(routing.mayHandBack("s1", next, r -> true));
  }

  @Test
  void handingBackNamesTheShardsItIsForInOrder() {
    RegionRouting routing = new RegionRouting(10);
    assertEquals(List.of("s1", "s2"), routing.handBack(List.of(msg("s1", 1), msg("s2", 2), msg("s1", 3))));
    assertEquals(List.of(msg("s1", 1), msg("s1", 3)), routing.release("s1"));
    assertEquals(List.of(), routing.handBack(List.of()));
  }
}
