package dev.shardkit.sharding.persistence;

import dev.shardkit.sharding.EntityTypeKey;
import java.util.Optional;

/**
 * The persistence ids under which shardkit keeps an entity type's data in the journal and the
 * snapshot store. They are part of the stored format: data written under one id is found only
 * under the same id, so they never change between versions.
 */
public final class ShardingPersistenceIds {
  /** The prefix of every coordinator's persistence id. */
  public static final String COORDINATOR_PREFIX = "shardkit-coordinator-";
  /** The prefix of every shard's remembered-entities persistence id. */
  public static final String ENTITIES_PREFIX = "shardkit-entities-";
  /**
   * Ends the entity type's name in a remembered-entities persistence id. Type names cannot hold
   * it, so the type's ids are exactly those that start with {@link #entitiesPrefix}: type
   * {@code A}'s prefix {@code shardkit-entities-A|} is no prefix of type {@code A-b}'s ids
   * ({@code shardkit-entities-A-b|...}), whatever the shard ids are.
   */
  public static final char TYPE_END = '|';

  private ShardingPersistenceIds() {}

  /**
   * The persistence id of the coordinator state of an entity type: its events and snapshots.
   *
   * @param typeName the entity type's name ({@code EntityTypeKey.name()})
   * @return {@code "shardkit-coordinator-" + typeName}
   * @throws IllegalArgumentException if the name is null or empty
   */
  public static String coordinator(String typeName) {
    if (typeName == null || typeName.isEmpty()) {
      throw new IllegalArgumentException("An entity type name must not be null or empty");
    }
    return COORDINATOR_PREFIX + typeName;
  }

  /**
   * The persistence id of the remembered entities of one shard of an entity type (with
   * {@code remember-entities-store = persistence}).
   *
   * @param typeName the entity type's name ({@code EntityTypeKey.name()})
   * @param shardId the shard's id, any non-empty string
   * @return {@code "shardkit-entities-" + typeName + "|" + shardId}, e.g.
   *     {@code shardkit-entities-Cart|17}
   * @throws IllegalArgumentException if the type name is not one {@code EntityTypeKey} accepts,
   *     or the shard id is null or empty
   */
  public static String entities(String typeName, String shardId) {
    if (shardId == null || shardId.isEmpty()) {
      throw new IllegalArgumentException("A shard id must not be null or empty (entity type [" + typeName + "])");
    }
    return entitiesPrefix(typeName) + shardId;
  }

  /**
   * What the remembered-entities persistence ids of an entity type start with, and no other
   * type's: {@code "shardkit-entities-" + typeName + "|"}.
   *
   * @throws IllegalArgumentException if the type name is not one {@code EntityTypeKey} accepts
   */
  public static String entitiesPrefix(String typeName) {
    // The separator is unambiguous only for names that cannot hold it: EntityTypeKey's rules.
    EntityTypeKey.create(Object.class, typeName);
    return ENTITIES_PREFIX + typeName + TYPE_END;
  }

  /**
   * The shard id in a remembered-entities persistence id of {@code typeName}: the inverse of
   * {@link #entities}, so {@code entitiesShardId(t, entities(t, s))} is {@code s} for every shard
   * id {@code s}. Empty for any other persistence id (another type's, a coordinator's, an
   * application's), including the bare prefix, which no shard has.
   *
   * @throws IllegalArgumentException if the type name is not one {@code EntityTypeKey} accepts
   */
  public static Optional<String> entitiesShardId(String typeName, String persistenceId) {
    String prefix = entitiesPrefix(typeName);
    if (persistenceId == null || persistenceId.length() <= prefix.length() || !persistenceId.startsWith(prefix)) {
      return Optional.empty();
    }
    return Optional.of(persistenceId.substring(prefix.length()));
  }
}
