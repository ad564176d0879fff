package dev.shardkit.benchmarks.workloads;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Tells when every entity has counted up to a target: a {@link Counter.Hook} that counts entities
 * down as they reach it. Targets only grow; one phase at a time.
 */
final class Phase implements Counter.Hook {
  private volatile CountDownLatch latch = new CountDownLatch(0);
  private volatile long target = Long.MAX_VALUE;

  /** Starts a phase: {@code entities} entities must each reach {@code count}. */
  void expect(int entities, long count) {
    // The latch is written before the target, and read after it.
    latch = new CountDownLatch(entities);
    target = count;
  }

  @Override
  public void added(String entityId, Counter.Add add, long count) {
    if (count == target) {
      latch.countDown();
    }
  }

  /**
   * @throws IllegalStateException if the entities do not all reach the target in time
   */
  void await(Duration max, String what) throws InterruptedException {
    if (!latch.await(max.toMillis(), TimeUnit.MILLISECONDS)) {
      throw new IllegalStateException("timed out after " + max + " waiting for " + what + "; "
          + latch.getCount() + " entities short of " + target);
    }
  }
}
