package dev.shardkit.sharding.internal.delivery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.internal.delivery.LinkEffect.CancelResendCheck;
import dev.shardkit.sharding.internal.delivery.LinkEffect.Closed;
import dev.shardkit.sharding.internal.delivery.LinkEffect.Confirmed;
import dev.shardkit.sharding.internal.delivery.LinkEffect.Drop;
import dev.shardkit.sharding.internal.delivery.LinkEffect.Flushed;
import dev.shardkit.sharding.internal.delivery.LinkEffect.InTransit;
import dev.shardkit.sharding.internal.delivery.LinkEffect.Report;
import dev.shardkit.sharding.internal.delivery.LinkEffect.SendBatch;
import dev.shardkit.sharding.internal.delivery.LinkEffect.StartResendCheck;
import dev.shardkit.sharding.internal.delivery.LinkEffect.Stopped;
import dev.shardkit.sharding.internal.wire.EncodedItem;
import dev.shardkit.sharding.internal.wire.ItemEncoder;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.Deliver;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.DeliveryAck;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.DeliveryBatch;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.HandOffMarker;
import dev.shardkit.sharding.internal.wire.ShardingSerializer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.apache.pekko.actor.testkit.typed.javadsl.TestInbox;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A link's decisions, input by input: its effects are checked, nothing is sent. */
class LinkMachineTest {
  // Inboxes only provide ActorRef identities.
  private static final ActorRef<Object> self = TestInbox.create("link").getRef();
  private static final ActorRef<Object> destination = TestInbox.create("destination").getRef();
  private static final ActorRef<Object> region = TestInbox.create("region").getRef();

  private static final long MS = 1_000_000L;
  private static final long SECOND = 1_000 * MS;
  /** Three items or 100 bytes a batch, items of at most 200 bytes, two batches in flight. */
  private static final LinkConfig CONFIG = new LinkConfig(3, 100, 200, 2, SECOND, 250 * MS);

  /** An outbox as the link sees it; a test hands messages over between inputs. */
  private static final class TestOutbox implements OutboxSource {
    final ArrayDeque<Object> queue = new ArrayDeque<>();
    /**
     * Handed over while the link takes a look that finds the queue empty, the {@link #emptyLooks}-th:
     * it is in the queue right after.
     */
    final List<Object> duringLastLook = new ArrayList<>();
    int emptyLooks = 1;
    boolean closed;
    boolean closedBeforeLastPoll;

    void hand(Object... messages) {
      for (Object m : messages) {
        queue.add(m);
      }
    }

    @Override
    public Object poll() {
      Object m = queue.poll();
      if (m == null && closed) {
        closedBeforeLastPoll = true;
      }
      if (m == null && !duringLastLook.isEmpty() && --emptyLooks == 0) {
        queue.addAll(duringLastLook);
        duringLastLook.clear();
      }
      return m;
    }

    @Override
    public boolean idleAgain() {
      return !queue.isEmpty();
    }

    @Override
    public int waiting() {
      return queue.size();
    }

    @Override
    public void close() {
      closed = true;
    }
  }

  /**
   * Writes a Deliver whose message is an Integer as that many bytes; refuses one whose message is
   * "unserializable"; remembers what it was asked.
   */
  private final class TestEncoder implements ItemEncoder {
    final List<Boolean> batches = new ArrayList<>();
    final List<Object> undone = new ArrayList<>();

    @Override
    public BatchWriter newBatch(boolean compact, int sizeHint) {
      batches.add(compact);
      return new BatchWriter() {
        @Override
        public EncodedItem write(Object item) {
          Object message = item instanceof Deliver d ? d.message() : null;
          if ("unserializable".equals(message)) {
            throw new IllegalArgumentException("cannot serialize the message for entity [" + ((Deliver) item).entityId()
                + "]");
          }
          int length = message instanceof Integer n ? n : 4;
          return new EncodedItem(item, ShardingSerializer.ITEM_DELIVER, new byte[length]);
        }

        @Override
        public void undo(EncodedItem last) {
          undone.add(last.original());
        }
      };
    }
  }

  private TestOutbox outbox;
  private TestEncoder encoder;
  private LinkMachine link;

  @BeforeEach
  void newLink() {
    outbox = new TestOutbox();
    encoder = new TestEncoder();
    link = new LinkMachine(CONFIG, self, destination, outbox, encoder);
  }

  /** The n-th message: a Deliver of {@code bytes} bytes for entity en. */
  private static Deliver msg(int n, Object bytes) {
    return new Deliver("T", "s", "e" + n, bytes);
  }

  private static Deliver msg(int n) {
    return msg(n, 4);
  }

