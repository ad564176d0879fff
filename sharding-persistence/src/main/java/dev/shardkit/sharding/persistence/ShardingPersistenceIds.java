package dev.shardkit.sharding.persistence;

/**
 * The persistence ids under which shardkit keeps an entity type's data in the journal and the
 * snapshot store. They are part of the stored format: data written under one id is found only
 * under the same id, so they never change between versions.
 */
public final class ShardingPersistenceIds {
  /** The prefix of every coordinator's persistence id. */
  public static final String COORDINATOR_PREFIX = "shardkit-coordinator-";

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
}
