package dev.shardkit.sharding.internal.region;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The owner's side of moving shards away from a region: for each shard being handed off, which
 * routes to it are still open. The shard is told to stop its entities only once nothing more can
 * reach it: every other region's {@code HandOffMarker} is in (or that region is gone), and the
 * owner's own route is closed (no caller on its node can still send by the routing shortcut).
 * Its termination then completes the move, which the owner reports to the coordinator.
 *
 * <p>Each move of a shard has an id, so a marker of an earlier move that was given up never counts
 * for a later one. A marker may arrive before the coordinator's {@code BeginHandOff} (they travel
 * different ways: region → owner, coordinator → owner); it is kept and counts when its move begins.
 * Such a marker is forgotten when another move of the shard begins here (its own move was
 * superseded), and otherwise at the second {@link #sweepEarly()} after it came: swept once per
 * hand-off timeout, a kept marker older than that belongs to a move the coordinator has given up
 * (it started the move's clock before the marker was sent), whose {@code BeginHandOff} may never
 * come here, or came and was cancelled before the marker arrived. So abandoned moves leave nothing
 * behind for longer than two hand-off timeouts.
 *
 * <p>Each move goes through explicit phases: the own route open, then closed, then the shard
 * stopping. Mutable state with no other side effect, owned by the region's machine; not
 * thread-safe.
 *
 * @param <R> what identifies a region
 * @param <S> a shard's actor
 */
final class OwnerHandOffs<R, S> {

  /** What the owner must do for a move. */
  sealed interface Step<S> {
    String shardId();
  }

  /** Every route is closed: tell the shard to stop its entities; its termination ends the move. */
  record StopShard<S>(String shardId, S shard) implements Step<S> {}

  /**
   * The move of the shard is complete (its shard has terminated, or none ran here): report it to
   * the coordinator. The move is forgotten.
   */
  record Stopped<S>(String shardId, int handOffId) implements Step<S> {}

  /** A move the coordinator gave up: the shard stays, and {@code shard} (if it runs here) takes messages again. */
  record Cancelled<S>(Optional<S> shard, boolean stopping) {}

  private enum Phase {
    /** Callers on this node may still be sending by the shortcut; markers are being collected. */
    OWN_ROUTE_OPEN,
    /** Only other regions' markers are awaited. */
    OWN_ROUTE_CLOSED,
    /** The shard was told to stop; its termination is awaited. */
    STOPPING
  }

  private static final class Move<R, S> {
    /** The shard's actor; null while none runs here. */
    S shard;
    /**
     * Started here for messages that came before the markers while no shard ran here: the move
     * waits for it to run, then stops it like a shard that ran all along.
     */
    boolean starting;
    final int id;
    final Set<R> awaiting;
    /** The move of a shard that never started here, which a message for it before it completes declines. */
    final boolean ifUnstarted;
    Phase phase = Phase.OWN_ROUTE_OPEN;

    Move(S shard, int id, Set<R> awaiting, boolean ifUnstarted) {
      this.shard = shard;
      this.id = id;
      this.awaiting = awaiting;
      this.ifUnstarted = ifUnstarted;
    }
  }

  private record MoveKey(String shardId, int handOffId) {}

  private final Map<String, Move<R, S>> moves = new HashMap<>();
  /** Markers that came before their move began, by move. */
  private final Map<MoveKey, Set<R>> early = new HashMap<>();
  /** The moves whose early markers were kept already at the last sweep: the next one forgets them. */
  private Set<MoveKey> earlyAtLastSweep = Set.of();

  /**
   * The coordinator began move {@code handOffId} of a shard hosted by {@code self}.
   *
   * @param shard the shard's actor, or null when it does not run here (then the move completes
   *     as soon as every route is closed)
   * @param regions every region the coordinator told of the move; {@code self} among them is ignored
   * @return the regions whose markers are still awaited (one that terminates counts as having sent it)
   * @throws IllegalStateException if a move of the shard is in progress already
   */
  Set<R> begin(String shardId, int handOffId, @Nullable S shard, Set<R> regions, R self) {
    return begin(shardId, handOffId, shard, regions, self, false);
  }

  /**
   * As {@link #begin(String, int, Object, Set, Object)}; with {@code ifUnstarted} (and no shard
   * running here) it is a move that a message for the shard before it completes declines
   * ({@link #declinable}).
   *
   * @throws IllegalArgumentException if {@code ifUnstarted} and the shard runs here (the owner
   *     declines such a move at once instead of beginning it)
   */
  Set<R> begin(String shardId, int handOffId, S shard, Set<R> regions, R self, boolean ifUnstarted) {
    if (ifUnstarted && shard != null) {
      throw new IllegalArgumentException("shard [" + shardId + "] runs here: a move if unstarted is declined, not begun");
    }
    if (moves.containsKey(shardId)) {
      throw new IllegalStateException("shard [" + shardId + "] is being handed off already");
    }
    Set<R> awaiting = new HashSet<>(regions);
    awaiting.remove(self);
    awaiting.removeAll(early.getOrDefault(new MoveKey(shardId, handOffId), Set.of()));
    // Early markers of other moves of this shard belong to moves that will never begin here.
    early.keySet().removeIf(k -> k.shardId().equals(shardId));
    moves.put(shardId, new Move<>(shard, handOffId, awaiting, ifUnstarted));
    return Set.copyOf(awaiting);
  }

  /**
   * No caller on this node can send to the shard by the shortcut any more.
   *
   * @return what to do now; empty if markers are still awaited, or if move {@code handOffId} is
   *     no longer in progress (it was given up meanwhile)
   */
  Optional<Step<S>> ownRouteClosed(String shardId, int handOffId) {
    Move<R, S> move = moves.get(shardId);
    if (move == null || move.id != handOffId || move.phase != Phase.OWN_ROUTE_OPEN) {
      return Optional.empty();
    }
    move.phase = Phase.OWN_ROUTE_CLOSED;
    return stepIfAllClosed(shardId, move);
  }

  /**
   * {@code region} sent its marker for move {@code handOffId}: it sends nothing more to the shard.
   *
   * @return what to do now; empty if other routes are still open, or the marker counts for nothing
   *     yet (it came first and is kept) or any more (its move was given up)
   */
  Optional<Step<S>> marker(String shardId, int handOffId, R region) {
    Move<R, S> move = moves.get(shardId);
    if (move == null) {
      early.computeIfAbsent(new MoveKey(shardId, handOffId), k -> new HashSet<>()).add(region);
      return Optional.empty();
    }
    if (move.id != handOffId || !move.awaiting.remove(region)) {
      return Optional.empty();
    }
    return stepIfAllClosed(shardId, move);
  }

  /**
   * Forgets the early markers that were kept already at the previous sweep. Called once per
   * hand-off timeout, so a marker is kept at least that long and less than twice that.
   *
   * @return how many moves' early markers were forgotten
   */
  int sweepEarly() {
    int before = early.size();
    early.keySet().removeAll(earlyAtLastSweep);
    earlyAtLastSweep = Set.copyOf(early.keySet());
    return before - early.size();
  }

  /** How many moves that have not begun here have markers kept. */
  int earlyMoves() {
    return early.size();
  }

  /** {@code region} terminated: it sends nothing more, to any shard. @return what to do now, per move */
  List<Step<S>> regionGone(R region) {
    List<Step<S>> steps = new ArrayList<>();
    for (Map.Entry<String, Move<R, S>> e : List.copyOf(moves.entrySet())) {
      if (e.getValue().awaiting.remove(region)) {
        stepIfAllClosed(e.getKey(), e.getValue()).ifPresent(steps::add);
      }
    }
    return steps;
  }

  /**
   * The shard's actor terminated.
   *
   * @return the completed move, if it stopped because it was told to; empty if it was not being
   *     handed off, or stopped before every route was closed (then it stopped unexpectedly)
   */
  Optional<Stopped<S>> shardTerminated(String shardId) {
    Move<R, S> move = moves.get(shardId);
    if (move == null || move.phase != Phase.STOPPING) {
      return Optional.empty();
    }
    moves.remove(shardId);
    return Optional.of(new Stopped<>(shardId, move.id));
  }

  /**
   * The coordinator gave the move up: the shard stays. If it was already told to stop, it must be
   * told to go on ({@link Cancelled#stopping}).
   *
   * @throws IllegalStateException if the shard is not being handed off
   */
  Cancelled<S> cancel(String shardId) {
    Move<R, S> move = moves.remove(shardId);
    if (move == null) {
      throw new IllegalStateException("shard [" + shardId + "] is not being handed off");
    }
    return new Cancelled<>(Optional.ofNullable(move.shard), move.phase == Phase.STOPPING);
  }

  /**
   * Messages for a shard being handed off came before the markers (from another region, whose
   * marker is behind them, or held here when the move began) while no shard runs here. They
   * belong to an incarnation here, not to the next home: forwarded there, they could arrive after
   * newer messages their senders send there once they learn the new home. So the shard starts
   * here for them, and the move waits for it ({@link #started}). Not for a move if unstarted,
   * which such a message declines instead ({@link #declinable}).
   *
   * @return true if the shard is to be started now for the move; false if it runs or starts
   *     already, is stopping, or no such move is in progress
   */
  boolean startFor(String shardId) {
    Move<R, S> move = moves.get(shardId);
    if (move == null || move.ifUnstarted || move.shard != null || move.starting || move.phase == Phase.STOPPING) {
      return false;
    }
    move.starting = true;
    return true;
  }

  /** Whether the move of {@code shardId} waits for the shard started here for it ({@link #startFor}). */
  boolean awaitsStart(String shardId) {
    Move<R, S> move = moves.get(shardId);
    return move != null && move.starting;
  }

  /**
   * The shard started for the move ({@link #startFor}) runs: it takes what came before the
   * markers, and is told to stop once every route is closed.
   *
   * @return what to do now: {@link StopShard} if every route closed already
   * @throws IllegalStateException if the move does not await a start
   */
  Optional<Step<S>> started(String shardId, S shard) {
    Move<R, S> move = moves.get(shardId);
    if (move == null || !move.starting) {
      throw new IllegalStateException("no move of shard [" + shardId + "] awaits its start");
    }
    move.starting = false;
    move.shard = shard;
    return stepIfAllClosed(shardId, move);
  }

  /**
   * The shard's actor while it is being handed off and has not been told to stop: a message from
   * a region whose marker has not come yet was sent before that region stopped routing here, so
   * it belongs to this incarnation.
   */
  Optional<S> stillRunning(String shardId) {
    Move<R, S> move = moves.get(shardId);
    return move == null || move.phase == Phase.STOPPING ? Optional.empty() : Optional.ofNullable(move.shard);
  }

  /**
   * The id of the move if unstarted of the shard in progress: a message for the shard has come
   * before every route closed, so the owner starts the shard for it and declines the move
   * ({@link #cancel} it). Empty if there is no such move.
   */
  OptionalInt declinable(String shardId) {
    Move<R, S> move = moves.get(shardId);
    return move != null && move.ifUnstarted ? OptionalInt.of(move.id) : OptionalInt.empty();
  }

  boolean isHandingOff(String shardId) {
    return moves.containsKey(shardId);
  }

  /** The shards being handed off: they still live here until their entities have stopped. */
  Set<String> shardIds() {
    return Set.copyOf(moves.keySet());
  }

  boolean isEmpty() {
    return moves.isEmpty();
  }

  private Optional<Step<S>> stepIfAllClosed(String shardId, Move<R, S> move) {
    if (move.phase != Phase.OWN_ROUTE_CLOSED || !move.awaiting.isEmpty() || move.starting) {
      return Optional.empty();
    }
    if (move.shard == null) {
      moves.remove(shardId);
      return Optional.of(new Stopped<>(shardId, move.id));
    }
    move.phase = Phase.STOPPING;
    return Optional.of(new StopShard<>(shardId, move.shard));
  }
}