  private List<LinkEffect> handle(LinkInput input, long now) {
    return List.copyOf(link.handle(input, now));
  }

  private List<LinkEffect> drain(long now) {
    return handle(LinkInput.Drain.INSTANCE, now);
  }

  private List<LinkEffect> ack(long seq, long now) {
    return handle(new LinkInput.Ack(new DeliveryAck(seq, false, false)), now);
  }

  /** The originals of a batch's items. */
  private static List<Object> originals(DeliveryBatch batch) {
    return batch.items().stream().map(i -> ((EncodedItem) i).original()).toList();
  }

  private static List<DeliveryBatch> sent(List<LinkEffect> effects) {
    return effects.stream().filter(SendBatch.class::isInstance).map(e -> ((SendBatch) e).batch()).toList();
  }

  private static long resendCheck(List<LinkEffect> effects) {
    return effects.stream().filter(StartResendCheck.class::isInstance).map(e -> ((StartResendCheck) e).generation())
        .findFirst().orElseThrow();
  }

  @Test
  void whatWaitsGoesInNumberedBatchesOfAtMostMaxMessagesWhileTheWindowHasRoom() {
    outbox.hand(msg(1), msg(2), msg(3), msg(4), msg(5));
    List<LinkEffect> effects = drain(0);
    assertEquals(4, effects.size(), effects.toString());
    DeliveryBatch first = ((SendBatch) effects.get(0)).batch();
    assertEquals(self, first.link());
    assertEquals(1, first.seq());
    assertEquals(List.of(msg(1), msg(2), msg(3)), originals(first));
    assertEquals(new StartResendCheck(resendCheck(effects), 250 * MS), effects.get(1), "one check for the window");
    DeliveryBatch second = ((SendBatch) effects.get(2)).batch();
    assertEquals(2, second.seq());
    assertEquals(List.of(msg(4), msg(5)), originals(second));
    assertEquals(InTransit.of(5), effects.get(3));
    assertEquals(List.of(false, false), encoder.batches, "not compact before the receiver said it reads them");
  }

  @Test
  void nothingWaitingMakesNoBatchAndNoEffect() {
    assertEquals(List.of(), drain(0));
    assertEquals(List.of(), encoder.batches, "no writer for nothing");
  }

  @Test
  void anItemThatDoesNotFitTheBatchStartsTheNext() {
    outbox.hand(msg(1, 60), msg(2, 60), msg(3, 4));
    List<DeliveryBatch> batches = sent(drain(0));
    assertEquals(List.of(msg(1, 60)), originals(batches.get(0)));
    assertEquals(List.of(msg(2, 60), msg(3, 4)), originals(batches.get(1)));
    assertEquals(List.of(msg(2, 60)), encoder.undone, "taken back from the first batch's writer");
  }

  @Test
  void anItemTooLargeForAFrameOrThatCannotBeSerializedIsDroppedAlone() {
    outbox.hand(msg(1), msg(2, 250), msg(3, "unserializable"), new HandOffMarker("s", region, 7));
    List<LinkEffect> effects = drain(0);
    assertEquals(new Drop(msg(2, 250), "a message of 250 serialized bytes for entity [e2] does not fit in one remoting "
        + "frame (pekko.remote.artery.advanced.maximum-frame-size allows 200 bytes for it)"), effects.get(0));
    assertEquals(new Drop(msg(3, "unserializable"), "cannot serialize the message for entity [e3]"), effects.get(1));
    assertEquals(List.of(msg(1), new HandOffMarker("s", region, 7)), originals(sent(effects).get(0)));
    assertEquals(List.of(msg(2, 250)), encoder.undone);
    assertEquals(InTransit.of(2), effects.get(effects.size() - 1));
  }

  @Test
  void aFullWindowLeavesMessagesWaitingUntilAnAcknowledgementMakesRoom() {
    for (int i = 1; i <= 9; i++) {
      outbox.hand(msg(i));
    }
    assertEquals(List.of(1L, 2L), sent(drain(0)).stream().map(DeliveryBatch::seq).toList());
    assertEquals(3, outbox.waiting());
    List<LinkEffect> effects = ack(1, 10 * MS);
    assertEquals(1, effects.size(), "still six in transit: nothing to tell the outbox: " + effects);
    assertEquals(3, ((SendBatch) effects.get(0)).batch().seq());
    assertEquals(List.of(), ack(1, 20 * MS), "a repeated acknowledgement releases nothing");
    assertEquals(List.of(InTransit.of(0)), ack(3, 30 * MS), "cumulative");
  }

