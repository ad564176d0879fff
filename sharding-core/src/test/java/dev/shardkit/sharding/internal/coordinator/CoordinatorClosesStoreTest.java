package dev.shardkit.sharding.internal.coordinator;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.LeastShardAllocationStrategy;
import dev.shardkit.sharding.internal.TestRefs;
import dev.shardkit.sharding.spi.CoordinatorEvent;
import dev.shardkit.sharding.spi.CoordinatorState;
import dev.shardkit.sharding.spi.CoordinatorStateStore;
import dev.shardkit.sharding.spi.LoadedCoordinatorState;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A coordinator that stops closes its store, so a successor elsewhere is the only writer. */
class CoordinatorClosesStoreTest {
  @RegisterExtension static final TestRefs refs = new TestRefs();

  private static final class ClosableStore implements CoordinatorStateStore {
    final CountDownLatch closed = new CountDownLatch(1);

    @Override
    public CompletionStage<LoadedCoordinatorState> load() {
      return CompletableFuture.completedFuture(new LoadedCoordinatorState(1, CoordinatorState.empty()));
    }

    @Override
    public CompletionStage<Void> store(List<CoordinatorEvent> events, CoordinatorState stateAfter) {
      return CompletableFuture.completedFuture(null);
    }

    @Override
    public String describe() {
      return "test store";
    }

    @Override
    public void close() {
      closed.countDown();
    }
  }

  private static ActorRef<Object> coordinator(ClosableStore store) {
    return refs.coordinator("close-test", store, new LeastShardAllocationStrategy(1, 20, 0.1), 0, s -> s
        .withCoordinatorSettleTimeout(Duration.ofSeconds(3)).withRebalanceInterval(Duration.ofSeconds(2))
        .withHandOffTimeout(Duration.ofSeconds(10)));
  }

  @Test
  void stopMessageClosesTheStore() throws Exception {
    ClosableStore store = new ClosableStore();
    coordinator(store).tell(ShardCoordinator.Stop.INSTANCE);
    assertTrue(store.closed.await(5, TimeUnit.SECONDS), "store closed after Stop");
  }

  @Test
  void stoppingFromOutsideClosesTheStore() throws Exception {
    ClosableStore store = new ClosableStore();
    refs.testKit().stop(coordinator(store));
    assertTrue(store.closed.await(5, TimeUnit.SECONDS), "store closed when the actor is stopped");
  }
}
