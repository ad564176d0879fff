package dev.shardkit.sharding.internal.delivery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.internal.region.RegionNotice;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.Deliver;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.DeliveryAck;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.DeliveryBatch;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.HandOffMarker;
import java.util.ArrayList;
import java.util.List;
import org.apache.pekko.actor.testkit.typed.javadsl.TestInbox;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A region's remote-delivery bookkeeping; what it would tell links is recorded, not sent. */
class RegionLinksTest {
  // Inboxes only provide ActorRef identities; the links under test never run.
  private static final ActorRef<Object> destinationA = TestInbox.create("a").getRef();
  private static final ActorRef<Object> destinationB = TestInbox.create("b").getRef();
  private static final ActorRef<Object> startedLink = TestInbox.create("link").getRef();
  private static final ActorRef<Object> inboundLink = TestInbox.create("inbound").getRef();
  private static final ActorRef<Object> otherInboundLink = TestInbox.create("other-inbound").getRef();
  private static final ActorRef<Object> region = TestInbox.create("region").getRef();

  /** One thing the links would have been told. */
  private record Told(ActorRef<Object> to, Object message) {}

  private final List<Told> told = new ArrayList<>();
  private final List<RegionNotice> notices = new ArrayList<>();
  private final List<Outbox> started = new ArrayList<>();
  private final List<ActorRef<Object>> watched = new ArrayList<>();
  private RegionLinks links;

  @BeforeEach
  void newLinks() {
    links = linksRedelivering(false);
  }

  private RegionLinks linksRedelivering(boolean redeliverUnacknowledged) {
    return new RegionLinks("type", notices::add, 10, redeliverUnacknowledged,
        outbox -> {
          started.add(outbox);
          outbox.attach(startedLink);
        }, watched::add, (to, message) -> told.add(new Told(to, message)),
        (outbox, message) -> told.add(new Told(outbox.link(), message)));
  }

  private static Deliver msg(String shardId, int n) {
    return new Deliver("type", shardId, "e" + n, n);
  }

  private static DeliveryBatch batch(ActorRef<Object> link, long seq) {
    return new DeliveryBatch(link, seq, List.of(msg("s1", (int) seq)));
  }

  @Test
  void oneLinkPerDestinationStartedOnFirstUse() {
    assertFalse(links.hasLinkTo(destinationA));
    Outbox outbox = links.outboxFor(destinationA);
    assertSame(outbox, links.outboxFor(destinationA));
    assertEquals(List.of(outbox), started);
    assertSame(destinationA, outbox.destination());
    assertSame(startedLink, outbox.link());
    assertEquals(10, outbox.limit());
    assertTrue(links.hasLinkTo(destinationA));
    assertFalse(links.hasLinkTo(destinationB));
  }

  @Test
  void theOutboxesAreListedInTheOrderTheirLinksStarted() {
    links.outboxFor(destinationB);
    links.outboxFor(destinationA);
    assertEquals(List.of(destinationB, destinationA), links.outboxes().stream().map(Outbox::destination).toList());
  }

  @Test
  void pendingCountsWhatWaitsInEveryLink() {
    assertEquals(0, links.outboxes().stream().mapToInt(Outbox::pending).sum());
    links.outboxFor(destinationA).offer(msg("s1", 1));
    links.outboxFor(destinationB).offerAlways(msg("s2", 2));
    assertEquals(2, links.outboxes().stream().mapToInt(Outbox::pending).sum());
  }

  @Test
  void closingTellsTheLinkToReplyToTheRegion() {
    links.close(destinationA, region);
    assertEquals(List.of(), told, "no link to close");
    links.outboxFor(destinationA);
    links.close(destinationA, region);
    assertEquals(List.of(new Told(startedLink, new DeliveryLink.Close(region))), told);
  }

  @Test
  void aClosedLinkHandsBackWhatItNeverSentButNotWhatWasUnacknowledgedByDefault() {
    links.outboxFor(destinationA);
    HandOffMarker marker = new HandOffMarker("s9", region, 1);
    List<Deliver> back = links.closed(new DeliveryLink.Closed(destinationA, List.of(msg("s1", 1)),
        List.of(msg("s1", 2), marker, msg("s2", 3))));
    assertEquals(List.of(msg("s1", 2), msg("s2", 3)), back, "a marker for a region that is gone reaches nobody");
    assertFalse(links.hasLinkTo(destinationA), "a closed link is forgotten");
  }

