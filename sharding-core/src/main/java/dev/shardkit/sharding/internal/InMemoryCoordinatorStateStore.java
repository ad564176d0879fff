package dev.shardkit.sharding.internal;

import dev.shardkit.sharding.ShardingSettings;
import dev.shardkit.sharding.spi.CoordinatorEvent;
import dev.shardkit.sharding.spi.CoordinatorState;
import dev.shardkit.sharding.spi.CoordinatorStateStore;
import dev.shardkit.sharding.spi.CoordinatorStateStoreProvider;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * Keeps nothing: every coordinator starts empty. Right for tests and single-node use, where the
 * coordinator never moves; with several nodes a coordinator that moves forgets where shards live,
 * so production clusters use the {@code ddata} or {@code persistence} mode.
 */
public final class InMemoryCoordinatorStateStore implements CoordinatorStateStore {

  /** The provider of {@code state-store-mode = memory}. */
  public static final class Provider implements CoordinatorStateStoreProvider {
    @Override
    public CoordinatorStateStore create(ActorSystem<?> system, String typeName, ShardingSettings settings) {
      system.log().warn("Entity type [{}] keeps its coordinator state in memory (shardkit.sharding.state-store-mode "
          + "= memory): fine for tests and one node, but a coordinator that moves to another node forgets where "
          + "shards live; use ddata or persistence in production", typeName);
      return new InMemoryCoordinatorStateStore();
    }
  }

  @Override
  public CompletionStage<CoordinatorState> load() {
    return CompletableFuture.completedFuture(CoordinatorState.empty());
  }

  @Override
  public CompletionStage<Void> store(CoordinatorEvent event, CoordinatorState stateAfter) {
    return CompletableFuture.completedFuture(null);
  }

  @Override
  public String describe() {
    return "in-memory (does not survive a coordinator move)";
  }
}
