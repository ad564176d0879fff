package dev.shardkit.sharding.testkit;

import dev.shardkit.sharding.ShardingSettings;
import dev.shardkit.sharding.internal.util.Arguments;
import dev.shardkit.sharding.spi.RememberEntitiesStore;
import dev.shardkit.sharding.spi.RememberEntitiesStoreProvider;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * The remember-entities store of one {@link TestCluster} ({@code remember-entities-store = test},
 * available in every system of a {@code TestCluster} or {@link ShardingTestKit}): it keeps every
 * shard's entities in memory, shared by the cluster's systems, so they survive a shard's move
 * between them; a test holds writes back, fails them, and sees every write. Get it from
 * {@link TestCluster#rememberStore()} or {@link ShardingTestKit#rememberStore()}. Not a stand-in
 * for a real store: the durable stores (sharding-ddata, sharding-persistence) are tested in their
 * own modules.
 *
 * <p>Each cluster has its own store, so tests with clusters of their own can run in parallel. To
 * restart a whole cluster with its remembered entities, start the new one with
 * {@link TestCluster#TestCluster(String, TestCluster)}: it takes over the earlier cluster's store.
 * Thread-safe.
 */
public final class TestRememberStore {

  /** One write as the store received it. */
  public record Write(String typeName, String shardId, Set<String> started, Set<String> stopped) {}

  private final Map<String, Set<String>> entities = new ConcurrentHashMap<>();
  private final List<Write> writes = new CopyOnWriteArrayList<>();
  private final AtomicInteger failNextWrites = new AtomicInteger();
  private final AtomicInteger failNextLoads = new AtomicInteger();
  private final AtomicInteger heldWrites = new AtomicInteger();
  private volatile CompletableFuture<Void> gate = CompletableFuture.completedFuture(null);

  TestRememberStore() {}

  /** The provider of {@code remember-entities-store = test}, named in {@link TestCluster#BASE_CONFIG}. */
  public static final class Provider implements RememberEntitiesStoreProvider {
    /** Called by sharding-core, which finds this class through the configuration. */
    public Provider() {}

    /** @throws IllegalStateException if the system was not started by a TestCluster or ShardingTestKit */
    @Override
    public RememberEntitiesStore create(ActorSystem<?> system, String typeName, String shardId,
        ShardingSettings settings) {
      return of(system).new ShardStore(typeName, shardId);
    }

    /** @throws IllegalStateException if the system was not started by a TestCluster or ShardingTestKit */
    @Override
    public CompletionStage<Set<String>> rememberedShards(ActorSystem<?> system, String typeName,
        ShardingSettings settings) {
      Set<String> shards = new HashSet<>();
      of(system).entities.forEach((key, ids) -> {
        if (key.startsWith(typeName + "/") && !ids.isEmpty()) {
          shards.add(key.substring(typeName.length() + 1));
        }
      });
      return CompletableFuture.completedFuture(shards);
    }

    private static TestRememberStore of(ActorSystem<?> system) {
      return TestScope.of(system.settings().config(), "remember-entities-store = test").rememberStore();
    }
  }

  /** One shard's view of the store, as sharding-core asks for it. */
  private final class ShardStore implements RememberEntitiesStore {
    private final String typeName;
    private final String shardId;

    ShardStore(String typeName, String shardId) {
      this.typeName = typeName;
      this.shardId = shardId;
    }

    @Override
    public CompletionStage<Set<String>> load() {
      if (failNextLoads.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
        return CompletableFuture.failedFuture(new IllegalStateException("test store: read refused"));
      }
      return CompletableFuture.completedFuture(Set.copyOf(entities.getOrDefault(key(typeName, shardId), Set.of())));
    }

    @Override
    public CompletionStage<Void> update(Set<String> started, Set<String> stopped) {
      if (failNextWrites.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
        return CompletableFuture.failedFuture(new IllegalStateException("test store: write refused"));
      }
      CompletableFuture<Void> now = gate;
      if (!now.isDone()) {
        heldWrites.incrementAndGet();
        now = now.thenRun(heldWrites::decrementAndGet);
      }
      return now.thenRun(() -> {
        Set<String> ids = entities.computeIfAbsent(key(typeName, shardId), k -> ConcurrentHashMap.newKeySet());
        ids.addAll(started);
        ids.removeAll(stopped);
        writes.add(new Write(typeName, shardId, Set.copyOf(started), Set.copyOf(stopped)));
      });
    }

    @Override
    public String describe() {
      return "test store (of a TestCluster)";
    }
  }

  private static String key(String typeName, String shardId) {
    return typeName + "/" + shardId;
  }

  /** The remembered entities of a type, over all its shards. */
  public Set<String> remembered(String typeName) {
    Arguments.requireNonNull(typeName, "TestRememberStore.remembered", "typeName");
    Set<String> all = new HashSet<>();
    entities.forEach((key, ids) -> {
      if (key.startsWith(typeName + "/")) {
        all.addAll(ids);
      }
    });
    return all;
  }

  /** Remembers entities of a shard, as if a shard had written them before. */
  public void preload(String typeName, String shardId, Set<String> entityIds) {
    Arguments.requireNonNull(typeName, "TestRememberStore.preload", "typeName");
    Arguments.requireNonNull(shardId, "TestRememberStore.preload", "shardId");
    Arguments.requireNonNull(entityIds, "TestRememberStore.preload", "entityIds");
    entities.computeIfAbsent(key(typeName, shardId), k -> ConcurrentHashMap.newKeySet()).addAll(entityIds);
  }

  /** Every write of a type so far, in order. */
  public List<Write> writes(String typeName) {
    Arguments.requireNonNull(typeName, "TestRememberStore.writes", "typeName");
    return writes.stream().filter(w -> w.typeName().equals(typeName)).toList();
  }

  /** Holds every write from now on until {@link #openGate()}. */
  public void closeGate() {
    gate = new CompletableFuture<>();
  }

  /**
   * How many writes the store has received and holds back at its closed gate: a shard whose write
   * is held has not started the entities it writes.
   */
  public int heldWrites() {
    return heldWrites.get();
  }

  /** Lets the held writes and all later ones through. */
  public void openGate() {
    gate.complete(null);
  }

  /** Fails the next {@code n} reads of a shard's entities. */
  public void failNextLoads(int n) {
    failNextLoads.set(n);
  }

  /** Fails the next {@code n} writes. */
  public void failNextWrites(int n) {
    failNextWrites.set(n);
  }
}
