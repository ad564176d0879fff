package dev.shardkit.sharding.persistence.internal;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The whole coordinator state as it is stored in a snapshot: every region (in registration order)
 * with the shards it is home to (in allocation order), and every proxy. References are in
 * {@code ActorRefResolver} serialization format. {@code term} is the term of the last coordinator
 * that took over (since schema version 2; null in a snapshot of version 1, read as 0), and
 * {@code node} the address of the node that took over at it (appended in version 2 without raising
 * it, as readers ignore fields they do not know; null where it was not stored).
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
public record StoredSnapshot(List<Region> regions, List<String> proxies, @Nullable Long term, @Nullable String node)
    implements StoredRecord {

  /** A region and the shards it is home to. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Region(String ref, List<String> shards) {
    @JsonCreator
    public Region {}
  }

  @JsonCreator
  public StoredSnapshot {}

  /** A snapshot without a term, as schema version 1 wrote it. */
  public StoredSnapshot(List<Region> regions, List<String> proxies) {
    this(regions, proxies, null, null);
  }

  /** A snapshot with a term but no node, as schema version 2 first wrote it. */
  public StoredSnapshot(List<Region> regions, List<String> proxies, @Nullable Long term) {
    this(regions, proxies, term, null);
  }

  /** This snapshot with {@code coordinatorTerm} and no node. */
  public StoredSnapshot withTerm(long coordinatorTerm) {
    return withTerm(coordinatorTerm, null);
  }

  /** This snapshot with {@code coordinatorTerm}, taken over by {@code takingNode} (null if unknown). */
  public StoredSnapshot withTerm(long coordinatorTerm, String takingNode) {
    return new StoredSnapshot(regions, proxies, coordinatorTerm, takingNode);
  }

  /** The term, 0 if the snapshot has none. */
  public long termOrZero() {
    return term == null ? 0 : term;
  }
}
