package dev.shardkit.benchmarks.workloads;

import dev.shardkit.sharding.ShardingSettings;
import dev.shardkit.sharding.persistence.PersistenceCoordinatorStateStoreProvider;
import dev.shardkit.sharding.spi.CoordinatorEvent;
import dev.shardkit.sharding.spi.CoordinatorEvent.ShardHomeAllocated;
import dev.shardkit.sharding.spi.CoordinatorState;
import dev.shardkit.sharding.spi.CoordinatorStateStore;
import dev.shardkit.sharding.spi.CoordinatorStateStoreProvider;
import dev.shardkit.sharding.spi.LoadedCoordinatorState;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * The coordinator's writes to its persistence store, as a run sees them: the store is
 * sharding-persistence's, unchanged, behind a provider ({@code state-store-mode = }{@link #MODE})
 * that notes when each write was asked for and when it completed. Only the coordinator's node
 * creates a store, so the writes of a run are those of the coordinator's JVM.
 */
final class RecordedStoreWrites {
  private RecordedStoreWrites() {}

  static final String MODE = "recorded-persistence";

  /** Configuration that selects the recorded persistence store (after the persistence mode's). */
  static final String CONFIG = "shardkit.sharding.state-store-mode = " + MODE + "\n"
      + "shardkit.sharding.state-store-providers." + MODE + " = \"" + Provider.class.getName() + "\"\n";

  /**
   * One write.
   *
   * @param startMicros when the coordinator asked for it ({@link WallClock#micros})
   * @param endMicros when the store confirmed it; 0 while it has not, or if it failed
   * @param homes how many of its events are {@link ShardHomeAllocated}
   * @param regions how many distinct regions those homes name
   */
  record Write(String typeName, long startMicros, long endMicros, int events, int homes, int regions) {
    Write completed(long at) {
      return new Write(typeName, startMicros, at, events, homes, regions);
    }
  }

  private static final List<Write> WRITES = new CopyOnWriteArrayList<>();

  /** The writes of the type so far, in the order they were asked for. */
  static List<Write> of(String typeName) {
    return WRITES.stream().filter(w -> w.typeName().equals(typeName)).toList();
  }

  /** The provider of {@link #MODE}: sharding-persistence's, recorded. */
  public static final class Provider implements CoordinatorStateStoreProvider {
    private final PersistenceCoordinatorStateStoreProvider persistence = new PersistenceCoordinatorStateStoreProvider();

    @Override
    public CoordinatorStateStore create(ActorSystem<?> system, String typeName, ShardingSettings settings) {
      CoordinatorStateStore store = persistence.create(system, typeName, settings);
      return new CoordinatorStateStore() {
        @Override
        public CompletionStage<LoadedCoordinatorState> load() {
          return store.load();
        }

        @Override
        public CompletionStage<Void> store(List<CoordinatorEvent> events, CoordinatorState stateAfter) {
          List<ShardHomeAllocated> homes = events.stream().filter(ShardHomeAllocated.class::isInstance)
              .map(ShardHomeAllocated.class::cast).toList();
          Write write = new Write(typeName, WallClock.micros(), 0, events.size(), homes.size(),
              (int) homes.stream().map(ShardHomeAllocated::region).distinct().count());
          int index;
          synchronized (WRITES) {
            WRITES.add(write);
            index = WRITES.size() - 1;
          }
          return store.store(events, stateAfter).thenApply(done -> {
            WRITES.set(index, write.completed(WallClock.micros()));
            return done;
          });
        }

        @Override
        public String describe() {
          return "recorded " + store.describe();
        }

        @Override
        public void close() {
          store.close();
        }
      };
    }

    @Override
    public void startOnNode(ActorSystem<?> system, String typeName, ShardingSettings settings) {
      persistence.startOnNode(system, typeName, settings);
    }
  }
}
