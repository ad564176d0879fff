package dev.shardkit.sharding.ddata.internal;

import java.nio.charset.StandardCharsets;
import org.apache.pekko.cluster.ddata.ORSetKey;

/**
 * The replicated key that lists an entity type's shards that have remembered entities:
 * {@code shardkit-entities-<type name>/shards}, the name URL-encoded. A starting coordinator reads
 * it to give those shards a home at once; a shard's store adds its shard id before its first write
 * of started entities.
 *
 * <p>It starts with {@link ShardEntitiesKeys#PREFIX}, so the remembered-entities replicator keeps
 * it in LMDB like the shards' keys and it survives a restart of the whole cluster. It cannot be a
 * shard's key: those hold two {@code /} (after the encoded type name and after the encoded shard
 * id), this one only one.
 *
 * <p>Shard ids are never taken out of it: a shard whose entities were all passivated stays listed,
 * and after a restart of the whole cluster it starts, finds nothing and runs empty. That costs an
 * idle shard per listed shard (at most {@code number-of-shards}); taking them out would need the
 * shard to know it is empty for good, while a successor on another node may be adding again.
 */
public final class RememberedShardsKey {
  private static final String SUFFIX = "/shards";

  private RememberedShardsKey() {}

  /**
   * @throws IllegalArgumentException if the type name is null or empty, or the key would be longer
   *     than LMDB allows
   */
  public static ORSetKey<String> of(String typeName) {
    if (typeName == null || typeName.isEmpty()) {
      throw new IllegalArgumentException("An entity type name must not be null or empty, got [" + typeName + "]");
    }
    String id = ShardEntitiesKeys.PREFIX + ShardEntitiesKeys.encode(typeName) + SUFFIX;
    int bytes = id.getBytes(StandardCharsets.UTF_8).length;
    if (bytes > ShardEntitiesKeys.MAX_KEY_BYTES) {
      throw new IllegalArgumentException("Entity type [" + typeName + "]: the key that lists its shards with "
          + "remembered entities would be " + bytes + " bytes long, and LMDB takes at most "
          + ShardEntitiesKeys.MAX_KEY_BYTES + "; use a shorter type name with the ddata remember-entities store");
    }
    return new ORSetKey<>(id);
  }
}
