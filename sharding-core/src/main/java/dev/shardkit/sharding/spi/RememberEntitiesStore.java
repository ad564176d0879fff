package dev.shardkit.sharding.spi;

import java.util.Set;
import java.util.concurrent.CompletionStage;

/**
 * Keeps which entities of one shard are alive, for entity types with remember-entities on: when
 * the shard starts again (after a rebalance, a crash or a restart of the cluster) it starts these
 * entities without waiting for a message. The shard calls it from its actor, one call at a time,
 * and batches: every entity started or passivated while a write is in flight goes into the next
 * single write.
 */
public interface RememberEntitiesStore {

  /** The ids of the shard's remembered entities; empty if none were stored. */
  CompletionStage<Set<String>> load();

  /**
   * Records, in one write, that {@code started} entities are alive and {@code stopped} ones were
   * passivated (and must not start again). An id is never in both sets.
   *
   * @return completes once the change is durable as far as this store promises; a failed stage
   *     is retried by the shard with backoff, with the same or a larger batch
   */
  CompletionStage<Void> update(Set<String> started, Set<String> stopped);

  /** A short description for logs. */
  String describe();

  /** Called once when the shard stops (it was handed off, or its node leaves). */
  default void close() {}
}
