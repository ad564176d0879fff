package dev.shardkit.sharding.internal.region;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class AheadOfTermTest {

  @Test
  void anAcknowledgementReleasesItsTermInOrderForgetsLowerTermsAndKeepsHigherOnes() {
    AheadOfTerm<String> ahead = new AheadOfTerm<>(10);
    ahead.hold(3, "a3");
    ahead.hold(5, "a5");
    ahead.hold(4, "a4");
    ahead.hold(5, "b5");
    ahead.hold(9, "a9");
    assertEquals(List.of("a5", "b5"), ahead.acknowledgedAt(5));
    assertEquals(1, ahead.size(), "only term 9's is left");
    assertEquals(List.of(), ahead.acknowledgedAt(5), "released once");
    assertEquals(List.of("a9"), ahead.acknowledgedAt(9));
    assertEquals(0, ahead.size());
  }

  @Test
  void anAcknowledgementAboveEverythingHeldReleasesNothingAndForgetsAll() {
    AheadOfTerm<String> ahead = new AheadOfTerm<>(10);
    ahead.hold(2, "a2");
    ahead.hold(3, "a3");
    assertEquals(List.of(), ahead.acknowledgedAt(4));
    assertEquals(0, ahead.size());
  }

  @Test
  void beyondItsCapacityNothingMoreIsHeldUntilAnAcknowledgementMakesRoom() {
    AheadOfTerm<String> ahead = new AheadOfTerm<>(2);
    assertTrue(ahead.hold(7, "a"));
    assertTrue(ahead.hold(8, "b"));
    assertFalse(ahead.hold(7, "c"));
    assertEquals(List.of("a"), ahead.acknowledgedAt(7));
    assertTrue(ahead.hold(8, "d"));
    assertEquals(List.of("b", "d"), ahead.acknowledgedAt(8));
    assertThrows(IllegalArgumentException.class, () -> new AheadOfTerm<>(-1));
  }
}
