package dev.shardkit.sharding.internal.coordinator;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.spi.CoordinatorEvent;
import dev.shardkit.sharding.spi.CoordinatorState;
import dev.shardkit.sharding.spi.CoordinatorStateStore;
import dev.shardkit.sharding.spi.LoadedCoordinatorState;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/** A coordinator state store whose writes complete only when the test says so. */
public final class ManualStateStore implements CoordinatorStateStore {

  /** A write: its events, the state after them, and the future the test completes when it wants. */
  public record Write(List<CoordinatorEvent> events, CoordinatorState after, CompletableFuture<Void> done) {}

  final LinkedBlockingQueue<Write> writes = new LinkedBlockingQueue<>();

  /** The loads the coordinator started, if loads are manual. */
  final LinkedBlockingQueue<CompletableFuture<CoordinatorState>> loads = new LinkedBlockingQueue<>();
  private final boolean manualLoads;
  /** Every load is a take-over: the n-th load gets term n. */
  private final AtomicLong terms = new AtomicLong();

  /** A store whose every load finds an empty state at once. */
  ManualStateStore() {
    this(false);
  }

  /** @param manualLoads whether loads, too, complete only when the test says so */
  ManualStateStore(boolean manualLoads) {
    this.manualLoads = manualLoads;
  }

  @Override
  public CompletionStage<LoadedCoordinatorState> load() {
    long term = terms.incrementAndGet();
    if (!manualLoads) {
      return CompletableFuture.completedFuture(new LoadedCoordinatorState(term, CoordinatorState.empty()));
    }
    CompletableFuture<CoordinatorState> load = new CompletableFuture<>();
    loads.add(load);
    return load.thenApply(state -> new LoadedCoordinatorState(term, state));
  }

  @Override
  public CompletionStage<Void> store(List<CoordinatorEvent> events, CoordinatorState stateAfter) {
    Write write = new Write(List.copyOf(events), stateAfter, new CompletableFuture<>());
    writes.add(write);
    return write.done();
  }

  @Override
  public String describe() {
    return "manual test store";
  }

  /** The next write the coordinator started; fails the test if none starts within 5 s. */
  public Write next() throws InterruptedException {
    Write w = writes.poll(5, TimeUnit.SECONDS);
    assertTrue(w != null, "a write was started");
    return w;
  }

  /** The next load the coordinator started; fails the test if none starts within 5 s. */
  CompletableFuture<CoordinatorState> nextLoad() throws InterruptedException {
    CompletableFuture<CoordinatorState> load = loads.poll(5, TimeUnit.SECONDS);
    assertTrue(load != null, "a load was started");
    return load;
  }

  /** Completes the next write and returns it. */
  Write completeNext() throws InterruptedException {
    Write w = next();
    w.done().complete(null);
    return w;
  }
}
