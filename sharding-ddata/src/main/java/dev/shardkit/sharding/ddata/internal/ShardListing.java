package dev.shardkit.sharding.ddata.internal;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.apache.pekko.cluster.ddata.ORSet;
import org.apache.pekko.cluster.ddata.Key;
import org.apache.pekko.cluster.ddata.ORSetKey;
import org.apache.pekko.cluster.ddata.SelfUniqueAddress;

/**
 * Adds shard ids to an entity type's list of shards with remembered entities
 * ({@link RememberedShardsKey}) for every remember-entities store of the type on this node. Each
 * write of the list stores the whole list in LMDB, so listings asked for while a write is in
 * flight go into the next single write: shards that start together cost a few writes of the list,
 * not one each. A listing completes once a majority confirmed the write that carried it, and fails
 * with that write's failure (the shard's retry lists again).
 *
 * <p>A shard id this node saw confirmed, or whose entities it read from a majority ({@link
 * #alreadyListed}: they were written only after the shard was listed), completes at once: ids are
 * never taken out of the list.
 *
 * <p>One per entity type and replicator on a node ({@link Replicators#listingFor}); thread-safe.
 */
public final class ShardListing {
  private static final CompletableFuture<Void> DONE = CompletableFuture.completedFuture(null);

  private final ORSetKey<String> key;
  private final ReplicaMajority majority;
  private final SelfUniqueAddress self;
  private final Set<String> listed = ConcurrentHashMap.newKeySet();
  /** Listings not written yet, in the order asked; guarded by {@code this}. */
  private final Map<String, CompletableFuture<Void>> pending = new LinkedHashMap<>();
  /** Whether a write is in flight; guarded by {@code this}. */
  private boolean writing;

  /**
   * @param majority reads and writes of the type's remembered-entities replicator; never closed
   * @throws IllegalArgumentException if the type name cannot make a key ({@link RememberedShardsKey#of})
   */
  ShardListing(String typeName, ReplicaMajority majority) {
    this.key = RememberedShardsKey.of(typeName);
    this.majority = majority;
    this.self = new SelfUniqueAddress(majority.cluster().selfUniqueAddress());
  }

  /** Completes once {@code shardId} is in the list as a majority of the replicas holds it. */
  public CompletionStage<Void> list(String shardId) {
    if (listed.contains(shardId)) {
      return DONE;
    }
    CompletableFuture<Void> listing;
    synchronized (this) {
      listing = pending.computeIfAbsent(shardId, id -> new CompletableFuture<>());
    }
    writeNext();
    return listing;
  }

  /** A majority holds entities of {@code shardId}: its listing was confirmed before they were written. */
  public void alreadyListed(String shardId) {
    listed.add(shardId);
  }

  private void writeNext() {
    Map<String, CompletableFuture<Void>> batch;
    synchronized (this) {
      if (writing || pending.isEmpty()) {
        return;
      }
      writing = true;
      batch = new LinkedHashMap<>(pending);
      pending.clear();
    }
    List<String> ids = List.copyOf(batch.keySet());
    Function<ORSet<String>, ORSet<String>> addAll = set -> {
      ORSet<String> added = set;
      for (String id : ids) {
        added = added.add(self, id);
      }
      return added;
    };
    majority.writeToDisk(ORSet.<String>create(), Map.of(key, addAll), k -> "the listing of shard(s) " + ids
        + " among the shards with remembered entities (key " + k.id() + ")", "None of those shards' entities was "
        + "written; each writes its batch again when it retries").whenComplete((ok, error) -> {
          if (error == null) {
            listed.addAll(ids);
          }
          synchronized (this) {
            writing = false;
          }
          batch.values().forEach(listing -> {
            if (error != null) {
              listing.completeExceptionally(error);
            } else {
              listing.complete(null);
            }
          });
          writeNext();
        });
  }
}
