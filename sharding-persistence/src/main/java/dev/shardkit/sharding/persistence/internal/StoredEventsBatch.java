package dev.shardkit.sharding.persistence.internal;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import dev.shardkit.sharding.persistence.internal.StoredEvent.Kind;
import java.util.List;

/**
 * Many coordinator events of one write, stored as one journal row (since schema version 2: added
 * while version 2 was unreleased), so that placing 100 000 shards is one row to insert, not
 * 100 000. Replay expands it into the same events in the same order.
 *
 * <p>Compact rather than one {@link StoredEvent} per event, because a row of a large placement
 * holds every shard: each region or proxy reference is written once, in {@code refs} (in order of
 * first use); {@code kinds} gives the events' kinds as runs, in order; every event whose kind has a
 * reference takes the next entry of {@code refIndexes} (an index into {@code refs}), and every event
 * whose kind has a shard id the next entry of {@code shardIds}. So 100 000 allocations over 100
 * regions are one run, 100 references, 100 000 small numbers and 100 000 shard ids.
 *
 * <p>Only kinds that change the coordinator state appear (no take-over, no keep-alive).
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
public record StoredEventsBatch(List<String> refs, List<KindRun> kinds, List<Integer> refIndexes,
    List<String> shardIds) implements StoredRecord {

  /** {@code count} consecutive events of {@code kind}. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record KindRun(Kind kind, int count) {
    @JsonCreator
    public KindRun {}
  }

  @JsonCreator
  public StoredEventsBatch {}

  /** Whether events of {@code kind} carry a reference (a region or a proxy). */
  static boolean hasRef(Kind kind) {
    return kind != Kind.SHARD_HOME_DEALLOCATED;
  }

  /** Whether events of {@code kind} carry a shard id. */
  static boolean hasShardId(Kind kind) {
    return kind == Kind.SHARD_HOME_ALLOCATED || kind == Kind.SHARD_HOME_DEALLOCATED;
  }
}