  @Test
  void itemsAreCompactOnceTheReceiverSaidItReadsThem() {
    outbox.hand(msg(1));
    drain(0);
    outbox.hand(msg(2));
    handle(new LinkInput.Ack(new DeliveryAck(1, false, true)), 0);
    drain(0);
    handle(new LinkInput.Ack(new DeliveryAck(2, false, false)), 0);
    outbox.hand(msg(3));
    drain(0);
    assertEquals(List.of(false, true, false), encoder.batches);
  }

  @Test
  void aMessageHandedOverDuringTheLastLookIsTakenInTheSameDrain() {
    outbox.hand(msg(1));
    // The first empty look ends the first batch; the second is the look before the link goes idle.
    outbox.duringLastLook.add(msg(2));
    outbox.emptyLooks = 2;
    List<DeliveryBatch> batches = sent(drain(0));
    assertEquals(List.of(msg(1)), originals(batches.get(0)));
    assertEquals(List.of(msg(2)), originals(batches.get(1)));
  }

  @Test
  void theOverdueWindowIsSentAgainWithADoublingTimeout() {
    outbox.hand(msg(1), msg(2), msg(3), msg(4));
    List<LinkEffect> first = drain(0);
    List<DeliveryBatch> batches = sent(first);
    long check = resendCheck(first);

    List<LinkEffect> early = handle(new LinkInput.ResendCheckFired(check), 250 * MS);
    assertEquals(1, early.size(), "not due yet: only the next check " + early);
    check = resendCheck(early);
    assertEquals(List.of(), handle(new LinkInput.ResendCheckFired(check - 1), 260 * MS), "a stale check");

    List<LinkEffect> due = handle(new LinkInput.ResendCheckFired(check), SECOND);
    assertEquals(new Report(new LinkNotice.ResentOverdue(destination, 2, 2_000)), due.get(0));
    assertEquals("Delivery to " + destination.path() + ": 2 batch(es) not acknowledged within 2000 ms; sending them "
        + "again", ((Report) due.get(0)).notice().render());
    assertEquals(batches, sent(due), "every batch in flight, in sequence");
    List<LinkEffect> notYet = handle(new LinkInput.ResendCheckFired(resendCheck(due)), 2_500 * MS);
    assertEquals(1, notYet.size(), "the next is due two seconds after the resend: " + notYet);

    ack(2, 2_600 * MS);
    List<LinkEffect> last = handle(new LinkInput.ResendCheckFired(resendCheck(notYet)), 3_000 * MS);
    assertEquals(List.of(), last, "nothing in flight: no resend, no further check");
  }

  @Test
  void theReceiverAsksForWhatItLetGo() {
    outbox.hand(msg(1), msg(2), msg(3), msg(4));
    List<DeliveryBatch> batches = sent(drain(0));
    List<LinkEffect> effects = handle(new LinkInput.Ack(new DeliveryAck(1, true)), 0);
    assertEquals(new Report(new LinkNotice.ResentNow(destination, 1, LinkNotice.Why.RECEIVER_ASKED)), effects.get(0));
    assertSame(batches.get(1), ((SendBatch) effects.get(1)).batch(), "the same batch, not a new one");
    assertEquals("Delivery to " + destination.path() + ": sending 1 unacknowledged batch(es) again: the receiver asked "
        + "for them", ((Report) effects.get(0)).notice().render());
  }

  @Test
  void aDestinationReachableAgainGetsTheWindowAtOnce() {
    assertEquals(List.of(), handle(LinkInput.ResendNow.INSTANCE, 0), "nothing in flight");
    outbox.hand(msg(1));
    List<DeliveryBatch> batches = sent(drain(0));
    List<LinkEffect> effects = handle(LinkInput.ResendNow.INSTANCE, 5 * SECOND);
    assertEquals(List.of(new Report(new LinkNotice.ResentNow(destination, 1, LinkNotice.Why.REACHABLE_AGAIN)),
        new SendBatch(batches.get(0))), effects);
  }

  @Test
  void aProbeWithNothingInFlightSendsAnEmptyBatchAndConfirmsOnItsAcknowledgement() {
    outbox.hand(msg(1));
    drain(0);
    ack(1, 0);
    List<LinkEffect> effects = handle(new LinkInput.Probe(region), 5 * SECOND);
    List<DeliveryBatch> probe = sent(effects);
    assertEquals(1, probe.size(), "one batch: " + effects);
    assertEquals(new DeliveryBatch(self, 2, List.of()), probe.get(0), "empty, numbered after the last one");
    assertEquals(List.of(), ack(1, 5 * SECOND), "an acknowledgement from before the probe confirms nothing");
    assertEquals(List.of(new Confirmed(region)), ack(2, 5 * SECOND));
    assertEquals(List.of(), ack(2, 5 * SECOND), "confirmed once");
  }

