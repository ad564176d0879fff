package dev.shardkit.sharding.ddata.internal;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.pekko.cluster.ddata.ORSetKey;

/**
 * The replicated keys under which one shard's remembered entity ids live: {@value #KEYS_PER_SHARD}
 * sets of ids, {@code shardkit-entities-<type name>/<shard id>/<n>} with n from 0, both names
 * URL-encoded (so neither contains a {@code /} and two shards never share a key). An entity's
 * key follows from its id alone. Immutable.
 *
 * <p>Every key of a shard has two {@code /}; the type's list of shards
 * ({@link RememberedShardsKey}) has one, so it is never a shard's key.
 *
 * <h2>Why several keys per shard</h2>
 *
 * The replicator writes a key's whole value to LMDB on every change and sends it whole when
 * gossip finds replicas that differ, in one remote message (Artery's default frame is 256 KiB).
 * A shard of 10 000 entities with 36-character ids is about 450 KB as one set; split in
 * {@value #KEYS_PER_SHARD}, each value stays near 90 KB, and a batch that changes a few entities
 * rewrites a fifth of it. More keys would shrink values further but multiply what a shard reads
 * when it starts and what gossip compares every interval, for every shard. The number is fixed:
 * changing it would hide the ids stored under the keys it no longer reads.
 */
public final class ShardEntitiesKeys {
  /** Every remembered-entities key starts with this. */
  public static final String PREFIX = "shardkit-entities-";
  /** How many keys one shard's ids are spread over. */
  public static final int KEYS_PER_SHARD = 5;
  /** LMDB refuses keys longer than this many bytes (its default maximum key size). */
  static final int MAX_KEY_BYTES = 511;

  /** The keys' common start, e.g. {@code shardkit-entities-Cart/17/}. */
  private final String base;
  private final List<ORSetKey<String>> keys;

  private ShardEntitiesKeys(String base, List<ORSetKey<String>> keys) {
    this.base = base;
    this.keys = keys;
  }

  /**
   * @throws IllegalArgumentException if the type name or shard id is null or empty, or the keys
   *     would be longer than LMDB allows (a shard id of a few hundred characters)
   */
  public static ShardEntitiesKeys of(String typeName, String shardId) {
    if (typeName == null || typeName.isEmpty()) {
      throw new IllegalArgumentException("An entity type name must not be null or empty, got [" + typeName + "]");
    }
    if (shardId == null || shardId.isEmpty()) {
      throw new IllegalArgumentException("Entity type [" + typeName + "]: a shard id must not be null or empty, got ["
          + shardId + "]");
    }
    String base = PREFIX + encode(typeName) + "/" + encode(shardId) + "/";
    int bytes = (base + (KEYS_PER_SHARD - 1)).getBytes(StandardCharsets.UTF_8).length;
    if (bytes > MAX_KEY_BYTES) {
      throw new IllegalArgumentException("Entity type [" + typeName + "], shard [" + shardId + "]: the keys of its "
          + "remembered entities would be " + bytes + " bytes long, and LMDB takes at most " + MAX_KEY_BYTES
          + "; use shorter shard ids (or type names) with the ddata remember-entities store");
    }
    List<ORSetKey<String>> keys = new ArrayList<>(KEYS_PER_SHARD);
    for (int i = 0; i < KEYS_PER_SHARD; i++) {
      keys.add(new ORSetKey<>(base + i));
    }
    return new ShardEntitiesKeys(base, List.copyOf(keys));
  }

  /** URL-encoded: the result holds no {@code /}, which separates the parts of a key. */
  static String encode(String name) {
    return URLEncoder.encode(name, StandardCharsets.UTF_8);
  }

  /** The shard's keys, in order. */
  public List<ORSetKey<String>> all() {
    return keys;
  }

  /** The key that holds {@code entityId}; the same on every JVM ({@link String#hashCode} is specified). */
  public ORSetKey<String> keyOf(String entityId) {
    return keys.get(Math.floorMod(entityId.hashCode(), KEYS_PER_SHARD));
  }

  /**
   * A batch of started and stopped entities split by key, one change per key it touches, in key
   * order; empty if both sets are.
   *
   * @throws IllegalArgumentException if a set is null or holds null, or an id is in both
   */
  public List<BucketChange> changes(Set<String> started, Set<String> stopped) {
    if (started == null || stopped == null) {
      throw new IllegalArgumentException("A remembered-entities update needs a set of started and a set of stopped "
          + "entity ids, got " + started + " and " + stopped);
    }
    List<Set<String>> startedPerKey = split(started, "started");
    List<Set<String>> stoppedPerKey = split(stopped, "stopped");
    List<BucketChange> changes = new ArrayList<>();
    for (int i = 0; i < KEYS_PER_SHARD; i++) {
      Set<String> both = new HashSet<>(startedPerKey.get(i));
      both.retainAll(stoppedPerKey.get(i));
      if (!both.isEmpty()) {
        throw new IllegalArgumentException("A remembered-entities update has entity id(s) " + both + " both started "
            + "and stopped; an id may be in one set only");
      }
      if (!startedPerKey.get(i).isEmpty() || !stoppedPerKey.get(i).isEmpty()) {
        changes.add(new BucketChange(keys.get(i), startedPerKey.get(i), stoppedPerKey.get(i)));
      }
    }
    return List.copyOf(changes);
  }

  private List<Set<String>> split(Set<String> ids, String what) {
    List<Set<String>> perKey = new ArrayList<>(KEYS_PER_SHARD);
    for (int i = 0; i < KEYS_PER_SHARD; i++) {
      perKey.add(new HashSet<>());
    }
    for (String id : ids) {
      if (id == null) {
        throw new IllegalArgumentException("A remembered-entities update has a null entity id among the " + what);
      }
      perKey.get(Math.floorMod(id.hashCode(), KEYS_PER_SHARD)).add(id);
    }
    return perKey;
  }

  @Override
  public String toString() {
    return base + "{0.." + (KEYS_PER_SHARD - 1) + "}";
  }
}
