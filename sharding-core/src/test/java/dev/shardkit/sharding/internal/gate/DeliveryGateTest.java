package dev.shardkit.sharding.internal.gate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class DeliveryGateTest {
  private static final long LEASE = 1_000;

  /** A clock the test moves by hand, starting anywhere (nanoTime can be negative). */
  private long now = -5_000_000;
  private final DeliveryGate gate = new DeliveryGate(() -> now, LEASE);

  @Test
  void aGateThatNeverTickedIsOpenForever() {
    now += 1_000_000_000L;
    assertTrue(gate.isOpen());
    assertEquals(DeliveryGate.State.OPEN, gate.state());
  }

  @Test
  void regularTicksKeepItOpen() {
    for (int i = 0; i < 100; i++) {
      assertEquals(-1, gate.tick());
      now += LEASE / 5;
      assertTrue(gate.isOpen());
    }
  }

  @Test
  void aSilenceAsLongAsTheThresholdClosesItForEveryReaderAtOnce() {
    gate.tick();
    now += LEASE - 1;
    assertTrue(gate.isOpen());
    now += 1;
    // Before the ticker runs again: whatever thread looks first sees it closed.
    assertFalse(gate.isOpen());
    assertEquals(DeliveryGate.State.OPEN, gate.state());
    now += 7_000;
    assertEquals(LEASE + 7_000, gate.tick(), "the ticker reports the whole silence");
    assertEquals(DeliveryGate.State.CLOSED, gate.state());
    now += 1;
    gate.tick();
    assertFalse(gate.isOpen(), "ticks alone never open a closed gate");
  }

  @Test
  void itOpensOnlyOnConfirmationsAskedForAfterTheLastPause() {
    gate.tick();
    now += 5_000;
    gate.tick();
    // The keeper starts asking once it hears of the pause, after the tick that saw it.
    now += 1;
    long roundStart = now;
    now += 100;
    gate.tick();
    assertTrue(gate.open(roundStart));
    assertTrue(gate.isOpen());
    assertFalse(gate.open(roundStart), "open already");
    assertFalse(new DeliveryGate(() -> 0, LEASE).open(0), "a gate that never closed does not open");
  }

  @Test
  void aPauseAfterTheQuestionsVoidsTheirAnswers() {
    gate.tick();
    assertTrue(gate.close());
    long roundStart = now;
    now += 5_000;
    gate.tick();
    assertFalse(gate.open(roundStart), "the answers may predate the pause");
    assertFalse(gate.isOpen());
    now += 1;
    long nextRound = now;
    now += 10;
    assertTrue(gate.open(nextRound));
  }

  @Test
  void aPauseTheTickerHasNotSeenYetKeepsItClosed() {
    gate.tick();
    gate.close();
    long roundStart = now;
    now += LEASE;
    assertFalse(gate.open(roundStart), "the last tick is a whole threshold ago");
    gate.tick();
    assertFalse(gate.open(roundStart), "and the tick has now recorded the pause");
  }

  @Test
  void parkedWaitersAreWokenWhenItOpensAndOnlyThen() {
    AtomicInteger woken = new AtomicInteger();
    gate.tick();
    gate.close();
    assertTrue(gate.park(woken::incrementAndGet));
    assertTrue(gate.park(woken::incrementAndGet));
    now += 10;
    gate.tick();
    assertEquals(0, woken.get());
    assertEquals(2, gate.parkedCount());
    assertTrue(gate.open(now - 5));
    assertEquals(2, woken.get());
    assertEquals(0, gate.parkedCount());
  }

  @Test
  void parkingOnAnOpenGateDoesNotWait() {
    gate.tick();
    AtomicInteger woken = new AtomicInteger();
    assertFalse(gate.park(woken::incrementAndGet));
    assertEquals(0, gate.parkedCount());
  }

  @Test
  void aWaiterOnAnExpiredLeaseIsWokenByTheNextRenewal() {
    gate.tick();
    AtomicInteger woken = new AtomicInteger();
    gate.close();
    assertTrue(gate.park(woken::incrementAndGet));
    now += 1;
    assertTrue(gate.open(now - 1));
    assertEquals(1, woken.get());
  }

  @Test
  void downIsForGood() {
    gate.tick();
    gate.close();
    gate.down();
    assertEquals(DeliveryGate.State.DOWN, gate.state());
    assertFalse(gate.open(now));
    assertFalse(gate.close());
    assertTrue(gate.park(() -> { }), "waits forever");
    assertEquals(0, gate.parkedCount(), "and is not kept");
    now += 10 * LEASE;
    assertEquals(10 * LEASE, gate.tick());
    assertEquals(DeliveryGate.State.DOWN, gate.state());
    assertFalse(gate.isOpen());
  }

  @Test
  void theThresholdMustBePositive() {
    assertThrows(IllegalArgumentException.class, () -> new DeliveryGate(() -> 0, 0));
  }
}
