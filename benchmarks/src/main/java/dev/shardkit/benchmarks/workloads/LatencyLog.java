package dev.shardkit.benchmarks.workloads;

import dev.shardkit.benchmarks.harness.Stats;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Message latency from send to entity receive, on one clock (every node of a run shares the JVM):
 * senders stamp each numbered message as they tell it, entities look the stamp up when they count
 * it. Latencies are kept with their send time, so that a window of the run (before a move, during
 * it) is judged by when its messages were sent, late arrivals included. Each arrival also keeps
 * which node counted it, so that the messages sent to a shard while it moved can be told apart
 * ({@link ObservedMoves}).
 */
final class LatencyLog {
  private final Map<String, Integer> senderIndex;
  private final Map<String, Integer> entityIndex;
  private final int entities;
  private final int capacity;
  private final long[][] sentAt;
  private long[] sends = new long[1 << 16];
  private long[] latencies = new long[1 << 16];
  // Who sent, to which entity, counted where: kept apart from the times so that the entity's hook
  // allocates nothing but the occasional doubling.
  private int[] routes = new int[1 << 16];
  private int size;

  /**
   * @param capacity how many rounds (messages per sender and entity) a run may send at most
   * @throws IllegalArgumentException if there is no sender, no entity or no capacity, or more than
   *     256 senders or 65 536 entities
   */
  LatencyLog(Map<String, Integer> senderIndex, Map<String, Integer> entityIndex, int capacity) {
    if (senderIndex.isEmpty() || entityIndex.isEmpty() || capacity < 1) {
      throw new IllegalArgumentException("a latency log needs senders, entities and a capacity, got "
          + senderIndex.size() + " senders, " + entityIndex.size() + " entities, capacity " + capacity);
    }
    if (senderIndex.size() > 256 || entityIndex.size() > 1 << 16) {
      throw new IllegalArgumentException("a latency log keeps at most 256 senders and 65 536 entities, got "
          + senderIndex.size() + " senders and " + entityIndex.size() + " entities");
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

  /**
   * Records that the entity {@code entityId} on node number {@code node} counted {@code add} now;
   * a message of an unknown sender or entity, or beyond the capacity, is ignored.
   *
   * @throws IllegalArgumentException if {@code node} is not between 0 and 255
   */
  void added(int node, String entityId, Counter.Add add) {
    long now = System.nanoTime();
    if (node < 0 || node > 255) {
      throw new IllegalArgumentException("a node number must be between 0 and 255, got " + node);
    }
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
        routes = Arrays.copyOf(routes, size * 2);
      }
      sends[size] = sent;
      routes[size] = route(s, e, node);
      latencies[size] = now - sent;
      size++;
    }
  }

  /** Sender (8 bits), node (8 bits) and entity (16 bits) of one arrival in one int. */
  private int route(int sender, int entity, int node) {
    return sender << 24 | node << 16 | entity;
  }

  /** Latency percentiles and maximum of the messages sent in a window. */
  record Window(long messages, double p50Ms, double p99Ms, double maxMs) {
    /** @throws IllegalStateException if there is no latency: the window says what it is in {@code what} */
    static Window of(double[] ms, String what) {
      if (ms.length == 0) {
        throw new IllegalStateException("no message sent " + what + " arrived");
      }
      return new Window(ms.length, Stats.percentile(ms, 50), Stats.percentile(ms, 99),
          Arrays.stream(ms).max().getAsDouble());
    }
  }

  /**
   * The shards' moves in a part of the run, and the latencies of the messages sent to them while
   * they moved; empty when no shard was seen moving then.
   */
  record Moving(int moves, Optional<Window> window) {}

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
    return Window.of(Arrays.copyOf(ms, n), what);
  }

  /**
   * The moves that ended in [{@code from}, {@code to}) (nanoTime; a move ends when its new home
   * counts its first message) and the latencies of the messages held by them, as
   * {@link ObservedMoves} tells them apart.
   */
  synchronized Moving moving(long from, long to) {
    List<ObservedMoves.Arrival> arrivals = new ArrayList<>(size);
    for (int i = 0; i < size; i++) {
      int r = routes[i];
      arrivals.add(new ObservedMoves.Arrival(sends[i], sends[i] + latencies[i], r >>> 24, r & 0xFFFF,
          (r >>> 16) & 0xFF));
    }
    List<ObservedMoves.Move> moves = ObservedMoves.of(arrivals).stream()
        .filter(m -> m.end() >= from && m.end() < to).toList();
    double[] ms = moves.stream().flatMap(m -> m.held().stream())
        .mapToDouble(a -> (a.received() - a.sent()) / 1e6).toArray();
    return new Moving(moves.size(),
        moves.isEmpty() ? Optional.empty() : Optional.of(Window.of(ms, "to a moving shard")));
  }
}
