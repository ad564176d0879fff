package dev.shardkit.sharding.persistence.internal;

import com.fasterxml.jackson.annotation.JsonCreator;
import java.util.List;

/** The whole set of a shard's remembered entity ids as it is stored in a snapshot, sorted. */
public record StoredEntitiesSnapshot(List<String> entityIds) implements StoredRecord {

  @JsonCreator
  public StoredEntitiesSnapshot {}
}
