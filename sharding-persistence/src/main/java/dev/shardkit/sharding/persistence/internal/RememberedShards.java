package dev.shardkit.sharding.persistence.internal;

import dev.shardkit.sharding.persistence.ShardingPersistenceIds;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.apache.pekko.actor.Cancellable;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * Which shards of an entity type stored remembered entities, found from their persistence ids in
 * the read journal, for a starting coordinator. See
 * {@code PersistenceRememberEntitiesStoreProvider#rememberedShards} for what it costs.
 */
public final class RememberedShards {
  private RememberedShards() {}

  /**
   * The ids of the shards of {@code typeName} with a remembered-entities persistence id that has
   * an event. Fails with a {@link TimeoutException} after 3 x {@code store-timeout}, or with an
   * {@link IllegalStateException} that names the type and the read journal, caused by the read
   * journal's or the schema creation's error.
   */
  public static CompletionStage<Set<String>> read(ActorSystem<?> system, PersistenceStoreSettings settings,
      String typeName) {
    // Listing may read far more than one load does (every persistence id of the journal).
    Duration timeout = settings.storeTimeout().multipliedBy(3);
    CompletableFuture<Set<String>> result = SchemaCreation.get(system).forStores(settings).get()
        .thenCompose(done -> ShardingDataKind.REMEMBERED_ENTITIES.persistenceIds(system, settings, typeName))
        .thenApply(ids -> ids.stream()
            .flatMap(id -> ShardingPersistenceIds.entitiesShardId(typeName, id).stream())
            .collect(Collectors.toUnmodifiableSet()))
        .toCompletableFuture();
    CompletableFuture<Set<String>> bounded = new CompletableFuture<>();
    Cancellable timer = system.scheduler().scheduleOnce(timeout, () -> bounded.completeExceptionally(
        new TimeoutException("Entity type [" + typeName + "]: listing the shards with remembered entities through "
            + "read journal [" + settings.readJournalPluginId() + "] took longer than " + timeout.toMillis() + " ms (3 x "
            + "shardkit.sharding.persistence.store-timeout); the journal may be large (the listing reads every "
            + "persistence id in it) or the database slow to answer")), system.executionContext());
    result.whenComplete((ids, error) -> {
      timer.cancel();
      if (error != null) {
        Throwable cause = error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
        bounded.completeExceptionally(new IllegalStateException("Entity type [" + typeName + "]: could not list the "
            + "shards with remembered entities through read journal [" + settings.readJournalPluginId() + "]: "
            + cause, cause));
      } else {
        bounded.complete(ids);
      }
    });
    return bounded;
  }
}
