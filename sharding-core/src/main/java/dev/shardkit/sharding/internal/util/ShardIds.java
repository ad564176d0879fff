package dev.shardkit.sharding.internal.util;

import dev.shardkit.sharding.internal.InternalApi;
import dev.shardkit.sharding.spi.CoordinatorEvent.ShardHomeAllocated;
import dev.shardkit.sharding.spi.CoordinatorEvent.ShardHomeDeallocated;
import dev.shardkit.sharding.spi.CoordinatorEvent;
import java.util.List;
import java.util.Optional;

/**
 * The one rule for shard and entity ids, used wherever an id enters shardkit from outside the
 * node's own code paths: the wire (serializers), the handlers of regions, shards and the
 * coordinator, and the write and read paths of both coordinator state stores. An id is valid when
 * it is neither null nor empty; any other string (also one with unpaired surrogates, which the
 * wire format carries unchanged) is a valid id.
 *
 * <p>Why one rule: an id that one side accepts and another refuses is worse than either choice.
 * A store that writes an id its own replay refuses cannot be loaded again; a region that starts a
 * shard the coordinator would never place holds messages for ever.
 *
 * <p>Internal API: public for shardkit's store modules; not for applications, and it may change in
 * any release.
 */
@InternalApi
public final class ShardIds {

  private ShardIds() {}

  /** True if {@code id} is a valid shard or entity id. */
  public static boolean isValid(String id) {
    return id != null && !id.isEmpty();
  }

  /**
   * Why {@code id} is not a valid id, or empty if it is.
   *
   * @param what what the id is, for the reason: {@code "shard id"}, {@code "entity id"}
   * @return e.g. {@code "the shard id is empty"}
   */
  public static Optional<String> problem(String what, String id) {
    if (id == null) {
      return Optional.of("the " + what + " is null");
    }
    if (id.isEmpty()) {
      return Optional.of("the " + what + " is empty");
    }
    return Optional.empty();
  }

  /**
   * Checks an id on a write path.
   *
   * @param what what the id is, for the error: {@code "shard id"}, {@code "entity id"}
   * @param where who refuses it, for the error, e.g. {@code "the persistence coordinator state store"}
   * @return {@code id}
   * @throws IllegalArgumentException naming {@code what} and {@code where} if the id is null or empty
   */
  public static String require(String what, String id, String where) {
    Optional<String> problem = problem(what, id);
    if (problem.isPresent()) {
      throw new IllegalArgumentException(where + " refuses an invalid " + what + ": " + problem.get());
    }
    return id;
  }

  /**
   * Checks the shard ids of coordinator events before a store writes them.
   *
   * @param where who refuses them, for the error
   * @throws IllegalArgumentException naming the event if one has an invalid shard id
   */
  public static void requireIn(List<CoordinatorEvent> events, String where) {
    for (CoordinatorEvent event : events) {
      String shardId = event instanceof ShardHomeAllocated a ? a.shardId()
          : event instanceof ShardHomeDeallocated d ? d.shardId() : "-";
      if (!isValid(shardId)) {
        throw new IllegalArgumentException(where + " refuses to store " + event + ": " + problem("shard id", shardId)
            .orElseThrow());
      }
    }
  }
}
