package dev.shardkit.benchmarks.workloads;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Shard moves as seen from outside a sharding library, so that both libraries are judged by the
 * same rule: with one entity per shard, a shard moved whenever its entity's messages start being
 * counted by another node than the one that counted the previous ones.
 *
 * <p>The messages <em>sent to a moving shard</em> are, for each move, those the new home counted
 * that were sent before it counted its first one (they were held by the hand-off or were on their
 * way to the new home), and, from every sender, the first message the new home counted from it (a
 * sender's node may still have had to learn the new home, whenever it sent). Nothing here reads a
 * clock.
 */
final class ObservedMoves {
  private ObservedMoves() {}

  /**
   * One message as an entity counted it.
   *
   * @param sent nanoTime just before the tell
   * @param received nanoTime when the entity counted it (same clock)
   * @param sender the sending node's number
   * @param entity the entity's number (one per shard)
   * @param node the number of the node whose entity counted it
   */
  record Arrival(long sent, long received, int sender, int entity, int node) {}

  /**
   * One home change of one shard.
   *
   * @param begin the send time of the latest message the old home counted: the hand-off had not
   *     begun for the messages sent before it, so the move began after it
   * @param end when the new home counted its first message of the shard
   * @param held the messages sent to the shard while it moved, in the order the new home counted them
   */
  record Move(int entity, int from, int to, long begin, long end, List<Arrival> held) {}

  /**
   * Every home change in {@code arrivals} (any order), ordered by entity and then by time.
   *
   * @throws IllegalArgumentException if an arrival was counted before it was sent (the clock or the
   *     stamping is broken, and every latency with it)
   */
  static List<Move> of(List<Arrival> arrivals) {
    for (Arrival a : arrivals) {
      if (a.received() < a.sent()) {
        throw new IllegalArgumentException("a message was counted before it was sent: " + a);
      }
    }
    Map<Integer, List<Arrival>> byEntity = arrivals.stream()
        .collect(Collectors.groupingBy(Arrival::entity, TreeMap::new, Collectors.toList()));
    List<Move> moves = new ArrayList<>();
    for (List<Arrival> one : byEntity.values()) {
      List<Arrival> ordered = new ArrayList<>(one);
      ordered.sort(Comparator.comparingLong(Arrival::received));
      movesOfOneEntity(ordered, moves);
    }
    return moves;
  }

  /** {@code ordered} by receive time: runs of one node, each run after the first a move. */
  private static void movesOfOneEntity(List<Arrival> ordered, List<Move> into) {
    int runStart = 0;
    long latestSentAtOldHome = Long.MIN_VALUE;
    for (int i = 0; i <= ordered.size(); i++) {
      boolean runEnds = i == ordered.size() || ordered.get(i).node() != ordered.get(runStart).node();
      if (!runEnds) {
        continue;
      }
      if (runStart > 0) {
        into.add(move(ordered.get(runStart - 1).node(), ordered.subList(runStart, i), latestSentAtOldHome));
      }
      if (i < ordered.size()) {
        latestSentAtOldHome = ordered.subList(runStart, i).stream().mapToLong(Arrival::sent).max().getAsLong();
        runStart = i;
      }
    }
  }

  private static Move move(int from, List<Arrival> newRun, long begin) {
    Arrival first = newRun.get(0);
    long end = first.received();
    List<Arrival> held = new ArrayList<>();
    Set<Integer> sendersSeen = new HashSet<>();
    for (Arrival a : newRun) {
      boolean firstOfSender = sendersSeen.add(a.sender());
      if (a.sent() < end || firstOfSender) {
        held.add(a);
      }
    }
    return new Move(first.entity(), from, first.node(), begin, end, List.copyOf(held));
  }
}
