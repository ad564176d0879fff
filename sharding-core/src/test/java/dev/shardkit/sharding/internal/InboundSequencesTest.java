package dev.shardkit.sharding.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.internal.InboundSequences.Verdict;
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
  void aBatchAfterAMissingOneWaitsForTheResend() {
    InboundSequences<String> in = new InboundSequences<>();
    in.offer("a", 1);
    assertEquals(Verdict.GAP, in.offer("a", 3), "batch 2 was dropped on the way");
    assertEquals(1, in.lastDelivered("a"));
    assertEquals(Verdict.DELIVER, in.offer("a", 2));
    assertEquals(Verdict.DELIVER, in.offer("a", 3));
    assertEquals(Verdict.GAP, new InboundSequences<String>().offer("new", 2), "a new link starts at 1");
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
