package dev.shardkit.sharding.spi;

import org.apache.pekko.actor.typed.ActorRef;

/**
 * A change to the coordinator's state. The coordinator stores each event through its
 * {@link CoordinatorStateStore} before it applies it with {@link CoordinatorState#applied}, so a
 * store that replays the events it stored rebuilds the same state.
 */
public sealed interface CoordinatorEvent {

  /** A region (a node that hosts shards) joined. */
  record RegionRegistered(ActorRef<Object> region) implements CoordinatorEvent {}

  /** A proxy-only region joined. */
  record ProxyRegistered(ActorRef<Object> proxy) implements CoordinatorEvent {}

  /** A region is gone; its shards have no home any more. */
  record RegionTerminated(ActorRef<Object> region) implements CoordinatorEvent {}

  /** A proxy is gone. */
  record ProxyTerminated(ActorRef<Object> proxy) implements CoordinatorEvent {}

  /** A shard got a home. */
  record ShardHomeAllocated(String shardId, ActorRef<Object> region) implements CoordinatorEvent {}

  /** A shard lost its home (it was handed off); it gets a new one when next needed. */
  record ShardHomeDeallocated(String shardId) implements CoordinatorEvent {}
}
