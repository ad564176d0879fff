package dev.shardkit.systemtest;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Everything the nodes' {@link Witness}es recorded, on one time line, and the checks of the freeze
 * and crash tests:
 * <ul>
 *   <li><b>overlap</b>: each incarnation that processed messages lives, as far as the witness can
 *       see, from its start to the last message it processed; two such intervals of one entity
 *       must not overlap (single writer);
 *   <li><b>order</b>: each sender's messages to one entity, taken in the order they were processed
 *       (by whichever incarnation), must carry rising sequence numbers;
 *   <li><b>loss</b>: every message a sender recorded as sent must have been processed.
 * </ul>
 */
final class WitnessLog {

  /** One incarnation of one entity: where, when it started, and when it processed its first and last message. */
  record Incarnation(int node, int number, long started, long first, long last, int processed) {}

  /** Two incarnations of one entity whose intervals overlap by {@code nanos}. */
  record Overlap(int entity, Incarnation earlier, Incarnation later, long nanos) {
    @Override
    public String toString() {
      return "entity " + entity + ": incarnation " + earlier.number() + " on node" + (earlier.node() + 1)
          + " processed until " + nanos / 1_000_000 + " ms after incarnation " + later.number() + " on node"
          + (later.node() + 1) + " started";
    }
  }

  /** A cluster event a node saw about another: one of {@code Witness.SAW_*}, and the other node's port. */
  record Saw(int node, long time, int event, int port) {}

  private record Processed(long time, int seq) {}

  private final int nodes;
  /** entity → (node, incarnation number) → incarnation being built. */
  private final Map<Integer, Map<Long, long[]>> incarnations = new HashMap<>();
  /** (entity, sender) → messages processed from that sender, in no particular order yet. */
  private final Map<Long, List<Processed>> processed = new HashMap<>();
  /** sender → entity → send times, by sequence number. */
  private final List<Map<Integer, List<Long>>> sent = new ArrayList<>();
  private final List<Saw> saw = new ArrayList<>();

  private WitnessLog(int nodes) {
    this.nodes = nodes;
    for (int i = 0; i < nodes; i++) {
      sent.add(new HashMap<>());
    }
  }

  /** Reads {@code node1.bin} … {@code node<n>.bin} from {@code dir}. */
  static WitnessLog read(Path dir, int nodes) throws IOException {
    WitnessLog log = new WitnessLog(nodes);
    for (int node = 0; node < nodes; node++) {
      Path file = dir.resolve("node" + (node + 1) + ".bin");
      if (Files.exists(file)) {
        log.readNode(node, file);
      }
    }
    return log;
  }

  private void readNode(int node, Path file) throws IOException {
    try (DataInputStream in = new DataInputStream(new BufferedInputStream(Files.newInputStream(file), 1 << 16))) {
      while (true) {
        byte kind;
        try {
          kind = in.readByte();
        } catch (EOFException e) {
          return;
        }
        long time;
        int entity;
        int incarnation;
        int sender;
        int seq;
        try {
          time = in.readLong();
          entity = in.readInt();
          incarnation = in.readInt();
          sender = in.readInt();
          seq = in.readInt();
        } catch (EOFException e) {
          return; // A record cut short by a kill.
        }
        switch (kind) {
          case Witness.STARTED -> incarnation(entity, node, incarnation)[0] = time;
          case Witness.PROCESSED -> {
            long[] inc = incarnation(entity, node, incarnation);
            inc[1] = inc[3] == 0 ? time : Math.min(inc[1], time);
            inc[2] = Math.max(inc[2], time);
            inc[3]++;
            processed.computeIfAbsent(key(entity, sender), k -> new ArrayList<>()).add(new Processed(time, seq));
          }
          case Witness.SENT -> {
            List<Long> times = sent.get(node).computeIfAbsent(entity, k -> new ArrayList<>());
            if (times.size() != seq) {
              throw new IOException(file + ": sender's sequence numbers for entity " + entity + " jump from "
                  + times.size() + " to " + seq);
            }
            times.add(time);
          }
          case Witness.SAW -> saw.add(new Saw(node, time, entity, seq));
          default -> throw new IOException(file + ": unknown record kind " + kind);
        }
      }
    }
  }

  /** [started, first processed, last processed, processed count]; started is MIN_VALUE until seen. */
  private long[] incarnation(int entity, int node, int number) {
    return incarnations.computeIfAbsent(entity, k -> new HashMap<>())
        .computeIfAbsent(((long) node << 32) | number, k -> new long[] {Long.MIN_VALUE, 0, 0, 0});
  }

  private static long key(int entity, int sender) {
    return ((long) entity << 32) | sender;
  }

  /** Every incarnation of {@code entity}, oldest start first. */
  List<Incarnation> incarnationsOf(int entity) {
    List<Incarnation> list = new ArrayList<>();
    incarnations.getOrDefault(entity, Map.of()).forEach((k, v) -> {
      // A start not seen (its record was lost with a killed node) counts from the first message.
      long started = v[0] == Long.MIN_VALUE ? v[1] : v[0];
      list.add(new Incarnation((int) (k >>> 32), (int) (long) k, started, v[1], v[2], (int) v[3]));
    });
    list.sort(Comparator.comparingLong(Incarnation::started));
    return list;
  }

