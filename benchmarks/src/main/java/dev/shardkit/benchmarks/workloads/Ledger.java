package dev.shardkit.benchmarks.workloads;

import java.util.BitSet;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Which numbered messages each entity received from each sender, across incarnations and nodes
 * (all nodes of a run share the JVM), to count what was lost or delivered twice.
 */
final class Ledger implements Counter.Hook {
  private final Map<String, BitSet> received = new ConcurrentHashMap<>();
  private final AtomicLong duplicates = new AtomicLong();

  @Override
  public void added(String entityId, Counter.Add add, long count) {
    BitSet seen = received.computeIfAbsent(entityId + '|' + add.sender(), k -> new BitSet());
    synchronized (seen) {
      if (seen.get((int) add.seq())) {
        duplicates.incrementAndGet();
      }
      seen.set((int) add.seq());
    }
  }

  /** How many of messages 1..{@code sent} from {@code sender} to {@code entityId} never arrived. */
  long missing(String entityId, String sender, int sent) {
    BitSet seen = received.get(entityId + '|' + sender);
    if (seen == null) {
      return sent;
    }
    synchronized (seen) {
      return sent - seen.get(1, sent + 1).cardinality();
    }
  }

  long duplicates() {
    return duplicates.get();
  }
}
