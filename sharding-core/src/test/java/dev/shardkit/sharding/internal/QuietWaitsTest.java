package dev.shardkit.sharding.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class QuietWaitsTest {
  private int rechecksScheduled;
  private final QuietWaits waits = new QuietWaits(() -> rechecksScheduled++);
  private final List<String> ran = new ArrayList<>();

  @Test
  void anActionWhoseConditionHoldsRunsAtOnce() {
    waits.runWhenQuiet(() -> true, () -> ran.add("a"));
    assertEquals(List.of("a"), ran);
    assertEquals(0, rechecksScheduled, "nothing waits");
  }

  @Test
  void anActionWaitsWhileItsConditionDoesNotHoldAndRunsOnARecheckOnceItDoes() {
    AtomicBoolean quiet = new AtomicBoolean(false);
    waits.runWhenQuiet(quiet::get, () -> ran.add("a"));
    assertEquals(List.of(), ran);
    assertEquals(1, rechecksScheduled);

    waits.recheck();
    assertEquals(List.of(), ran);
    assertEquals(2, rechecksScheduled, "still not quiet: looks again");

    quiet.set(true);
    waits.recheck();
    assertEquals(List.of("a"), ran);
    assertEquals(2, rechecksScheduled, "nothing waits any more");
    waits.recheck();
    assertEquals(List.of("a"), ran, "an action runs once");
    assertEquals(2, rechecksScheduled);
  }

  @Test
  void onceOneWaitsEveryLaterOneWaitsBehindIt() {
    AtomicBoolean first = new AtomicBoolean(false);
    waits.runWhenQuiet(first::get, () -> ran.add("first"));
    waits.runWhenQuiet(() -> true, () -> ran.add("second"));
    assertEquals(List.of(), ran, "its own condition holds, yet it waits");
    assertEquals(2, rechecksScheduled);

    waits.recheck();
    assertEquals(List.of(), ran, "the second does not overtake the first");

    first.set(true);
    waits.recheck();
    assertEquals(List.of("first", "second"), ran);
    assertEquals(3, rechecksScheduled);
  }

  @Test
  void aRecheckRunsActionsUpToTheFirstThatStillWaits() {
    AtomicBoolean second = new AtomicBoolean(false);
    AtomicBoolean first = new AtomicBoolean(false);
    waits.runWhenQuiet(first::get, () -> ran.add("first"));
    waits.runWhenQuiet(second::get, () -> ran.add("second"));
    waits.runWhenQuiet(() -> true, () -> ran.add("third"));

    first.set(true);
    waits.recheck();
    assertEquals(List.of("first"), ran);
    assertEquals(4, rechecksScheduled, "the second and third still wait");

    second.set(true);
    waits.recheck();
    assertEquals(List.of("first", "second", "third"), ran);
    assertEquals(4, rechecksScheduled);
  }

  @Test
  void aConditionThatHoldsWithinTheSpinRunsAtOnce() {
    int[] looks = {0};
    waits.runWhenQuiet(() -> ++looks[0] >= 3, () -> ran.add("a"));
    assertEquals(List.of("a"), ran);
    assertEquals(3, looks[0]);
    assertEquals(0, rechecksScheduled);
  }
}