  /**
   * Pairs of incarnations of one entity whose intervals, from start to last processed message,
   * overlap. Incarnations that processed nothing are left out: a start that the node's freeze
   * delayed, with every message held, made no second writer.
   */
  List<Overlap> overlaps() {
    List<Overlap> found = new ArrayList<>();
    for (int entity : incarnations.keySet()) {
      List<Incarnation> list = incarnationsOf(entity).stream().filter(i -> i.processed() > 0).toList();
      for (int i = 0; i < list.size(); i++) {
        for (int j = i + 1; j < list.size(); j++) {
          Incarnation a = list.get(i);
          Incarnation b = list.get(j);
          if (a.last() >= b.started()) {
            found.add(new Overlap(entity, a, b, Math.min(a.last(), b.last()) - b.started()));
          }
        }
      }
    }
    found.sort(Comparator.comparingLong(Overlap::nanos).reversed());
    return found;
  }

  /**
   * Entities that had an incarnation on {@code node} processing before {@code from}, and a new
   * incarnation on another node that started between {@code from} and {@code to}: moved while the
   * node was frozen.
   */
  long movedAway(int node, long from, long to) {
    long moved = 0;
    for (int entity : incarnations.keySet()) {
      List<Incarnation> list = incarnationsOf(entity);
      boolean wasThere = list.stream().anyMatch(i -> i.node() == node && i.processed() > 0 && i.first() < from);
      boolean startedElsewhere = list.stream()
          .anyMatch(i -> i.node() != node && i.started() >= from && i.started() <= to);
      if (wasThere && startedElsewhere) {
        moved++;
      }
    }
    return moved;
  }

  /**
   * Asserts the single-writer and order checks: no two incarnations of an entity processed at the
   * same time, no sender's message processed out of order or twice.
   *
   * @return a one-line summary, for the test's output
   */
  String assertSingleWriterInOrder(String context) {
    return assertSingleWriterInOrder(context, false);
  }

  /**
   * The same, but with {@code repeatsAllowed} a message may be processed a second time (delivery
   * at least once: a crashed node processed it, and its acknowledgement was lost with the node);
   * the repeat must not be out of order for what is processed after it.
   */
  String assertSingleWriterInOrder(String context, boolean repeatsAllowed) {
    List<Overlap> overlaps = overlaps();
    long reordered = reordered();
    long duplicates = duplicates();
    String summary = context + ": " + incarnations.size() + " entities, " + entities(overlaps)
        + " with overlapping incarnations" + (overlaps.isEmpty() ? "" : " (longest " + overlaps.get(0).nanos() / 1_000_000
        + " ms)") + ", " + reordered + " messages reordered, " + duplicates + " processed twice";
    org.junit.jupiter.api.Assertions.assertEquals(List.of(), overlaps.stream().limit(10).map(Overlap::toString).toList(),
        "two incarnations of one entity processed messages at the same time: " + summary);
    org.junit.jupiter.api.Assertions.assertEquals(0, reordered, "messages processed out of order: " + summary);
    if (!repeatsAllowed) {
      org.junit.jupiter.api.Assertions.assertEquals(0, duplicates, "messages processed twice: " + summary);
    }
    return summary;
  }

  /** Entities with at least one overlap. */
  static long entities(List<Overlap> overlaps) {
    return overlaps.stream().mapToInt(Overlap::entity).distinct().count();
  }

  /**
   * Messages processed after a message with a higher sequence number from the same sender to the
   * same entity; repeats count separately, in {@link #duplicates}.
   */
  long reordered() {
    return orderCheck()[0];
  }

  /** Messages processed a second time. */
  long duplicates() {
    return orderCheck()[1];
  }

  private long[] orderCheck() {
    long reordered = 0;
    long duplicates = 0;
    for (List<Processed> list : processed.values()) {
      List<Processed> byTime = new ArrayList<>(list);
      byTime.sort(Comparator.comparingLong(Processed::time));
      BitSet seen = new BitSet();
      int max = -1;
      for (Processed p : byTime) {
        if (seen.get(p.seq())) {
          duplicates++;
        } else if (p.seq() < max) {
          reordered++;
        }
        seen.set(p.seq());
        max = Math.max(max, p.seq());
      }
    }
    return new long[] {reordered, duplicates};
  }

  /** Decides whether a lost message is excused: it gets the sender and the send time. */
  interface Excuse {
    boolean excused(int sender, long sentAt);
  }

  /** How many of {@code sender}'s messages were never processed: all of them, and those not excused. */
  long[] lost(int sender, Excuse excuse) {
    long lost = 0;
    long unexcused = 0;
    for (Map.Entry<Integer, List<Long>> e : sent.get(sender).entrySet()) {
      BitSet done = new BitSet();
      for (Processed p : processed.getOrDefault(key(e.getKey(), sender), List.of())) {
        done.set(p.seq());
      }
      List<Long> times = e.getValue();
      for (int seq = 0; seq < times.size(); seq++) {
        if (!done.get(seq)) {
          lost++;
          if (!excuse.excused(sender, times.get(seq))) {
            unexcused++;
          }
        }
      }
    }
    return new long[] {lost, unexcused};
  }

  long sentBy(int sender) {
    return sent.get(sender).values().stream().mapToLong(List::size).sum();
  }

  /** When {@code node} first saw the node on {@code port} in {@code event} after {@code since}; -1 if never. */
  long firstSaw(int node, int event, int port, long since) {
    return saw.stream().filter(s -> s.node() == node && s.event() == event && s.port() == port && s.time() >= since)
        .mapToLong(Saw::time).min().orElse(-1);
  }

  int nodes() {
    return nodes;
  }
}
