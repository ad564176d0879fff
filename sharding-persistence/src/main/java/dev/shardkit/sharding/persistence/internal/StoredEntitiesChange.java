package dev.shardkit.sharding.persistence.internal;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.util.Collection;
import java.util.List;
import java.util.Set;

/**
 * One update of a shard's remembered entities as it is stored: the event of {@link EntitiesJournal},
 * one per {@code RememberEntitiesStore.update} call. {@code started} entities are remembered from
 * here on, {@code stopped} ones are forgotten. Both are sorted, so the same batch is always
 * stored the same way.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record StoredEntitiesChange(List<String> started, List<String> stopped) implements StoredRecord {

  @JsonCreator
  public StoredEntitiesChange {}

  /**
   * The change of one update call.
   *
   * @throws IllegalArgumentException if a set is null, holds a null or empty id, or an id is in
   *     both sets
   */
  public static StoredEntitiesChange of(Set<String> started, Set<String> stopped) {
    requireIds(started, "started");
    requireIds(stopped, "stopped");
    for (String id : started) {
      if (stopped.contains(id)) {
        throw new IllegalArgumentException("Entity id [" + id + "] is both started and stopped in one update");
      }
    }
    return new StoredEntitiesChange(started.stream().sorted().toList(), stopped.stream().sorted().toList());
  }

  private static void requireIds(Collection<String> ids, String which) {
    if (ids == null) {
      throw new IllegalArgumentException("The " + which + " entity ids of an update must not be null");
    }
    for (String id : ids) {
      if (id == null || id.isEmpty()) {
        throw new IllegalArgumentException("The " + which + " entity ids of an update hold a null or empty id: "
            + ids);
      }
    }
  }
}
