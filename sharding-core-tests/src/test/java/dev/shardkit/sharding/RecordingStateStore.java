package dev.shardkit.sharding;

import dev.shardkit.sharding.spi.CoordinatorEvent;
import dev.shardkit.sharding.spi.CoordinatorState;
import dev.shardkit.sharding.spi.CoordinatorStateStore;
import dev.shardkit.sharding.spi.CoordinatorStateStoreProvider;
import dev.shardkit.sharding.spi.LoadedCoordinatorState;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * A coordinator state store for tests that remembers every write, by entity type, so a test reads
 * what the coordinator decided from what it stored. It starts empty and keeps nothing across JVMs.
 * Unlike the in-memory store it counts as a durable one: the coordinator tells regions the homes
 * it placed up front ({@code tell-up-front-homes}). Select it with {@link #CONFIG}.
 */
public final class RecordingStateStore implements CoordinatorStateStore {

  /** The configuration that makes coordinators use this store. */
  public static final String CONFIG = "shardkit.sharding.state-store-mode = recording\n"
      + "shardkit.sharding.state-store-providers.recording = \"" + Provider.class.getName() + "\"";

  private static final Map<String, List<List<CoordinatorEvent>>> WRITES = new ConcurrentHashMap<>();

  /** The provider of {@code state-store-mode = recording}. */
  public static final class Provider implements CoordinatorStateStoreProvider {
    @Override
    public CoordinatorStateStore create(ActorSystem<?> system, String typeName, ShardingSettings settings) {
      return new RecordingStateStore(typeName);
    }
  }

  private final String typeName;

  private RecordingStateStore(String typeName) {
    this.typeName = typeName;
  }

  /** Every write stored for the entity type so far, in order; a live view. */
  public static List<List<CoordinatorEvent>> writes(String typeName) {
    return WRITES.computeIfAbsent(typeName, t -> new CopyOnWriteArrayList<>());
  }

  /** The state after every write stored for the entity type so far. */
  public static CoordinatorState state(String typeName) {
    CoordinatorState state = CoordinatorState.empty();
    for (List<CoordinatorEvent> write : writes(typeName)) {
      for (CoordinatorEvent event : write) {
        state = state.applied(event);
      }
    }
    return state;
  }

  /** Forgets the entity type's writes, for a test that starts it anew. */
  public static void clear(String typeName) {
    writes(typeName).clear();
  }

  @Override
  public CompletionStage<LoadedCoordinatorState> load() {
    return CompletableFuture.completedFuture(new LoadedCoordinatorState(1, CoordinatorState.empty()));
  }

  @Override
  public CompletionStage<Void> store(List<CoordinatorEvent> events, CoordinatorState stateAfter) {
    writes(typeName).add(List.copyOf(events));
    return CompletableFuture.completedFuture(null);
  }

  @Override
  public String describe() {
    return "recording in-memory test store";
  }
}
