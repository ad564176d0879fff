package dev.shardkit.benchmarks.workloads;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class FirstMessageStagesTest {
  private static final long MS = 1_000_000;

  @Test
  void aSampleSplitsAtTheEntitysStartAndAtTheAskedMessage() {
    AtomicLong now = new AtomicLong();
    FirstMessageStages stages = new FirstMessageStages(now::get);
    Counter.Hook remote = stages.hook(false);
    Counter.Hook local = stages.hook(true);

    now.set(3 * MS);
    remote.started("a");
    now.set(4 * MS);
    remote.asked("a");
    stages.sample("a", 1 * MS, 9 * MS);

    now.set(11 * MS);
    local.started("b");
    now.set(12 * MS);
    local.asked("b");
    // A second Get to the same incarnation does not move the first one's time.
    now.set(20 * MS);
    local.asked("b");
    stages.sample("b", 10 * MS, 13 * MS);

    assertEquals(List.of(new FirstMessageStages.Sample(8, 2, 1, 5, false),
        new FirstMessageStages.Sample(3, 1, 1, 1, true)), stages.samples());
    String summary = stages.summary();
    assertTrue(summary.contains("entity on another node: 1 samples; total 8.00 / 8.00 / 8.00; to the entity's start"
        + " 2.00 / 2.00 / 2.00; start to message 1.00 / 1.00 / 1.00; answer 5.00 / 5.00 / 5.00"), summary);
    assertTrue(summary.contains("entity on the asker's node: 1 samples; total 3.00"), summary);
    assertTrue(summary.contains("all: 2 samples"), summary);
  }

  @Test
  void aSampleWhoseEntityNotedNothingIsCountedApartNotGuessed() {
    AtomicLong now = new AtomicLong();
    FirstMessageStages stages = new FirstMessageStages(now::get);
    Counter.Hook hook = stages.hook(false);
    stages.sample("never-started", 0, 5 * MS);
    hook.started("started-not-asked");
    stages.sample("started-not-asked", 0, 5 * MS);

    assertEquals(List.of(), stages.samples());
    assertTrue(stages.summary().contains("all: 0 samples\n"), stages.summary());
    assertTrue(stages.summary().contains("samples whose entity noted no start or no asked message: 2"), stages.summary());
  }
}
