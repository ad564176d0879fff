package dev.shardkit.sharding.persistence.internal;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import org.jspecify.annotations.Nullable;

/**
 * A coordinator event as it is stored: flat and free of actor references, so the stored form does
 * not depend on how the in-memory events are shaped. {@code ref} is a region or proxy in
 * {@code ActorRefResolver} serialization format; {@code ref} and {@code shardId} are null where
 * the kind has none. {@code node} is the address of the node whose coordinator took over, on a
 * {@link Kind#TAKEN_OVER}, or is alive, on a {@link Kind#KEPT_ALIVE} (appended in schema version 2
 * without raising it, as readers ignore fields they do not know; null in a take-over written
 * before, and on every other kind).
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
public record StoredEvent(Kind kind, @Nullable String ref, @Nullable String shardId, @Nullable String node) implements StoredRecord {

  /**
   * One per kind of {@code CoordinatorEvent}, and {@link #TAKEN_OVER}. Never rename a constant:
   * stored data names it; a new one needs a new {@link StoredRecordVersion}.
   */
  public enum Kind {
    REGION_REGISTERED,
    PROXY_REGISTERED,
    REGION_TERMINATED,
    PROXY_TERMINATED,
    SHARD_HOME_ALLOCATED,
    SHARD_HOME_DEALLOCATED,
    /**
     * A coordinator loaded and took over (no {@code ref}, no {@code shardId}); its sequence number
     * is that coordinator's term. Since schema version 2.
     */
    TAKEN_OVER,
    /**
     * A loaded coordinator that had written nothing for {@code keep-alive-interval} is still
     * running (no {@code ref}, no {@code shardId}; {@code node} names it). Since schema version 2:
     * added while version 2 was unreleased, so no version was stored without it.
     */
    KEPT_ALIVE
  }

  @JsonCreator
  public StoredEvent {}

  /** An event without a node: every kind but {@link Kind#TAKEN_OVER} and {@link Kind#KEPT_ALIVE}. */
  public StoredEvent(Kind kind, String ref, String shardId) {
    this(kind, ref, shardId, null);
  }

  /**
   * The take-over of the coordinator on {@code node}.
   *
   * @param node the taking node's address, e.g. {@code pekko://Cluster@10.0.0.1:25520}
   */
  public static StoredEvent takenOver(String node) {
    return new StoredEvent(Kind.TAKEN_OVER, null, null, node);
  }

  /**
   * The keep-alive of the coordinator on {@code node}.
   *
   * @param node the live node's address, e.g. {@code pekko://Cluster@10.0.0.1:25520}
   */
  public static StoredEvent keptAlive(String node) {
    return new StoredEvent(Kind.KEPT_ALIVE, null, null, node);
  }
}
