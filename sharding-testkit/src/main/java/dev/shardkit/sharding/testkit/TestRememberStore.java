package dev.shardkit.sharding.testkit;

import dev.shardkit.sharding.ShardingSettings;
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
 * A remember-entities store for tests ({@code remember-entities-store = test}, available in every
 * system of a {@link TestCluster} or {@link ShardingTestKit}): it keeps every shard's entities in
 * this JVM, so they survive a shard's move between the systems of a {@link TestCluster} and a
 * restart of all of them, and lets a test hold writes back, fail them, and see every write. Not a
 * stand-in for a real store: the durable stores (sharding-ddata, sharding-persistence) are tested
 * in their own modules.
 *
 * <p>Its contents are JVM-wide and keyed by entity type name, and outlive the systems: give each
 * test its own type names. The failure and gate switches apply to every type.
 */
public final class TestRememberStore implements RememberEntitiesStore {

  /** One write as the store received it. */
  public record Write(String typeName, String shardId, Set<String> started, Set<String> stopped) {}

  private static final Map<String, Set<String>> ENTITIES = new ConcurrentHashMap<>();
  private static final List<Write> WRITES = new CopyOnWriteArrayList<>();
  private static final AtomicInteger FAIL_NEXT = new AtomicInteger();
  private static final AtomicInteger FAIL_NEXT_LOADS = new AtomicInteger();
  private static volatile CompletableFuture<Void> gate = CompletableFuture.completedFuture(null);

  /** The provider of {@code remember-entities-store = test}, named in {@link TestCluster#BASE_CONFIG}. */
  public static final class Provider implements RememberEntitiesStoreProvider {
    /** Called by sharding-core, which finds this class through the configuration. */
    public Provider() {}

    @Override
    public RememberEntitiesStore create(ActorSystem<?> system, String typeName, String shardId,
        ShardingSettings settings) {
      return new TestRememberStore(typeName, shardId);
    }

    @Override
    public CompletionStage<Set<String>> rememberedShards(ActorSystem<?> system, String typeName,
        ShardingSettings settings) {
      Set<String> shards = new HashSet<>();
      ENTITIES.forEach((key, ids) -> {
        if (key.startsWith(typeName + "/") && !ids.isEmpty()) {
          shards.add(key.substring(typeName.length() + 1));
        }
      });
      return CompletableFuture.completedFuture(shards);
    }
  }

  private final String typeName;
  private final String shardId;

  private TestRememberStore(String typeName, String shardId) {
    this.typeName = typeName;
    this.shardId = shardId;
  }

  @Override
  public CompletionStage<Set<String>> load() {
    if (FAIL_NEXT_LOADS.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
      return CompletableFuture.failedFuture(new IllegalStateException("test store: read refused"));
    }
    return CompletableFuture.completedFuture(Set.copyOf(ENTITIES.getOrDefault(key(typeName, shardId), Set.of())));
  }

  @Override
  public CompletionStage<Void> update(Set<String> started, Set<String> stopped) {
    if (FAIL_NEXT.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
      return CompletableFuture.failedFuture(new IllegalStateException("test store: write refused"));
    }
    return gate.thenRun(() -> {
      Set<String> ids = ENTITIES.computeIfAbsent(key(typeName, shardId), k -> ConcurrentHashMap.newKeySet());
      ids.addAll(started);
      ids.removeAll(stopped);
      WRITES.add(new Write(typeName, shardId, Set.copyOf(started), Set.copyOf(stopped)));
    });
  }

  @Override
  public String describe() {
    return "test store (in this JVM)";
  }

  private static String key(String typeName, String shardId) {
    return typeName + "/" + shardId;
  }

  /** The remembered entities of a type, over all its shards. */
  public static Set<String> remembered(String typeName) {
    Set<String> all = new HashSet<>();
    ENTITIES.forEach((key, ids) -> {
      if (key.startsWith(typeName + "/")) {
        all.addAll(ids);
      }
    });
    return all;
  }

  /** Remembers entities of a shard, as if a shard had written them before. */
  public static void preload(String typeName, String shardId, Set<String> entityIds) {
    ENTITIES.computeIfAbsent(key(typeName, shardId), k -> ConcurrentHashMap.newKeySet()).addAll(entityIds);
  }

  /** Every write of a type so far, in order. */
  public static List<Write> writes(String typeName) {
    return WRITES.stream().filter(w -> w.typeName().equals(typeName)).toList();
  }

  /** Holds every write from now on until {@link #openGate()}. */
  public static void closeGate() {
    gate = new CompletableFuture<>();
  }

  /** Lets the held writes and all later ones through. */
  public static void openGate() {
    gate.complete(null);
  }

  /** Fails the next {@code n} reads of a shard's entities. */
  public static void failNextLoads(int n) {
    FAIL_NEXT_LOADS.set(n);
  }

  /** Fails the next {@code n} writes. */
  public static void failNextWrites(int n) {
    FAIL_NEXT.set(n);
  }
}
