package dev.shardkit.sharding.internal;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.spi.CoordinatorEvent;
import dev.shardkit.sharding.spi.CoordinatorState;
import dev.shardkit.sharding.spi.CoordinatorStateStore;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** A coordinator state store whose writes complete only when the test says so. */
final class ManualStateStore implements CoordinatorStateStore {

  /** A write: its events, the state after them, and the future the test completes when it wants. */
  record Write(List<CoordinatorEvent> events, CoordinatorState after, CompletableFuture<Void> done) {}

  final LinkedBlockingQueue<Write> writes = new LinkedBlockingQueue<>();

  @Override
  public CompletionStage<CoordinatorState> load() {
    return CompletableFuture.completedFuture(CoordinatorState.empty());
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
  Write next() throws InterruptedException {
    Write w = writes.poll(5, TimeUnit.SECONDS);
    assertTrue(w != null, "a write was started");
    return w;
  }

  /** Completes the next write and returns it. */
  Write completeNext() throws InterruptedException {
    Write w = next();
    w.done().complete(null);
    return w;
  }
}
