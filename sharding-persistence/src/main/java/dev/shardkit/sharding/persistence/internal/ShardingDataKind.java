package dev.shardkit.sharding.persistence.internal;

import dev.shardkit.sharding.persistence.ShardingPersistenceIds;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.typed.ActorSystem;

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
  CompletionStage<List<String>> persistenceIds(ActorSystem<?> system, String typeName);

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
    public CompletionStage<List<String>> persistenceIds(ActorSystem<?> system, String typeName) {
      return CompletableFuture.completedFuture(List.of(ShardingPersistenceIds.coordinator(typeName)));
    }
  };

  /**
   * Everything {@code RemoveShardingData} deletes for an entity type, in this order. The
   * remember-entities store adds its kind here; its ids are one per shard, so its
   * {@link #persistenceIds} looks them up (from the coordinator's shards or the read journal's
   * persistence ids with its prefix) rather than computing them.
   */
  List<ShardingDataKind> ALL = List.of(COORDINATOR);
}
