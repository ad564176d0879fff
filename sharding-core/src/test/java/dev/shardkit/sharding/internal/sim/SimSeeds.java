package dev.shardkit.sharding.internal.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.LongFunction;
import java.util.function.Predicate;

/**
 * Runs consecutive seeds on a few threads for a time budget, and on past it until a minimum
 * number has run, so that a slower simulation or machine takes longer rather than checking less.
 * Stops at the first failing seed. The seeds run are exactly {@code base}, {@code base + 1}, … up
 * to the last one reported, whatever the threads' interleaving, since each seed's run depends on
 * its number alone.
 */
final class SimSeeds {

  /** How a budget went: how many seeds ran, the last seed started, and the first failure, if any. */
  record Ran<R>(long seeds, long lastSeed, double seconds, R failed) {}

  /**
   * The base seed a run starts at when {@code -Dsim.base} is not given. Fixed, so that a build
   * runs the same seeds every time: a simulation that fails in CI fails on a change, not on the
   * draw, and its seed is one every developer has run. New seeds are explored with
   * {@code -Dsim.base=random} and by the {@code sim-soak} profile, and what they find is kept as
   * a regression seed.
   */
  static final long DEFAULT_BASE = 1;

  private SimSeeds() {}

  /**
   * The base seed {@code -Dsim.base} asks for: a number, {@code random} (a new one from the
   * clock), or, if not given, {@link #DEFAULT_BASE}.
   *
   * @throws IllegalArgumentException naming the property if it is neither
   */
  static long base() {
    String base = System.getProperty("sim.base", "").trim();
    if (base.isEmpty()) {
      return DEFAULT_BASE;
    }
    if (base.equals("random")) {
      return System.nanoTime() ^ System.currentTimeMillis() << 20;
    }
    try {
      return Long.parseLong(base);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("-Dsim.base must be a number or 'random', got '" + base + "'", e);
    }
  }

  /**
   * @param run one seed's run; called from {@code threads} threads at once
   * @param failed whether a run's result is a failure (running stops at the first)
   * @param tally called with every result, from the runners' threads
   */
  static <R> Ran<R> run(long base, long budgetNanos, long minSeeds, int threads, LongFunction<R> run,
      Predicate<R> failed, Consumer<R> tally) throws Exception {
    long started = System.nanoTime();
    AtomicLong next = new AtomicLong(base);
    AtomicLong done = new AtomicLong();
    AtomicReference<R> failure = new AtomicReference<>();
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> workers = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        workers.add(pool.submit(() -> {
          while ((System.nanoTime() - started < budgetNanos || next.get() - base < minSeeds) && failure.get() == null) {
            R result = run.apply(next.getAndIncrement());
            tally.accept(result);
            done.incrementAndGet();
            if (failed.test(result)) {
              failure.compareAndSet(null, result);
            }
          }
        }));
      }
      for (Future<?> worker : workers) {
        worker.get();
      }
    } finally {
      pool.shutdown();
    }
    return new Ran<>(done.get(), next.get() - 1, (System.nanoTime() - started) / 1e9, failure.get());
  }
}
