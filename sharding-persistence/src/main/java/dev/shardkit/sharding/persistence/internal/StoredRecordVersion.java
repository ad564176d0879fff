package dev.shardkit.sharding.persistence.internal;

import com.fasterxml.jackson.databind.JsonNode;
import org.apache.pekko.serialization.jackson.JacksonMigration;

/**
 * The schema version of every {@link StoredRecord} ({@link StoredEvent}, {@link StoredEventsBatch},
 * {@link StoredSnapshot}, {@link StoredEntitiesChange}, {@link StoredEntitiesSnapshot}): Pekko's Jackson serializer writes
 * it into each record's manifest ({@code ...StoredEvent#1}). A later version that changes
 * the stored form raises {@link #CURRENT} and migrates older records here. A record written by a
 * newer version is refused with an error that says so, rather than read wrongly.
 */
public final class StoredRecordVersion extends JacksonMigration {
  /**
   * The version this code writes. 1 is the first. 2 added the coordinator's take-over event
   * ({@link StoredEvent.Kind#TAKEN_OVER}) and the term in coordinator snapshots; a record of
   * version 1 reads unchanged (a snapshot without a term has term 0). {@link StoredEventsBatch}
   * was added while version 2 was unreleased, so no version-2 reader lacks it.
   */
  public static final int CURRENT = 2;

  @Override
  public int currentVersion() {
    return CURRENT;
  }

  /**
   * Every newer version reaches {@link #transformClassName}, which refuses it with a clear
   * message instead of the serializer's generic one.
   */
  @Override
  public int supportedForwardVersion() {
    return Integer.MAX_VALUE;
  }

  @Override
  public String transformClassName(int fromVersion, String className) {
    requireKnown(fromVersion, className);
    return className;
  }

  @Override
  public JsonNode transform(int fromVersion, JsonNode json) {
    requireKnown(fromVersion, "a shardkit sharding record");
    return json;
  }

  private static void requireKnown(int fromVersion, String className) {
    if (fromVersion > CURRENT) {
      throw new IllegalStateException("Stored record " + className + " has schema version " + fromVersion
          + ", but this shardkit reads versions up to " + CURRENT + ": it was written by a newer shardkit. "
          + "Run that version, or delete the entity type's stored sharding data with "
          + "dev.shardkit.sharding.persistence.RemoveShardingData while the whole cluster is stopped");
    }
  }
}
