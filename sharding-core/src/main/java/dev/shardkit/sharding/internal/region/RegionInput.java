package dev.shardkit.sharding.internal.region;

import dev.shardkit.sharding.internal.delivery.DeliveryLink;
import dev.shardkit.sharding.internal.gate.GateKeeper;
import dev.shardkit.sharding.internal.membership.ClusterChange;
import dev.shardkit.sharding.internal.shard.ShardProtocol;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.Deliver;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.DeliveryBatch;
import dev.shardkit.sharding.internal.wire.ShardingProtocol;
import org.apache.pekko.actor.NoSerializationVerificationNeeded;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * What the {@link RegionMachine} is told: the region actor's messages and signals, as values. Those
 * the region tells itself (watched actors that terminated, timers) are these records as they are;
 * they never leave the node. A caller's message that the routing shortcut handed to the region
 * ({@link RegionHandle.ViaRegion}, its slow path) is an input as it is: no wrapper per message.
 */
sealed interface RegionInput extends NoSerializationVerificationNeeded permits
    RegionInput.Start,
    RegionInput.Envelope,
    RegionInput.FromRegion,
    RegionInput.Batch,
    RegionInput.Protocol,
    RegionInput.CoordinatorTerminated,
    RegionInput.RegionTerminated,
    RegionInput.InboundLinkGone,
    RegionInput.ShardStarted,
    RegionInput.ShardTerminated,
    RegionInput.LinkClosed,
    RegionInput.LinkFlushed,
    RegionInput.LinkConfirmed,
    RegionInput.Membership,
    RegionInput.Gate,
    RegionInput.EntitiesLive,
    RegionInput.GracefulShutdown,
    RegionInput.GetLocalState,
    RegionInput.QuietChecked,
    RegionInput.LinksIdle,
    RegionInput.TimerFired,
    RegionInput.HandlerFailed,
    RegionHandle.ViaRegion {

  /** The region starts: it registers, and its periodic timers begin. */
  record Start() implements RegionInput {}

  /** An envelope sent to the region (the extractor is applied in the machine). */
  record Envelope(Object envelope) implements RegionInput {}

  /** A {@link Deliver} sent to the region: by another region, or asked by an entity ref. */
  record FromRegion(Deliver deliver) implements RegionInput {}

  /**
   * A batch from another region's link.
   *
   * @param gateOpen this node's delivery gate was open as the batch arrived, read from the gate
   *     itself: the keeper's news of a close may still be queued behind the batch (at the thaw of a
   *     pause, behind everything that arrived during it), and a batch acknowledged then is forgotten
   *     by its sender though this node may have been downed meanwhile
   */
  record Batch(DeliveryBatch batch, boolean gateOpen) implements RegionInput {}

  /**
   * The coordinator's messages and the other regions': RegisterAck, ShardHome, ShardHomes,
   * ShardRefused, BeginHandOff, HandOffMarker, GetRegionStats; any other is ignored.
   */
  record Protocol(ShardingProtocol message) implements RegionInput {}

  /** A watched coordinator terminated. */
  record CoordinatorTerminated(ActorRef<Object> coordinator) implements RegionInput {}

  /** A watched region terminated. */
  record RegionTerminated(ActorRef<Object> region) implements RegionInput {}

  /** A watched link of another region, which sent here, has stopped. */
  record InboundLinkGone(ActorRef<Object> link) implements RegionInput {}

  /** The answer to {@link RegionEffect.StartShard}: the shard runs as {@code shard}. */
  record ShardStarted(String shardId, ActorRef<Object> shard) implements RegionInput {}

  /** A shard hosted here has stopped (after its entities). */
  record ShardTerminated(String shardId) implements RegionInput {}

  /** This region's link to a region that is gone has closed, handing back what did not reach it. */
  record LinkClosed(DeliveryLink.Closed closed) implements RegionInput {}

  /** This region's link to {@code destination} had everything acknowledged that it was given before a flush. */
  record LinkFlushed(ActorRef<Object> destination) implements RegionInput {}

  /** This region's link to {@code destination} had a batch sent after its probe acknowledged. */
  record LinkConfirmed(ActorRef<Object> destination) implements RegionInput {}

  /** A member or reachability change of the cluster. */
  record Membership(ClusterChange change) implements RegionInput {}

  /** This node's delivery gate closed, opened, or went down for good. */
  record Gate(GateKeeper.GateChanged change) implements RegionInput {}

  /** A shard's live entity count, for the active-entity limit. */
  record EntitiesLive(ShardProtocol.EntitiesLive live) implements RegionInput {}

  /** Hand off every shard and stop; {@code replyTo} hears when the region has stopped. */
  record GracefulShutdown(ActorRef<Object> replyTo) implements RegionInput {}

  /** Someone on this node asks for the region's state. */
  record GetLocalState(RegionRequests.GetLocalState get) implements RegionInput {}

  /** The answer to {@link RegionEffect.CheckQuiet}: whether no caller can still send by an older table. */
  record QuietChecked(long token, boolean quiet) implements RegionInput {}

  /** The answer to {@link RegionEffect.CheckLinksIdle}: whether no link holds a message, waiting or unacknowledged. */
  record LinksIdle(boolean idle) implements RegionInput {}

  /** The timer of {@code key} started as {@code generation} fired. */
  record TimerFired(RegionTimer key, long generation) implements RegionInput {}

  /**
   * Carrying out an effect for {@code failed} threw: the region drops that message and keeps
   * routing.
   */
  record HandlerFailed(Object failed, Exception cause) implements RegionInput {}
}
