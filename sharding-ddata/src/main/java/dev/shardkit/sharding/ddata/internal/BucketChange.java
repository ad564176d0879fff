package dev.shardkit.sharding.ddata.internal;

import java.util.Set;
import org.apache.pekko.cluster.ddata.ORSet;
import org.apache.pekko.cluster.ddata.ORSetKey;
import org.apache.pekko.cluster.ddata.SelfUniqueAddress;

/**
 * The part of one remembered-entities update that falls in one key of the shard
 * ({@link ShardEntitiesKeys#changes}): written as one replicator update. Immutable.
 *
 * @param key the key
 * @param started ids to add; never also in {@code stopped}
 * @param stopped ids to remove
 */
public record BucketChange(ORSetKey<String> key, Set<String> started, Set<String> stopped) {

  public BucketChange {
    started = Set.copyOf(started);
    stopped = Set.copyOf(stopped);
  }

  /** The key's set after this change, made by {@code node}. */
  public ORSet<String> applyTo(ORSet<String> set, SelfUniqueAddress node) {
    ORSet<String> result = set;
    for (String id : started) {
      result = result.add(node, id);
    }
    for (String id : stopped) {
      result = result.remove(node, id);
    }
    return result;
  }

  @Override
  public String toString() {
    return "BucketChange(" + key.id() + ", +" + started.size() + ", -" + stopped.size() + ")";
  }
}
