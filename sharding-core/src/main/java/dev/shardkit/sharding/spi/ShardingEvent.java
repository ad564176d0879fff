package dev.shardkit.sharding.spi;

import java.time.Duration;
import java.util.List;
import org.apache.pekko.actor.Address;
import org.jspecify.annotations.Nullable;

/**
 * Something sharding's control plane did on one node, as a value a {@link ShardingTelemetry}
 * binding receives: one record per kind, to switch over. Every event names the node that reports
 * it ({@link #node()}, the address of its actor system); events about one entity type also name
 * it ({@link Typed#typeName()}). Events are emitted after the fact they report (a placement once
 * the state store holds it, a hand-off once the shard has stopped), on the reporting node only: a
 * rebalance is reported by the coordinator's node, the hand-off of each shard by the node that
 * hosted it.
 */
public sealed interface ShardingEvent {

  /** The node that reports it: the address of its actor system. */
  Address node();

  /** An event about one entity type. */
  sealed interface Typed extends ShardingEvent {
    /** The entity type's name ({@code EntityTypeKey.name()}). */
    String typeName();
  }

  // ---- the coordinator

  /**
   * A coordinator started on this node (the oldest member that hosts the type), before it loads
   * its state.
   *
   * @param store what keeps its state (the state store's description)
   * @param allocation the allocation strategy
   */
  record CoordinatorStarted(Address node, String typeName, String store, String allocation) implements Typed {}

  /**
   * The coordinator loaded its state and acts from now on at {@code term}, a number each store
   * raises with every coordinator that loads (a new term after a move or a restart).
   *
   * @param regions the regions in the state loaded
   * @param shards the shards with a home in it
   * @param forgotten regions and proxies it forgets because their nodes left the cluster
   */
  record CoordinatorLoaded(Address node, String typeName, long term, int regions, int shards, int forgotten)
      implements Typed {}

  /**
   * The coordinator's handler threw: it starts again after {@code restartIn} and loads its state
   * again (a new {@link CoordinatorLoaded}, with a new term).
   *
   * @param failure the exception's class and message
   */
  record CoordinatorFailed(Address node, String typeName, String failure, Duration restartIn) implements Typed {}

  /**
   * The state store refused the coordinator's write because another coordinator loaded after it:
   * it stops acting at {@code term} and loads again.
   */
  record CoordinatorSuperseded(Address node, String typeName, long term) implements Typed {}

  /**
   * One write to the coordinator's state store ended, stored or failed (a failed write is retried
   * after a back-off; a write refused as superseded is reported by {@link CoordinatorSuperseded}
   * instead).
   *
   * @param changes the changes the write carried (placements, registrations, ...)
   * @param latency from the write's start to the coordinator handling its answer
   * @param failure null if stored; otherwise the exception's class and message
   */
  record CoordinatorStoreWrite(Address node, String typeName, int changes, Duration latency,
      @Nullable String failure)
      implements Typed {}

  /**
   * A shard got a home: the coordinator's state store holds it. Emitted for shards placed on
   * demand, up front, after a hand-off and after their region left.
   *
   * @param region the path of the region that hosts it now
   */
  record ShardPlaced(Address node, String typeName, String shardId, String region) implements Typed {}

  /** Why a rebalance round moves a shard. */
  enum MoveReason {
    /** The allocation strategy chose it to even out the shards per region. */
    STRATEGY,
    /** Its region is shutting down gracefully and hands off all of its shards. */
    REGION_SHUTTING_DOWN
  }

  /**
   * One shard a rebalance round moves.
   *
   * @param from the path of the region it leaves
   */
  record Move(String shardId, String from, MoveReason reason) {}

  /**
   * The coordinator began moving shards by hand-off; each move's hand-off follows as
   * {@link HandOffStarted} and {@link HandOffFinished} on the node that hosted the shard.
   */
  record RebalanceRound(Address node, String typeName, List<Move> moves) implements Typed {}

  /**
   * The coordinator gave up a hand-off: the shard's region did not confirm that it stopped within
   * the hand-off timeout; the shard stays where it was.
   *
   * @param region the path of the region that did not answer
   */
  record HandOffGivenUp(Address node, String typeName, String shardId, String region, Duration timeout)
      implements Typed {}

  // ---- regions

  /** A shard hosted on this node begins its hand-off: its routes close, then its entities stop. */
  record HandOffStarted(Address node, String typeName, String shardId) implements Typed {}

  /**
   * A shard hosted on this node finished its hand-off: its entities stopped and the coordinator
   * is told.
   *
   * @param duration since its {@link HandOffStarted}
   * @param held messages for the shard this node's region holds now, until the shard's next home
   *     is known
   */
  record HandOffFinished(Address node, String typeName, String shardId, Duration duration, int held)
      implements Typed {}

  /**
   * The region learned a home for a shard it held messages for, and sends them there now (after
   * a hand-off, a first placement, or while its coordinator moved).
   *
   * @param messages how many it held
   */
  record HeldReleased(Address node, String typeName, String shardId, int messages) implements Typed {}

  /**
   * The region was told the homes the coordinator placed up front (at registration, or when it
   * placed them).
   *
   * @param region the region's path
   * @param told homes in the message
   * @param learned of these, homes in other regions it did not know yet
   * @param placedHere of these, homes in this region
   */
  record HomesTold(Address node, String typeName, String region, int told, long term, int learned, int placedHere)
      implements Typed {}

  /** The region shut down gracefully: every shard it hosted was handed off. */
  record RegionShutDown(Address node, String typeName) implements Typed {}

  /**
   * A message was dropped to dead letters (reported once per dropped message, as the dead letter
   * is; the log warns at most once per interval).
   *
   * @param reason why, as the dead letter says it
   */
  record MessageDropped(Address node, String typeName, String reason) implements Typed {}

  // ---- the node

  /**
   * This node's delivery gate closed: its entities process nothing until the other members
   * confirm that it is still a member.
   *
   * @param reason why, as the warning says it
   */
  record GateClosed(Address node, String reason) implements ShardingEvent {}

  /**
   * This node's delivery gate opened again.
   *
   * @param confirmations the members that confirmed it
   * @param closedFor how long it was closed
   */
  record GateOpened(Address node, int confirmations, Duration closedFor) implements ShardingEvent {}

  /** Why a link sends batches again. */
  enum ResendReason {
    /** They were not acknowledged within the resend timeout. */
    TIMEOUT,
    /** The receiver found a gap and asked for them. */
    RECEIVER_ASKED,
    /** The destination's node became reachable again. */
    REACHABLE_AGAIN
  }

  /**
   * A link from this node to a region on another node sent unacknowledged batches again.
   *
   * @param destination the path of the region it delivers to
   */
  record LinkResent(Address node, String destination, int batches, ResendReason reason) implements ShardingEvent {}
}
