package dev.shardkit.sharding.internal.delivery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class OutboxTest {
  static ActorTestKit testKit;

  @BeforeAll
  static void start() {
    testKit = ActorTestKit.create();
  }

  @AfterAll
  static void stop() {
    testKit.shutdownTestKit();
  }

  @Test
  void wakesItsLinkOnceWhenItGoesFromIdleToBusy() {
    TestProbe<Object> link = testKit.createTestProbe();
    Outbox outbox = new Outbox(testKit.createTestProbe().ref(), 10);
    outbox.attach(link.ref());
    outbox.offer("a");
    outbox.offer("b");
    outbox.offerAlways("c");
    link.expectMessage(Outbox.Drain.INSTANCE);
    link.expectNoMessage(java.time.Duration.ofMillis(100));
    assertEquals(List.of("a", "b", "c"), drain(outbox));
    assertFalse(outbox.idleAgain(), "nothing came in after the last look");
    outbox.offer("d");
    link.expectMessage(Outbox.Drain.INSTANCE);
  }

  @Test
  void aMessageThatCameInDuringTheLastLookIsNotLeftBehind() {
    TestProbe<Object> link = testKit.createTestProbe();
    Outbox outbox = new Outbox(testKit.createTestProbe().ref(), 10);
    outbox.attach(link.ref());
    outbox.offer("a");
    link.expectMessage(Outbox.Drain.INSTANCE);
    assertEquals("a", outbox.poll());
    assertNull(outbox.poll());
    outbox.offer("b"); // the link is still marked busy: no wake-up for this one
    link.expectNoMessage(java.time.Duration.ofMillis(50));
    assertTrue(outbox.idleAgain(), "so the link must go on itself");
    assertEquals("b", outbox.poll());
  }

  @Test
  void wakesWhateverDrainsItAndWhatCameBeforeItWasAttachedIsNotLeftBehind() {
    Outbox outbox = new Outbox(testKit.createTestProbe().ref(), 10);
    outbox.offerAlways("early");
    int[] wakes = {0};
    outbox.attach(() -> wakes[0]++);
    assertEquals(1, wakes[0], "woken on attachment for what waits");
    outbox.offer("later");
    assertEquals(1, wakes[0], "still busy: no second wake-up");
    assertEquals(List.of("early", "later"), drain(outbox));
    assertFalse(outbox.idleAgain());
    outbox.offer("next");
    assertEquals(2, wakes[0]);

    Outbox quiet = new Outbox(testKit.createTestProbe().ref(), 10);
    quiet.attach(() -> wakes[0]++);
    assertEquals(2, wakes[0], "nothing waits: nothing to wake for");
  }

  @Test
  void refusesCallersAtItsLimitButNeverTheRegionsOwnMessages() {
    Outbox outbox = new Outbox(testKit.createTestProbe().ref(), 2);
    outbox.attach(testKit.createTestProbe().ref());
    assertTrue(outbox.offer("a"));
    assertTrue(outbox.offer("b"));
    assertFalse(outbox.offer("c"));
    outbox.offerAlways("marker");
    assertEquals(3, outbox.pending());
    outbox.poll();
    outbox.inTransit(1);
    assertEquals(3, outbox.pending(), "taken out but unacknowledged still counts");
    assertFalse(outbox.offer("d"), "the region's marker takes room too");
    outbox.poll();
    outbox.inTransit(2);
    assertTrue(outbox.offer("d"), "room again once the link took them out: what is in transit is bounded by "
        + "the link's window");
  }

  @Test
  void aClosedOutboxRefusesCallers() {
    Outbox outbox = new Outbox(testKit.createTestProbe().ref(), 10);
    outbox.attach(testKit.createTestProbe().ref());
    outbox.close();
    assertFalse(outbox.offer("a"));
  }

  @Test
  void keepsEachCallersOrderUnderConcurrentHandOvers() throws Exception {
    Outbox outbox = new Outbox(testKit.createTestProbe().ref(), Integer.MAX_VALUE);
    outbox.attach(testKit.createTestProbe().ref());
    int threads = 4;
    int each = 20_000;
    CountDownLatch go = new CountDownLatch(1);
    List<Thread> senders = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int sender = t;
      Thread thread = new Thread(() -> {
        try {
          go.await();
        } catch (InterruptedException e) {
          return;
        }
        for (int i = 0; i < each; i++) {
          outbox.offer(new int[] {sender, i});
        }
      });
      senders.add(thread);
      thread.start();
    }
    go.countDown();
    int[] next = new int[threads];
    int taken = 0;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (taken < threads * each && System.nanoTime() < deadline) {
      Object o = outbox.poll();
      if (o == null) {
        Thread.onSpinWait();
        continue;
      }
      int[] m = (int[]) o;
      assertEquals(next[m[0]], m[1], "sender " + m[0] + "'s messages in order");
      next[m[0]]++;
      taken++;
    }
    for (Thread t : senders) {
      t.join();
    }
    assertEquals(threads * each, taken);
    assertEquals(0, outbox.pending());
  }

  private static List<Object> drain(Outbox outbox) {
    List<Object> out = new ArrayList<>();
    for (Object o = outbox.poll(); o != null; o = outbox.poll()) {
      out.add(o);
    }
    return out;
  }
}
