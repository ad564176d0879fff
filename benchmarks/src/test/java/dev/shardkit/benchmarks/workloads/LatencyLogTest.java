package dev.shardkit.benchmarks.workloads;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import org.junit.jupiter.api.Test;

class LatencyLogTest {

  @Test
  void aMoveBelongsToTheWindowInWhichItEndsEvenIfTheOldHomesLastMessageWasSentBefore() {
    LatencyLog log = new LatencyLog(Map.of("s", 0), Map.of("e", 0), 4);
    log.sending(0, 0, 1);
    log.added(0, "e", new Counter.Add("s", 1));
    // A leave begins here; the hand-off is over before the sender's next message.
    long leave = System.nanoTime();
    log.sending(0, 0, 2);
    log.added(1, "e", new Counter.Add("s", 2));

    assertEquals(0, log.moving(Long.MIN_VALUE, leave).moves(), "not the window before the leave's");
    LatencyLog.Moving during = log.moving(leave, Long.MAX_VALUE);
    assertEquals(1, during.moves());
    assertEquals(1, during.window().orElseThrow().messages(), "the new home's first message from the sender");
  }
}
