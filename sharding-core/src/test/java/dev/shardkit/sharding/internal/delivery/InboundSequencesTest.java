package dev.shardkit.sharding.internal.delivery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.internal.delivery.InboundSequences.Verdict;
import org.junit.jupiter.api.Test;

class InboundSequencesTest {
  @Test
  void deliversEachLinksBatchesInSequenceFromOne() {
    InboundSequences<String> in = new InboundSequences<>();
    assertFalse(in.knows("a"));
    assertEquals(Verdict.DELIVER, in.offer("a", 1));
    assertEquals(Verdict.DELIVER, in.offer("a", 2));
    assertEquals(Verdict.DELIVER, in.offer("b", 1), "each link has its own sequence");
    assertEquals(2, in.lastDelivered("a"));
    assertTrue(in.knows("b"));
  }

  @Test
  void aBatchAfterAMissingOneAsksForTheResendOnceAndWaitsForIt() {
    InboundSequences<String> in = new InboundSequences<>();
    in.offer("a", 1);
    assertEquals(Verdict.GAP_ASK_RESEND, in.offer("a", 3), "batch 2 was dropped on the way");
    assertEquals(Verdict.GAP, in.offer("a", 4), "asked once: the rest of the window waits");
    assertEquals(1, in.lastDelivered("a"));
    assertEquals(Verdict.DELIVER, in.offer("a", 2));
    assertEquals(Verdict.DELIVER, in.offer("a", 3));
    assertEquals(Verdict.GAP_ASK_RESEND, in.offer("a", 5), "a new gap asks again");
    assertEquals(Verdict.GAP_ASK_RESEND, new InboundSequences<String>().offer("new", 2), "a new link starts at 1");
  }

  @Test
  void linksRefusedWhileTheNodeWaitsAreAskedForTheirBatchesOnceAfterwards() {
    InboundSequences<String> in = new InboundSequences<>();
    in.offer("a", 1);
    in.refuse("a");
    in.refuse("b");
    in.refuse("a");
    assertEquals(java.util.List.of("a", "b"), in.takeRefused());
    assertEquals(java.util.List.of(), in.takeRefused());
    in.refuse("c");
    in.forget("c");
    assertEquals(java.util.List.of(), in.takeRefused(), "a stopped link is not asked");
  }

  @Test
  void aResentBatchIsNeverDeliveredTwice() {
    InboundSequences<String> in = new InboundSequences<>();
    in.offer("a", 1);
    in.offer("a", 2);
    assertEquals(Verdict.DUPLICATE, in.offer("a", 1));
    assertEquals(Verdict.DUPLICATE, in.offer("a", 2));
    assertEquals(2, in.lastDelivered("a"));
  }

  @Test
  void aStoppedLinkIsForgotten() {
    InboundSequences<String> in = new InboundSequences<>();
    in.offer("a", 1);
    in.forget("a");
    assertFalse(in.knows("a"));
    assertEquals(0, in.size());
  }
}
