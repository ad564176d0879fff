package dev.shardkit.sharding.ddata.internal;

import org.apache.pekko.cluster.ddata.Key;

/**
 * The replicated keys of one entity type's split coordinator state ({@link CoordinatorStateHead}):
 * {@code shardkit-coordinator-<type name>/head} and {@code shardkit-coordinator-<type name>/part-<i>}.
 * A type name is an actor name and cannot contain a slash, so these never equal the key of the
 * single record the build before the split wrote ({@link CoordinatorStateKey}) for any type, and
 * they share its prefix, which {@code durable.keys} must not match.
 */
public final class CoordinatorStateKeys {
  private CoordinatorStateKeys() {}

  /** The key of a type's head. */
  public static final class HeadKey extends Key<CoordinatorStateHead> {
    private static final long serialVersionUID = 1L;

    private HeadKey(String id) {
      super(id);
    }
  }

  /** The key of one of a type's parts. */
  public static final class PartKey extends Key<CoordinatorStatePart> {
    private static final long serialVersionUID = 1L;

    private PartKey(String id) {
      super(id);
    }
  }

  /**
   * @throws IllegalArgumentException if the type name is null or empty
   */
  public static HeadKey head(String typeName) {
    return new HeadKey(CoordinatorStateKey.of(typeName).id() + "/head");
  }

  /**
   * @throws IllegalArgumentException if the type name is null or empty, or the index is negative
   */
  public static PartKey part(String typeName, int index) {
    if (index < 0) {
      throw new IllegalArgumentException("A coordinator state part index must be >= 0, got " + index);
    }
    return new PartKey(CoordinatorStateKey.of(typeName).id() + "/part-" + index);
  }
}
