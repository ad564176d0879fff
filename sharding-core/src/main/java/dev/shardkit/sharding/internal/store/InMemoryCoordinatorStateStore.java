package dev.shardkit.sharding.internal.store;

import dev.shardkit.sharding.ShardingSettings;
import dev.shardkit.sharding.internal.InternalApi;
import dev.shardkit.sharding.spi.CoordinatorEvent;
import dev.shardkit.sharding.spi.CoordinatorState;
import dev.shardkit.sharding.spi.CoordinatorStateStore;
import dev.shardkit.sharding.spi.CoordinatorStateStoreProvider;
import dev.shardkit.sharding.spi.LoadedCoordinatorState;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntSupplier;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.cluster.typed.Cluster;

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
 * <p><b>Terms.</b> With nothing shared between nodes, the term comes from cluster membership: the
 * hosting member's {@code upNumber} in the high 32 bits and a count of the loads on this node in
 * the low ones. The coordinator runs on the oldest member of its role, and moves only when that
 * member leaves, to the next oldest, which came up later and so has a greater {@code upNumber};
 * a coordinator that loads again on the same node (a restart) gets the next count. So the term
 * grows with every coordinator move within one cluster's life, which is what regions need to tell
 * the current coordinator from a deposed one. Nothing is stored, so no write is ever refused.
 *
 * <p>Internal API: public because its provider is named in the configuration; not for applications,
 * and it may change in any release.
 */
@InternalApi
public final class InMemoryCoordinatorStateStore implements CoordinatorStateStore {

  /** The provider of {@code state-store-mode = memory}. */
  public static final class Provider implements CoordinatorStateStoreProvider {
    @Override
    public CoordinatorStateStore create(ActorSystem<?> system, String typeName, ShardingSettings settings) {
      system.log().warn("Entity type [{}] keeps its coordinator state in memory (shardkit.sharding.state-store-mode "
          + "= memory): a coordinator that moves rebuilds it from what the regions report when they register, "
          + "which is safe only while every region can register within coordinator-settle-timeout; a durable "
          + "store mode does not depend on that", typeName);
      return new InMemoryCoordinatorStateStore(() -> Cluster.get(system).selfMember().upNumber());
    }
  }

  /** Loads on this node (in this JVM): distinct terms for coordinators that load on one member. */
  private static final AtomicLong LOADS = new AtomicLong();

  private final IntSupplier upNumber;
  /** The state after the last write; the coordinator calls from one thread at a time, not always the same. */
  private volatile CoordinatorState stored = CoordinatorState.empty();

  /** @param upNumber the hosting member's {@code upNumber}, read at each load */
  public InMemoryCoordinatorStateStore(IntSupplier upNumber) {
    this.upNumber = upNumber;
  }

  @Override
  public CompletionStage<LoadedCoordinatorState> load() {
    return CompletableFuture.completedFuture(new LoadedCoordinatorState(
        term(upNumber.getAsInt(), LOADS.incrementAndGet()), stored));
  }

  /**
   * The term of a coordinator on the member with {@code upNumber} at this node's {@code load}-th
   * load: ordered by {@code upNumber} first.
   *
   * @throws IllegalArgumentException if {@code upNumber} is below 1 (the member is not up)
   */
  static long term(int upNumber, long load) {
    if (upNumber < 1 || upNumber == Integer.MAX_VALUE) {
      throw new IllegalArgumentException("A coordinator's member must be up to give it a term, its upNumber is "
          + upNumber);
    }
    return ((long) upNumber << 32) | (load & 0xFFFF_FFFFL);
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
