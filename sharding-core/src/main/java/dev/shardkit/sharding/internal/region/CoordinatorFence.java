package dev.shardkit.sharding.internal.region;

import dev.shardkit.sharding.internal.wire.ShardingProtocol;

/**
 * Which coordinator a region acts on: the one it registered with, at that coordinator's term. A
 * deposed coordinator may still run for a while (its node is unreachable, or two coordinators ran
 * at once in a partition), and a message may be forged or replayed; acting on such a message
 * could start a second copy of a shard. Every coordinator incarnation has a term of its own,
 * greater than its predecessors' (see {@link dev.shardkit.sharding.spi.LoadedCoordinatorState}),
 * so the term names the coordinator: a region accepts an acknowledgement only at a term at least
 * its current one, and homes and hand-offs only at exactly its current one.
 *
 * <p>The term, and who had it, outlive the coordinator's termination, so that a region registering
 * again takes no acknowledgement from a coordinator older than the one it lost, nor from another
 * one at its term. {@link ShardingProtocol.RegisterAck#NO_TERM} is the exception: a shardkit that
 * sends no terms (during a rolling upgrade) fences nothing, so its coordinators are taken at it
 * whoever they are. Mutable state with no other side effect, owned by one region's machine; not
 * thread-safe.
 *
 * @param <C> how a coordinator is named (an actor ref in the region, anything in tests)
 */
final class CoordinatorFence<C> {

  /** What an acknowledgement does. */
  enum Ack {
    /** From a coordinator, or a term, the region had not registered with: it is current now. */
    NEW,
    /** From the current coordinator at its current term again. */
    SAME,
    /** At a lower term than the current one, or at the current term from another coordinator. */
    REFUSED
  }

  /** The term before any acknowledgement: every term is accepted then. */
  private static final long NONE = -1;

  /** The last coordinator that acknowledged; kept when it is lost. */
  private C coordinator;
  private boolean lost;
  private long term = NONE;
  private long refused;
  private long lastWarnedTerm = NONE;

  /**
   * A coordinator acknowledged the region's registration at {@code ackTerm}.
   *
   * @throws IllegalArgumentException if {@code by} is null
   */
  Ack acknowledged(C by, long ackTerm) {
    if (by == null) {
      throw new IllegalArgumentException("an acknowledgement must name its coordinator");
    }
    boolean sameCoordinator = by.equals(coordinator);
    if (ackTerm < term || (ackTerm == term && !sameCoordinator && term != ShardingProtocol.RegisterAck.NO_TERM)) {
      refused++;
      return Ack.REFUSED;
    }
    if (ackTerm == term && sameCoordinator && !lost) {
      return Ack.SAME;
    }
    coordinator = by;
    term = ackTerm;
    lost = false;
    return Ack.NEW;
  }

  /**
   * Whether the region acts on a home or hand-off at {@code messageTerm}: only while registered,
   * and only at the current coordinator's term. A refusal is counted.
   */
  boolean actsOn(long messageTerm) {
    if (coordinator != null && !lost && messageTerm == term) {
      return true;
    }
    refused++;
    return false;
  }

  /** The current coordinator is gone: nothing is acted on until one acknowledges, at this term or above. */
  void lost() {
    lost = true;
  }

  /** The coordinator acted on; null before the first acknowledgement and after {@link #lost()}. */
  C coordinator() {
    return lost ? null : coordinator;
  }

  /** The current term; -1 before the first acknowledgement. */
  long term() {
    return term;
  }

  /** How many acknowledgements, homes and hand-offs were refused. */
  long refused() {
    return refused;
  }

  /**
   * Whether a refusal at {@code refusedTerm} should be logged: the first one at each term is, so
   * that a deposed coordinator's stream of messages gives one warning, not one per message.
   */
  boolean firstRefusalAt(long refusedTerm) {
    if (refusedTerm == lastWarnedTerm) {
      return false;
    }
    lastWarnedTerm = refusedTerm;
    return true;
  }
}
