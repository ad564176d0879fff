package dev.shardkit.benchmarks.workloads;

import dev.shardkit.benchmarks.harness.Stats;
import java.util.Arrays;
import java.util.Map;

/**
 * Message latency from send to entity receive, on one clock (every node of a run shares the JVM):
 * senders stamp each numbered message as they tell it, entities look the stamp up when they count
 * it. Latencies are kept with their send time, so that a window of the run (before a move, during
 * it) is judged by when its messages were sent, late arrivals included.
 */
final class LatencyLog implements Counter.Hook {
  private final Map<String, Integer> senderIndex;
  private final Map<String, Integer> entityIndex;
  private final int entities;
  private final int capacity;
  private final long[][] sentAt;
  private long[] sends = new long[1 << 16];
  private long[] latencies = new long[1 << 16];
  private int size;

  /**
   * @param capacity how many rounds (messages per sender and entity) a run may send at most
   * @throws IllegalArgumentException if there is no sender, no entity or no capacity
   */
  LatencyLog(Map<String, Integer> senderIndex, Map<String, Integer> entityIndex, int capacity) {
    if (senderIndex.isEmpty() || entityIndex.isEmpty() || capacity < 1) {
      throw new IllegalArgumentException("a latency log needs senders, entities and a capacity, got "
          + senderIndex.size() + " senders, " + entityIndex.size() + " entities, capacity " + capacity);
    }
    this.senderIndex = Map.copyOf(senderIndex);
    this.entityIndex = Map.copyOf(entityIndex);
    this.entities = entityIndex.size();
    this.capacity = capacity;
    this.sentAt = new long[senderIndex.size()][capacity * entities];
  }

  /** Rounds each sender may send; a sender stops before it would exceed them. */
  int capacity() {
    return capacity;
  }

  /**
   * Stamps message {@code seq} (from 1) of {@code sender} to entity number {@code entity} as sent
   * now. Called by the sender's thread before the tell: a local tell publishes the stamp through
   * the mailbox; to an entity on another node of the JVM it goes through the transport's queues
   * and the loopback socket, milliseconds after it was written.
   */
  void sending(int sender, int entity, int seq) {
    sentAt[sender][(seq - 1) * entities + entity] = System.nanoTime();
  }

  @Override
  public void added(String entityId, Counter.Add add, long count) {
    long now = System.nanoTime();
    Integer s = senderIndex.get(add.sender());
    Integer e = entityIndex.get(entityId);
    if (s == null || e == null || add.seq() < 1 || add.seq() > capacity) {
      return;
    }
    long sent = sentAt[s][(int) (add.seq() - 1) * entities + e];
    synchronized (this) {
      if (size == sends.length) {
        sends = Arrays.copyOf(sends, size * 2);
        latencies = Arrays.copyOf(latencies, size * 2);
      }
      sends[size] = sent;
      latencies[size] = now - sent;
      size++;
    }
  }

  /** Latency percentiles and maximum of the messages sent in a window. */
  record Window(long messages, double p50Ms, double p99Ms, double maxMs) {}

  /**
   * The messages sent in [{@code from}, {@code to}) (nanoTime), as they arrived so far.
   *
   * @throws IllegalStateException if no message sent in the window has arrived
   */
  synchronized Window window(long from, long to, String what) {
    double[] ms = new double[size];
    int n = 0;
    for (int i = 0; i < size; i++) {
      if (sends[i] >= from && sends[i] < to) {
        ms[n++] = latencies[i] / 1e6;
      }
    }
    if (n == 0) {
      throw new IllegalStateException("no message sent " + what + " arrived");
    }
    double[] in = Arrays.copyOf(ms, n);
    return new Window(n, Stats.percentile(in, 50), Stats.percentile(in, 99), Arrays.stream(in).max().getAsDouble());
  }
}
