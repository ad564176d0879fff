package dev.shardkit.sharding.persistence.internal;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * A coordinator event as it is stored: flat and free of actor references, so the stored form does
 * not depend on how the in-memory events are shaped. {@code ref} is a region or proxy in
 * {@code ActorRefResolver} serialization format; {@code ref} and {@code shardId} are null where
 * the kind has none.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
public record StoredEvent(Kind kind, String ref, String shardId) implements StoredRecord {

  /** One per kind of {@code CoordinatorEvent}. Never rename a constant: stored data names it. */
  public enum Kind {
    REGION_REGISTERED,
    PROXY_REGISTERED,
    REGION_TERMINATED,
    PROXY_TERMINATED,
    SHARD_HOME_ALLOCATED,
    SHARD_HOME_DEALLOCATED
  }

  @JsonCreator
  public StoredEvent {}
}
