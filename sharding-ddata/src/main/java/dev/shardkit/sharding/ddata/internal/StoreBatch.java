package dev.shardkit.sharding.ddata.internal;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.pekko.cluster.ddata.DurableStore.DurableDataEnvelope;
import org.apache.pekko.cluster.ddata.DurableStore.StoreReply;

/**
 * The stores a {@link GroupCommitDurableStore} has received since its last commit: the latest
 * value of each key (a later store of a key replaces an earlier one, as it would on disk) and
 * every reply owed once they are written, in the order the stores arrived.
 */
final class StoreBatch {
  private final Map<String, DurableDataEnvelope> values = new LinkedHashMap<>();
  private final List<StoreReply> replies = new ArrayList<>();

  /** Adds a store; {@code reply} is null when nobody waits for this one. */
  void add(String key, DurableDataEnvelope value, StoreReply reply) {
    values.put(key, value);
    if (reply != null) {
      replies.add(reply);
    }
  }

  boolean isEmpty() {
    return values.isEmpty();
  }

  /** The value to write for each key, once per key. */
  Map<String, DurableDataEnvelope> values() {
    return Collections.unmodifiableMap(values);
  }

  /** The replies owed once the values are written, one per store that asked for one. */
  List<StoreReply> replies() {
    return Collections.unmodifiableList(replies);
  }
}
