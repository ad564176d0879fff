package dev.shardkit.sharding.persistence.internal;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.util.List;

/**
 * The whole coordinator state as it is stored in a snapshot: every region (in registration order)
 * with the shards it is home to (in allocation order), and every proxy. References are in
 * {@code ActorRefResolver} serialization format.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record StoredSnapshot(List<Region> regions, List<String> proxies) implements StoredRecord {

  /** A region and the shards it is home to. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Region(String ref, List<String> shards) {
    @JsonCreator
    public Region {}
  }

  @JsonCreator
  public StoredSnapshot {}
}
