package dev.shardkit.sharding.internal.shard;

import dev.shardkit.sharding.spi.RememberEntitiesStore;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The store of a shard whose entity type does not remember its entities: it remembers nothing
 * and every call succeeds at once. The shard never waits for it (its {@link EntityTable} asks for
 * no writes when remember-entities is off); it stands in so that the shard has a store to close
 * whatever its settings.
 */
enum NoRememberEntitiesStore implements RememberEntitiesStore {
  INSTANCE;

  @Override
  public CompletionStage<Set<String>> load() {
    return CompletableFuture.completedFuture(Set.of());
  }

  @Override
  public CompletionStage<Void> update(Set<String> started, Set<String> stopped) {
    return CompletableFuture.completedFuture(null);
  }

  @Override
  public String describe() {
    return "no store (remember-entities is off)";
  }
}
