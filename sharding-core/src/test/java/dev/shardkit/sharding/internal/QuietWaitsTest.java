package dev.shardkit.sharding.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class QuietWaitsTest {
  private final QuietWaits waits = new QuietWaits();
  private final List<String> ran = new ArrayList<>();

  @Test
  void anActionWhoseConditionHoldsRunsAtOnce() {
    assertFalse(waits.runWhenQuiet(() -> true, () -> ran.add("a")));
    assertEquals(List.of("a"), ran);
    assertFalse(waits.recheck(), "nothing waits");
  }

  @Test
  void anActionWaitsWhileItsConditionDoesNotHoldAndRunsOnARecheckOnceItDoes() {
    AtomicBoolean quiet = new AtomicBoolean(false);
    assertTrue(waits.runWhenQuiet(quiet::get, () -> ran.add("a")));
    assertEquals(List.of(), ran);

    assertTrue(waits.recheck(), "still not quiet");
    assertEquals(List.of(), ran);

    quiet.set(true);
    assertFalse(waits.recheck());
    assertEquals(List.of("a"), ran);
    assertFalse(waits.recheck(), "an action runs once");
    assertEquals(List.of("a"), ran);
  }

  @Test
  void onceOneWaitsEveryLaterOneWaitsBehindIt() {
    AtomicBoolean first = new AtomicBoolean(false);
    waits.runWhenQuiet(first::get, () -> ran.add("first"));
    assertTrue(waits.runWhenQuiet(() -> true, () -> ran.add("second")), "its own condition holds, yet it waits");
    assertEquals(List.of(), ran);

    assertTrue(waits.recheck());
    assertEquals(List.of(), ran, "the second does not overtake the first");

    first.set(true);
    assertFalse(waits.recheck());
    assertEquals(List.of("first", "second"), ran);
  }

  @Test
  void aRecheckRunsActionsUpToTheFirstThatStillWaits() {
    AtomicBoolean second = new AtomicBoolean(false);
    AtomicBoolean first = new AtomicBoolean(false);
    waits.runWhenQuiet(first::get, () -> ran.add("first"));
    waits.runWhenQuiet(second::get, () -> ran.add("second"));
    waits.runWhenQuiet(() -> true, () -> ran.add("third"));

    first.set(true);
    assertTrue(waits.recheck());
    assertEquals(List.of("first"), ran);

    second.set(true);
    assertFalse(waits.recheck());
    assertEquals(List.of("first", "second", "third"), ran);
  }

  @Test
  void aConditionThatHoldsWithinTheSpinRunsAtOnce() {
    int[] looks = {0};
    assertFalse(waits.runWhenQuiet(() -> ++looks[0] >= 3, () -> ran.add("a")));
    assertEquals(List.of("a"), ran);
    assertEquals(3, looks[0]);
  }
}
