package dev.shardkit.sharding.internal.coordinator;

import dev.shardkit.sharding.CoordinatorBacklog;
import dev.shardkit.sharding.internal.InternalApi;
import dev.shardkit.sharding.internal.membership.ClusterChange;
import dev.shardkit.sharding.internal.wire.ShardingProtocol;
import dev.shardkit.sharding.spi.LoadedCoordinatorState;
import java.util.Set;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.NoSerializationVerificationNeeded;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * What the {@link CoordinatorMachine} is given: Pekko's messages and signals, and its stores'
 * answers, as values. A store's answer names the call it answers ({@code attempt}, {@code writeId},
 * {@code readId}), so one meant for an earlier incarnation is known as such. Local only.
 */
@InternalApi
public sealed interface CoordinatorInput extends NoSerializationVerificationNeeded {

  /** The incarnation begins: it loads its state. */
  record Start() implements CoordinatorInput {}

  /** The store loaded the state. */
  record Loaded(long attempt, LoadedCoordinatorState loaded) implements CoordinatorInput {}

  /** The store could not load the state. */
  record LoadFailed(long attempt, Throwable cause) implements CoordinatorInput {}

  /** A write is stored. */
  record Stored(long writeId) implements CoordinatorInput {}

  /** A write failed (refused as superseded, or not done). */
  record StoreFailed(long writeId, Throwable cause) implements CoordinatorInput {}

  /** The shards that may have remembered entities were read. */
  record RememberedShardsRead(long readId, Set<String> shardIds) implements CoordinatorInput {}

  /** The shards that may have remembered entities could not be read. */
  record RememberedShardsFailed(long readId, Throwable cause) implements CoordinatorInput {}

  /**
   * A region's or proxy's message: {@code Register}, {@code RegisterProxy}, {@code GetShardHome},
   * {@code ShardStopped}, {@code HandOffDeclined}, {@code GracefulShutdownReq},
   * {@code GetCurrentRegions}.
   */
  record Protocol(ShardingProtocol message) implements CoordinatorInput {}

  /** A watched region or proxy terminated. */
  record Terminated(ActorRef<Object> ref) implements CoordinatorInput {}

  /** A node answered the announcement: whether it runs a region of the type. */
  record NodeIdentified(Address node, boolean hasRegion) implements CoordinatorInput {}

  /** The cluster's membership changed. */
  record Membership(ClusterChange change) implements CoordinatorInput {}

  /** A timer fired, with the generation it was started with. */
  record TimerFired(CoordinatorTimer key, long generation) implements CoordinatorInput {}

  /** What waits in memory is asked for. */
  record GetBacklog(ActorRef<CoordinatorBacklog> replyTo) implements CoordinatorInput {}

  /**
   * This node's delivery gate is open: other members confirmed since its last pause that they
   * count it as a reachable member. Asked for by {@link CoordinatorEffect.AwaitGate}.
   */
  record GateOpened() implements CoordinatorInput {}

  /** The singleton hands over (or its lease is lost): the coordinator stops. */
  record Stop() implements CoordinatorInput {}
}