  @Test
  void withRedeliveryAfterCrashTheUnacknowledgedGoFirst() {
    links = linksRedelivering(true);
    links.outboxFor(destinationA);
    List<Deliver> back = links.closed(new DeliveryLink.Closed(destinationA, List.of(msg("s1", 1)),
        List.of(msg("s1", 2))));
    assertEquals(List.of(msg("s1", 1), msg("s1", 2)), back);
  }

  @Test
  void theNextBatchIsDeliveredAndAcknowledgedAndItsLinkWatchedOnce() {
    assertTrue(links.accept(batch(inboundLink, 1), false));
    links.acknowledge(batch(inboundLink, 1));
    assertTrue(links.accept(batch(inboundLink, 2), false));
    assertEquals(List.of(inboundLink), watched);
    assertEquals(List.of(new Told(inboundLink, new DeliveryAck(1, false))), told);
  }

  @Test
  void aReceivedBatchHandsOnItsItemsInOrderBeforeItIsAcknowledged() {
    List<Object> handed = new ArrayList<>();
    DeliveryBatch batch = new DeliveryBatch(inboundLink, 1, List.of(msg("s1", 1), msg("s2", 2)));
    links.receive(batch, false, item -> {
      handed.add(item);
      assertEquals(List.of(), told, "acknowledged only after every item");
    });
    assertEquals(List.of(msg("s1", 1), msg("s2", 2)), handed);
    assertEquals(List.of(new Told(inboundLink, new DeliveryAck(1, false))), told);

    handed.clear();
    links.receive(batch, false, handed::add);
    links.receive(batch(otherInboundLink, 1), true, handed::add);
    assertEquals(List.of(), handed, "a repeat, and a batch while the gate is closed, hand on nothing");
  }

  @Test
  void aRepeatedBatchIsAnsweredWithTheLastDeliveredAndNotDeliveredAgain() {
    links.accept(batch(inboundLink, 1), false);
    assertFalse(links.accept(batch(inboundLink, 1), false));
    assertEquals(List.of(new Told(inboundLink, new DeliveryAck(1, false))), told);
  }

  @Test
  void aBatchAfterAMissingOneAsksForTheMissingOnceAndIsNotDelivered() {
    links.accept(batch(inboundLink, 1), false);
    assertFalse(links.accept(batch(inboundLink, 3), false));
    assertFalse(links.accept(batch(inboundLink, 4), false));
    assertEquals(List.of(new Told(inboundLink, new DeliveryAck(1, true))), told, "asked once per gap");
    assertTrue(links.accept(batch(inboundLink, 2), false));
  }

  @Test
  void whileTheGateIsClosedBatchesAreRefusedAndAskedForAgainWhenItOpens() {
    links.accept(batch(inboundLink, 1), false);
    assertFalse(links.accept(batch(inboundLink, 2), true));
    assertFalse(links.accept(batch(otherInboundLink, 1), true));
    assertEquals(List.of(), told, "not acknowledged: its sender must not count it as delivered");

    links.askForRefused();
    assertEquals(List.of(new Told(inboundLink, new DeliveryAck(1, true)),
        new Told(otherInboundLink, new DeliveryAck(0, true))), told);
    told.clear();
    links.askForRefused();
    assertEquals(List.of(), told, "asked once");
    assertTrue(links.accept(batch(inboundLink, 2), false));
  }

  @Test
  void aStoppedInboundLinkIsForgotten() {
    links.accept(batch(inboundLink, 1), false);
    links.inboundGone(inboundLink);
    assertTrue(links.accept(batch(inboundLink, 1), false), "a new sequence from the start");
    assertEquals(List.of(inboundLink, inboundLink), watched, "watched again");
  }

  @Test
  void aNodeReachableAgainHasItsLinksResendNow() {
    links.outboxFor(destinationA);
    links.resendNow(destinationA.path().address());
    // Every inbox has the same address: the link to each destination there is told.
    assertEquals(List.of(new Told(startedLink, DeliveryLink.ResendNow.INSTANCE)), told);
    told.clear();
    links.resendNow(new org.apache.pekko.actor.Address("pekko", "elsewhere", "10.0.0.9", 2552));
    assertEquals(List.of(), told);
  }
}