  @Test
  void aProbeSendsTheWindowAgainAndConfirmsOnceAllOfItIsAcknowledged() {
    outbox.hand(msg(1), msg(2), msg(3), msg(4));
    List<DeliveryBatch> batches = sent(drain(0));
    List<LinkEffect> effects = handle(new LinkInput.Probe(region), 5 * SECOND);
    assertEquals(List.of(new Report(new LinkNotice.ResentNow(destination, 2, LinkNotice.Why.REACHABLE_AGAIN)),
        new SendBatch(batches.get(0)), new SendBatch(batches.get(1))), effects, "the window again, no empty batch");
    assertTrue(ack(1, 5 * SECOND).stream().noneMatch(Confirmed.class::isInstance), "batch 2 is not acknowledged yet");
    assertTrue(ack(2, 5 * SECOND).contains(new Confirmed(region)));
  }

  @Test
  void aRefusedProbeIsSentAgainWhenTheReceiverAsksAndConfirmsOnlyThen() {
    sent(handle(new LinkInput.Probe(region), 0));
    // The receiver's gate was closed: it refused the batch, and asks for it again once it opens.
    List<LinkEffect> effects = handle(new LinkInput.Ack(new DeliveryAck(0, true)), SECOND);
    assertEquals(List.of(new DeliveryBatch(self, 1, List.of())), sent(effects));
    assertTrue(effects.stream().noneMatch(Confirmed.class::isInstance), effects.toString());
    assertEquals(List.of(new Confirmed(region)), ack(1, SECOND));
  }

  @Test
  void aHoldingLinkSendsNothingMoreFromItsOutboxAndHandsItBackOnClosing() {
    outbox.hand(msg(1), msg(2), msg(3), msg(4), msg(5), msg(6), msg(7));
    List<DeliveryBatch> batches = sent(drain(0));
    assertEquals(2, batches.size(), "the window is full; 7 waits");
    handle(LinkInput.Hold.INSTANCE, 0);
    // A node downed while a majority still confirmed it acknowledges for a moment: what waits must
    // not follow into the window.
    assertTrue(sent(ack(2, 0)).isEmpty(), "nothing more is sent");
    assertTrue(sent(drain(0)).isEmpty());
    List<LinkEffect> closed = handle(new LinkInput.Close(region), 0);
    assertEquals(new Closed(region, List.of(), List.of(msg(7))), closed.get(0), "what waited goes back");
  }

  @Test
  void closingHandsBackTheUnacknowledgedThenTheUnsentAndStops() {
    outbox.hand(msg(1, 60), msg(2, 60), msg(3), msg(4, 60), msg(5));
    // Batch 1 is [1], batch 2 [2, 3]; 4 did not fit and waits taken out, 5 in the outbox.
    assertEquals(InTransit.of(4), drain(0).get(3));
    outbox.hand(msg(6));
    List<LinkEffect> effects = handle(new LinkInput.Close(region), 0);
    assertTrue(outbox.closedBeforeLastPoll, "the outbox refuses callers before the link takes its last look");
    assertEquals(List.of(new Closed(region, List.of(msg(1, 60), msg(2, 60), msg(3)),
        List.of(msg(4, 60), msg(5), msg(6))), InTransit.of(0), new CancelResendCheck(), new Stopped()), effects);
    outbox.hand(msg(11));
    assertEquals(List.of(), drain(0), "a closed link does nothing more");
  }

  @Test
  void aFlushIsAnsweredOnceEverythingHandedOverIsAcknowledged() {
    assertEquals(List.of(new Flushed(region)), handle(new LinkInput.Flush(region), 0), "nothing to wait for");
    for (int i = 1; i <= 7; i++) {
      outbox.hand(msg(i));
    }
    drain(0);
    assertEquals(List.of(), handle(new LinkInput.Flush(region), 0));
    List<LinkEffect> effects = ack(2, 0);
    assertTrue(effects.stream().noneMatch(Flushed.class::isInstance), "one message was still waiting: " + effects);
    assertEquals(List.of(InTransit.of(0), new Flushed(region)), ack(3, 0));
    assertEquals(List.of(), ack(3, 0), "answered once");
  }

  @Test
  void theUnacknowledgedCanBeListedInOrder() {
    outbox.hand(msg(1), msg(2), msg(3), msg(4));
    drain(0);
    List<Object> unacknowledged = new ArrayList<>();
    link.forEachUnacknowledged(unacknowledged::add);
    assertEquals(List.of(msg(1), msg(2), msg(3), msg(4)), unacknowledged);
    assertEquals(3, link.nextSeq());
  }
}
