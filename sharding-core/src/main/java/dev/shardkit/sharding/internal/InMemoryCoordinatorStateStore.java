package dev.shardkit.sharding.internal;

import dev.shardkit.sharding.ShardingSettings;
import dev.shardkit.sharding.spi.CoordinatorEvent;
import dev.shardkit.sharding.spi.CoordinatorState;
import dev.shardkit.sharding.spi.CoordinatorStateStore;
import dev.shardkit.sharding.spi.CoordinatorStateStoreProvider;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * Keeps the state in this instance only: a coordinator that moves to another node starts empty
 * there and rebuilds the shard table from the regions' registrations, which report the shards
 * they host; a coordinator that restarts in place after a failure gets the same instance and
 * reloads what it stored (its regions do not register again: to them it never went away). Right
 * for tests and single-node use; with several nodes it is safe only while every live region
 * registers with a new coordinator within {@code coordinator-settle-timeout} (one that cannot is
 * not known to host its shards, which could then be placed a second time). Durable store modes do
 * not depend on that.
 *
 * <p>Internal API: public because its provider is named in the configuration; not for applications,
 * and it may change in any release.
 */
public final class InMemoryCoordinatorStateStore implements CoordinatorStateStore {

  /** The provider of {@code state-store-mode = memory}. */
  public static final class Provider implements CoordinatorStateStoreProvider {
    @Override
    public CoordinatorStateStore create(ActorSystem<?> system, String typeName, ShardingSettings settings) {
      system.log().warn("Entity type [{}] keeps its coordinator state in memory (shardkit.sharding.state-store-mode "
          + "= memory): a coordinator that moves rebuilds it from what the regions report when they register, "
          + "which is safe only while every region can register within coordinator-settle-timeout; a durable "
          + "store mode does not depend on that", typeName);
      return new InMemoryCoordinatorStateStore();
    }
  }

  /** The state after the last write; the coordinator calls from one thread at a time, not always the same. */
  private volatile CoordinatorState stored = CoordinatorState.empty();

  @Override
  public CompletionStage<CoordinatorState> load() {
    return CompletableFuture.completedFuture(stored);
  }

  @Override
  public CompletionStage<Void> store(List<CoordinatorEvent> events, CoordinatorState stateAfter) {
    stored = stateAfter;
    return CompletableFuture.completedFuture(null);
  }

  @Override
  public String describe() {
    return "in-memory (survives a restart of the coordinator in place, not a move)";
  }
}
