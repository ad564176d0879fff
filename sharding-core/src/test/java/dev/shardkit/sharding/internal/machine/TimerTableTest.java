package dev.shardkit.sharding.internal.machine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class TimerTableTest {
  enum Key { RETRY, ROUND }

  @Test
  void aFiringCountsOnlyForTheTimerThatRunsNow() {
    TimerTable<Key> timers = new TimerTable<>();
    long first = timers.start(Key.RETRY);
    long second = timers.start(Key.RETRY);
    assertFalse(timers.fired(Key.RETRY, first), "a restarted timer's earlier firing is stale");
    assertTrue(timers.fired(Key.RETRY, second));
    assertFalse(timers.isRunning(Key.RETRY), "a one-shot timer that fired no longer runs");
    assertFalse(timers.fired(Key.RETRY, second), "and fires once");
  }

  @Test
  void aCancelledTimersFiringIsIgnored() {
    TimerTable<Key> timers = new TimerTable<>();
    long g = timers.start(Key.ROUND);
    timers.cancel(Key.ROUND);
    assertFalse(timers.fired(Key.ROUND, g));
    assertFalse(timers.tick(Key.ROUND, g));
  }

  @Test
  void cancellingEveryTimerIgnoresTheirFiringsAndLaterStartsAreNewGenerations() {
    TimerTable<Key> timers = new TimerTable<>();
    long round = timers.start(Key.ROUND);
    long retry = timers.start(Key.RETRY);
    timers.cancelAll();
    assertFalse(timers.isRunning(Key.ROUND));
    assertFalse(timers.fired(Key.RETRY, retry));
    long again = timers.start(Key.ROUND);
    assertTrue(again > retry, "never taken for a timer started before");
    assertFalse(timers.fired(Key.ROUND, round));
    assertTrue(timers.fired(Key.ROUND, again));
  }

  @Test
  void aPeriodicTimerKeepsRunningWhileItTicks() {
    TimerTable<Key> timers = new TimerTable<>();
    long g = timers.start(Key.ROUND);
    assertTrue(timers.tick(Key.ROUND, g));
    assertTrue(timers.tick(Key.ROUND, g));
    assertTrue(timers.isRunning(Key.ROUND));
    assertTrue(timers.start(Key.RETRY) > g, "generations grow across keys");
  }

  @Test
  void aLaterIncarnationsTimersAreNeverTakenForAnEarlierOnes() {
    TimerTable<Key> first = new TimerTable<>(0);
    long stale = 0;
    for (int i = 0; i < 1_000; i++) {
      stale = first.start(Key.RETRY);
    }
    TimerTable<Key> second = new TimerTable<>(1);
    long current = second.start(Key.RETRY);
    assertTrue(current > stale);
    assertFalse(second.fired(Key.RETRY, stale), "a firing the earlier incarnation started");
    assertTrue(second.fired(Key.RETRY, current));
    assertEquals(new TimerTable<Key>().start(Key.RETRY), new TimerTable<Key>(0).start(Key.RETRY));
    assertThrows(IllegalArgumentException.class, () -> new TimerTable<Key>(-1));
    assertThrows(IllegalArgumentException.class, () -> new TimerTable<Key>(1L << 31));
  }

  @Test
  void anEffectBufferIsAReusedReadOnlyView() {
    EffectBuffer<String> buffer = new EffectBuffer<>();
    List<String> view = buffer.view();
    buffer.add("a");
    buffer.add("b");
    assertEquals(List.of("a", "b"), view);
    assertThrows(UnsupportedOperationException.class, () -> view.add("c"));
    buffer.clear();
    assertEquals(List.of(), view);
    assertThrows(IllegalArgumentException.class, () -> buffer.add(null));
  }
}
