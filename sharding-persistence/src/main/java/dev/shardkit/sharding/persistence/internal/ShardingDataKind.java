package dev.shardkit.sharding.persistence.internal;

import dev.shardkit.sharding.persistence.ShardingPersistenceIds;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.persistence.query.PersistenceQuery;
import org.apache.pekko.persistence.query.javadsl.CurrentPersistenceIdsQuery;
import org.apache.pekko.stream.javadsl.Sink;

/**
 * One kind of data that shardkit keeps for an entity type in the journal and snapshot store, as
 * far as {@code RemoveShardingData} needs to know it: which persistence ids hold it.
 */
public interface ShardingDataKind {

  /** What it is, for the tool's output, e.g. {@code "coordinator state"}. */
  String description();

  /** Its persistence ids for the dry run, which starts nothing; e.g. a pattern if they vary. */
  String describeIds(String typeName);

  /**
   * Its persistence ids for {@code typeName}.
   *
   * @param system a local actor system with the application's journal and snapshot plugins, for
   *     kinds whose ids must be looked up
   */
  CompletionStage<List<String>> persistenceIds(ActorSystem<?> system, PersistenceStoreSettings settings,
      String typeName);

  /** The coordinator's events and snapshots: one persistence id per entity type. */
  ShardingDataKind COORDINATOR = new ShardingDataKind() {
    @Override
    public String description() {
      return "coordinator state";
    }

    @Override
    public String describeIds(String typeName) {
      return ShardingPersistenceIds.coordinator(typeName);
    }

    @Override
    public CompletionStage<List<String>> persistenceIds(ActorSystem<?> system, PersistenceStoreSettings settings,
        String typeName) {
      return CompletableFuture.completedFuture(List.of(ShardingPersistenceIds.coordinator(typeName)));
    }
  };

  /**
   * The remembered entities' events and snapshots: one persistence id per shard that ever stored
   * one. Shard ids are not known up front, so they are looked up with the read journal's
   * {@code currentPersistenceIds} (every id with an event that is not deleted; a removal deletes
   * snapshots before events, so an id whose removal was cut short is still found) and filtered by
   * the type's prefix, which no other type's ids start with.
   */
  ShardingDataKind REMEMBERED_ENTITIES = new ShardingDataKind() {
    @Override
    public String description() {
      return "remembered entities";
    }

    @Override
    public String describeIds(String typeName) {
      return ShardingPersistenceIds.entitiesPrefix(typeName) + "<shard id>, one per shard";
    }

    @Override
    public CompletionStage<List<String>> persistenceIds(ActorSystem<?> system, PersistenceStoreSettings settings,
        String typeName) {
      String prefix = ShardingPersistenceIds.entitiesPrefix(typeName);
      try {
        return PersistenceQuery.get(system)
            .getReadJournalFor(CurrentPersistenceIdsQuery.class, settings.readJournalPluginId())
            .currentPersistenceIds()
            .filter(id -> id.startsWith(prefix))
            .runWith(Sink.seq(), system)
            .thenApply(ids -> ids.stream().sorted().toList());
      } catch (RuntimeException e) {
        // A read journal that cannot start (or lacks the query) fails here, not in the stage.
        return CompletableFuture.failedFuture(new IllegalStateException("read journal ["
            + settings.readJournalPluginId() + "] cannot list persistence ids: " + e.getMessage(), e));
      }
    }
  };

  /** Everything {@code RemoveShardingData} deletes for an entity type, in this order. */
  List<ShardingDataKind> ALL = List.of(COORDINATOR, REMEMBERED_ENTITIES);
}
