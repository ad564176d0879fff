package dev.shardkit.sharding.internal.region;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Which coordinator, at which term, a region acts on. */
class CoordinatorFenceTest {

  @Test
  void beforeAnyAcknowledgementNothingIsActedOn() {
    CoordinatorFence<String> fence = new CoordinatorFence<>();
    assertFalse(fence.actsOn(0));
    assertFalse(fence.actsOn(1));
    assertNull(fence.coordinator());
    assertEquals(2, fence.refused());
  }

  @Test
  void homesAndHandOffsAreActedOnOnlyAtTheCurrentTerm() {
    CoordinatorFence<String> fence = new CoordinatorFence<>();
    assertEquals(CoordinatorFence.Ack.NEW, fence.acknowledged("a", 7));
    assertTrue(fence.actsOn(7));
    assertFalse(fence.actsOn(6), "a deposed coordinator's");
    assertFalse(fence.actsOn(8), "a newer coordinator's, before it acknowledged this region");
    assertEquals(2, fence.refused());
  }

  @Test
  void aForgedAcknowledgementAtTheCurrentTermDoesNotReplaceTheCoordinator() {
    CoordinatorFence<String> fence = new CoordinatorFence<>();
    fence.acknowledged("a", 7);
    assertEquals(CoordinatorFence.Ack.REFUSED, fence.acknowledged("forger", 7));
    assertEquals(CoordinatorFence.Ack.REFUSED, fence.acknowledged("old", 6));
    assertEquals("a", fence.coordinator());
    assertEquals(CoordinatorFence.Ack.SAME, fence.acknowledged("a", 7));
    assertEquals(CoordinatorFence.Ack.NEW, fence.acknowledged("b", 9));
    assertEquals("b", fence.coordinator());
    assertEquals(9, fence.term());
  }

  @Test
  void aLostCoordinatorActsOnNothingAndItsTermStays() {
    CoordinatorFence<String> fence = new CoordinatorFence<>();
    fence.acknowledged("a", 7);
    fence.lost();
    assertNull(fence.coordinator());
    assertFalse(fence.actsOn(7));
    assertEquals(7, fence.term());
    assertEquals(CoordinatorFence.Ack.REFUSED, fence.acknowledged("b", 7));
    assertEquals(CoordinatorFence.Ack.NEW, fence.acknowledged("b", 8));
  }

  @Test
  void aRefusalIsWorthOneWarningPerTerm() {
    CoordinatorFence<String> fence = new CoordinatorFence<>();
    assertTrue(fence.firstRefusalAt(3));
    assertFalse(fence.firstRefusalAt(3));
    assertTrue(fence.firstRefusalAt(4));
  }

  @Test
  void anAcknowledgementMustNameItsCoordinator() {
    CoordinatorFence<String> fence = new CoordinatorFence<>();
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> fence.acknowledged(null, 1));
    assertTrue(e.getMessage().contains("coordinator"), e.getMessage());
  }
}
