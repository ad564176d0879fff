package dev.shardkit.sharding.persistence.internal;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.util.List;

/** The whole set of a shard's remembered entity ids as it is stored in a snapshot, sorted. */
@JsonIgnoreProperties(ignoreUnknown = true)
public record StoredEntitiesSnapshot(List<String> entityIds) implements StoredRecord {

  @JsonCreator
  public StoredEntitiesSnapshot {}
}
