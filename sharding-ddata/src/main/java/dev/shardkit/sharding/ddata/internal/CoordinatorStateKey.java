package dev.shardkit.sharding.ddata.internal;

import org.apache.pekko.cluster.ddata.Key;

/**
 * The replicated key under which one entity type's coordinator state lives:
 * {@code shardkit-coordinator-<type name>}. Type names are unique per cluster, and shardkit's
 * replicators hold nothing else under this prefix.
 */
public final class CoordinatorStateKey extends Key<CoordinatorStateRecord> {
  private static final long serialVersionUID = 1L;

  /** Every coordinator state key starts with this. */
  public static final String PREFIX = "shardkit-coordinator-";

  private CoordinatorStateKey(String id) {
    super(id);
  }

  /**
   * @throws IllegalArgumentException if the type name is null or empty
   */
  public static CoordinatorStateKey of(String typeName) {
    if (typeName == null || typeName.isEmpty()) {
      throw new IllegalArgumentException("An entity type name must not be null or empty, got [" + typeName + "]");
    }
    return new CoordinatorStateKey(PREFIX + typeName);
  }
}
