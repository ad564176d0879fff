package dev.shardkit.benchmarks.workloads;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Counts entity starts (every run of an entity's setup), the only sign a remembered entity gives
 * when it comes back by itself: after a restart nothing is sent to it. Distinct entities are
 * counted apart from starts, so that an entity started twice cannot stand in for one that never
 * came back. The start that completes the expected set notes the time, so the recovery clock stops
 * there and not at the next look.
 */
final class Starts implements Counter.Hook {
  private final int expected;
  private final AtomicInteger starts = new AtomicInteger();
  private final Set<String> seen = ConcurrentHashMap.newKeySet();
  private final AtomicInteger distinct = new AtomicInteger();
  private final CountDownLatch all = new CountDownLatch(1);
  private volatile long completedAt;

  Starts(int expected) {
    this.expected = expected;
  }

  @Override
  public void added(String entityId, Counter.Add add, long count) {
    // Only starts count here.
  }

  @Override
  public void started(String entityId) {
    starts.incrementAndGet();
    if (seen.add(entityId) && distinct.incrementAndGet() == expected) {
      // Written before the latch opens, so whoever it wakes reads it.
      completedAt = System.nanoTime();
      all.countDown();
    }
  }

  /** How many different entities have started so far. */
  int entities() {
    return distinct.get();
  }

  /** How many starts so far (an entity that started twice counts twice). */
  int starts() {
    return starts.get();
  }

  /** @return whether every expected entity has started, waiting at most {@code max} for it */
  boolean awaitAll(Duration max) throws InterruptedException {
    return all.await(max.toNanos(), TimeUnit.NANOSECONDS);
  }

  /** {@link System#nanoTime()} when the last expected entity started; 0 until then. */
  long completedAt() {
    return completedAt;
  }
}
