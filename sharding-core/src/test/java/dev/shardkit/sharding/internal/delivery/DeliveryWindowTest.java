package dev.shardkit.sharding.internal.delivery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class DeliveryWindowTest {
  static final long SECOND = 1_000_000_000L;

  @Test
  void numbersBatchesFromOneAndFillsUpToItsCapacity() {
    DeliveryWindow<String> w = new DeliveryWindow<>(2, SECOND);
    assertEquals(1, w.nextSeq());
    assertTrue(w.isEmpty());
    w.sent("b1", List.of("a", "b"), 0);
    assertEquals(2, w.nextSeq());
    assertFalse(w.full());
    w.sent("b2", List.of("c"), 0);
    assertTrue(w.full());
    assertEquals(3, w.messages());
    assertThrows(IllegalStateException.class, () -> w.sent("b3", List.of("d"), 0));
  }

  @Test
  void anAcknowledgementReleasesEveryBatchUpToIt() {
    DeliveryWindow<String> w = new DeliveryWindow<>(4, SECOND);
    w.sent("b1", List.of("a"), 0);
    w.sent("b2", List.of("b", "c"), 0);
    w.sent("b3", List.of("d"), 0);
    assertEquals(2, w.acknowledged(2));
    assertEquals(1, w.messages());
    assertEquals(List.of("d"), w.unacknowledgedItems());
    assertEquals(0, w.acknowledged(2), "a repeated acknowledgement releases nothing");
    assertEquals(0, w.acknowledged(1), "an old one neither");
    assertEquals(1, w.acknowledged(3));
    assertTrue(w.isEmpty());
    assertEquals(4, w.nextSeq(), "numbers go on after acknowledgements");
  }

  @Test
  void theOldestUnacknowledgedBatchMakesEveryBatchGoAgainWhenItIsOverdue() {
    DeliveryWindow<String> w = new DeliveryWindow<>(4, SECOND);
    w.sent("b1", List.of("a"), 0);
    w.sent("b2", List.of("b"), SECOND / 2);
    assertFalse(w.resendDue(SECOND - 1));
    assertTrue(w.resendDue(SECOND));
    assertEquals(List.of("b1", "b2"), w.resend(SECOND), "in sequence: the receiver takes them only in order");
    assertFalse(w.resendDue(SECOND + 1), "a resend restarts the wait");
  }

  @Test
  void resendsWithoutProgressBackOffUpToEightTimesAndAnAcknowledgementResetsThem() {
    DeliveryWindow<String> w = new DeliveryWindow<>(4, SECOND);
    w.sent("b1", List.of("a"), 0);
    w.sent("b2", List.of("b"), 0);
    long now = 0;
    long[] expected = {1, 2, 4, 8, 8};
    for (long factor : expected) {
      assertEquals(factor * SECOND, w.currentTimeoutNanos());
      now += w.currentTimeoutNanos();
      assertTrue(w.resendDue(now));
      w.resend(now);
    }
    w.acknowledged(1);
    assertEquals(SECOND, w.currentTimeoutNanos());
    assertEquals(List.of("b"), w.unacknowledgedItems());
  }

  @Test
  void unacknowledgedItemsComeBackInTheOrderTheyWereHandedOver() {
    DeliveryWindow<String> w = new DeliveryWindow<>(3, SECOND);
    w.sent("b1", List.of("a", "b"), 0);
    w.sent("b2", List.of("c"), 0);
    w.resend(SECOND);
    w.sent("b3", List.of("d", "e"), SECOND);
    assertEquals(List.of("a", "b", "c", "d", "e"), w.unacknowledgedItems());
  }

  @Test
  void rejectsNonsense() {
    assertThrows(IllegalArgumentException.class, () -> new DeliveryWindow<>(0, SECOND));
    assertThrows(IllegalArgumentException.class, () -> new DeliveryWindow<>(1, 0));
  }

  @Test
  void aResendTheReceiverAskedForStartsTheTimeoutOverFromItsBase() {
    DeliveryWindow<String> w = new DeliveryWindow<>(4, SECOND);
    w.sent("b1", List.of("a"), 0);
    w.resend(SECOND);
    w.resend(3 * SECOND);
    assertEquals(4 * SECOND, w.currentTimeoutNanos());
    assertEquals(List.of("b1"), w.resendRequested(4 * SECOND));
    assertEquals(SECOND, w.currentTimeoutNanos());
    assertFalse(w.resendDue(5 * SECOND - 1));
  }
}
