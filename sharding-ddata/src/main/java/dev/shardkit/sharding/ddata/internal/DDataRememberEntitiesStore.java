package dev.shardkit.sharding.ddata.internal;

import dev.shardkit.sharding.ddata.DDataSettings;
import dev.shardkit.sharding.spi.RememberEntitiesStore;
import java.io.File;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import org.apache.pekko.actor.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.cluster.ddata.ORSet;
import org.apache.pekko.cluster.ddata.Key;
import org.apache.pekko.cluster.ddata.SelfUniqueAddress;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps one shard's remembered entity ids in shardkit's remembered-entities replicator for the
 * type's role, as sets of ids under the shard's {@link ShardEntitiesKeys}: loaded with a majority
 * read of every key, all in one round ({@link ReplicaMajority#readAll}), changed with one majority
 * write per key a batch touches, sent together (local reads and writes where this node is the
 * only replica, which is the same). The replicator keeps
 * the keys durable, so a write is confirmed once it is in LMDB on a majority of the replicas, this
 * node among them also when the disk lags the replicator ({@link ReplicaMajority#writeToDisk}; with
 * {@code write-behind-interval = off}, the default), and after a restart of the whole cluster each
 * node loads its copy back before it answers.
 *
 * <p>The sets are observed-remove sets (Pekko's {@link ORSet}): the shard is the only writer of
 * its keys while it runs, and a successor on another node reads by majority what every
 * predecessor confirmed. A write that timed out may still reach replicas later, which at worst
 * remembers an entity that was started, or forgets one that was stopped; the shard retries a
 * failed write anyway.
 *
 * <p>Before its first write of started entities, the store adds its shard id to the type's list of
 * shards with remembered entities ({@link RememberedShardsKey}), also by majority, so that the list
 * holds every shard whose entities a majority may remember (and a starting coordinator can give
 * them a home at once), through the type's {@link ShardListing} on this node, which writes the
 * listings of shards that start together in one write. Once per instance is enough, as ids are
 * never taken out of the list, and none at all for a shard whose load found entities (they were
 * written after its listing); a failed listing fails the update, and the shard's retry lists again.
 *
 * <p>One instance per shard incarnation; the shard makes one call at a time.
 */
public final class DDataRememberEntitiesStore implements RememberEntitiesStore {
  private static final Logger LOG = LoggerFactory.getLogger(DDataRememberEntitiesStore.class);

  private final String subject;
  private final Optional<String> role;
  private final DDataSettings settings;
  private final ShardEntitiesKeys keys;
  private final String shardId;
  private final ShardListing listing;
  private final ReplicaMajority majority;
  private final SelfUniqueAddress self;
  private final File lmdbDirectory;
  /** Whether this instance's shard id is in the type's list; set from the write's callback. */
  private volatile boolean listed;

  /**
   * @param replicator shardkit's remembered-entities replicator for {@code role}, from
   *     {@link Replicators#entitiesReplicatorFor}
   * @param lmdbDirectory where that replicator keeps its files on this node, for {@link #describe}
   * @throws IllegalArgumentException if the type name or shard id is empty, or too long for LMDB
   */
  public DDataRememberEntitiesStore(ActorSystem<?> system, String typeName, String shardId, Optional<String> role,
      DDataSettings settings, ActorRef replicator, File lmdbDirectory) {
    this.keys = ShardEntitiesKeys.of(typeName, shardId);
    this.shardId = shardId;
    this.listing = Replicators.get(system).listingFor(typeName, role, replicator);
    this.subject = "Entity type [" + typeName + "], shard [" + shardId + "]";
    this.role = role;
    this.settings = settings;
    this.majority = new ReplicaMajority(system, role, settings, replicator, subject,
        "the remember-entities store was closed (its shard stopped)");
    this.self = new SelfUniqueAddress(majority.cluster().selfUniqueAddress());
    this.lmdbDirectory = lmdbDirectory;
  }

  /**
   * The union of the shard's keys, each read from a majority of the replicas. Fails with a
   * {@link java.util.concurrent.TimeoutException} if a key could not be read from a majority in
   * {@code read-retries + 1} attempts.
   */
  @Override
  public CompletionStage<Set<String>> load() {
    if (majority.isClosed()) {
      return majority.closedFailure();
    }
    return majority.readAll(keys.all(), "the remembered entities (keys " + keys + ")").thenApply(sets -> {
      Set<String> ids = new HashSet<>();
      sets.forEach(set -> set.ifPresent(s -> ids.addAll(s.getElements())));
      LOG.debug("{}: loaded {} remembered entity id(s) on {}", subject, ids.size(), majority.cluster().selfAddress());
      if (!ids.isEmpty()) {
        // Written after the shard was listed, which therefore needs no write again.
        listing.alreadyListed(shardId);
        listed = true;
      }
      return Set.copyOf(ids);
    });
  }

  /**
   * One majority write per key the batch touches, sent together; completes when all are confirmed,
   * fails if one is not (the shard then retries the batch, and writing a change again is
   * harmless). An empty batch completes at once. The first batch that starts entities first lists
   * the shard (see above) and writes the entities only once that is confirmed.
   *
   * @throws IllegalArgumentException if a set is null or holds null, or an id is in both
   */
  @Override
  public CompletionStage<Void> update(Set<String> started, Set<String> stopped) {
    List<BucketChange> changes = keys.changes(started, stopped);
    if (majority.isClosed()) {
      return majority.closedFailure();
    }
    if (started.isEmpty() || listed) {
      return write(changes);
    }
    // Listed first: an entity a majority remembers is then always in a shard the list names.
    return ReplicaMajority.unwrapped(listing.list(shardId).thenCompose(done -> {
          listed = true;
          return majority.isClosed() ? majority.<Void>closedFailure() : write(changes);
        }));
  }

  private CompletionStage<Void> write(List<BucketChange> changes) {
    if (changes.isEmpty()) {
      return CompletableFuture.completedFuture(null);
    }
    Map<Key<ORSet<String>>, Function<ORSet<String>, ORSet<String>>> perKey = new LinkedHashMap<>();
    Map<Key<ORSet<String>>, BucketChange> byKey = new LinkedHashMap<>();
    for (BucketChange change : changes) {
      perKey.put(change.key(), set -> change.applyTo(set, self));
      byKey.put(change.key(), change);
    }
    return majority.writeToDisk(ORSet.create(), perKey, key -> "the remembered entities' change " + byKey.get(key),
        "It may have reached some of them, which is harmless: the shard writes the change again when it retries");
  }

  @Override
  public String describe() {
    return "ddata (durable on disk in LMDB, here in " + lmdbDirectory.getAbsolutePath() + ", and replicated on "
        + role.map(r -> "the nodes with role [" + r + "]").orElse("every node") + "; writes and reads by majority, "
        + "of at least " + settings.majorityMinCap() + " nodes or all of them)";
  }

  @Override
  public void close() {
    majority.close();
  }
}
