package dev.shardkit.sharding.internal.shard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;
import org.junit.jupiter.api.Test;

class NoRememberEntitiesStoreTest {

  @Test
  void remembersNothingAndAnswersAtOnce() throws Exception {
    NoRememberEntitiesStore store = NoRememberEntitiesStore.INSTANCE;
    assertTrue(store.update(Set.of("a"), Set.of()).toCompletableFuture().isDone());
    // What was written is not remembered: a shard's next home starts nothing.
    assertEquals(Set.of(), store.load().toCompletableFuture().getNow(null));
    store.close();
    assertEquals(Set.of(), store.load().toCompletableFuture().getNow(null));
  }
}
