package dev.shardkit.sharding.internal.shard;

import dev.shardkit.sharding.internal.InternalApi;
import java.util.List;
import java.util.Set;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * What a shard's machine ({@link ShardMachine}) is given, one at a time: what the shard actor
 * receives (deliveries, requests of its region and its entities, its entities' ends, its store's
 * answers, its timers) and the synchronous replies to the effects that need one
 * ({@link ShardEffect.StartEntity} is answered by {@link EntityStarted}, {@link EntityStartRefused}
 * or {@link EntityCreationFailed} before anything else).
 *
 * <p>Internal API: public for shardkit's simulation tests; not for applications, and it may change
 * in any release.
 *
 * @param <E> what an entity's incarnation is
 */
@InternalApi
public sealed interface ShardInput<E> {

  /** The shard starts: its first input, and only once. */
  record Start<E>() implements ShardInput<E> {}

  /**
   * A message for an entity. One for an active entity takes the fast lane
   * ({@link ShardMachine#activeFor}) instead, where it can.
   */
  record Deliver<E>(String entityId, Object message) implements ShardInput<E> {}

  /** An entity asks to be passivated. */
  record Passivate<E>(E entity) implements ShardInput<E> {}

  /** Reply to {@link ShardEffect.StartEntity}: the incarnation runs and has its messages. */
  record EntityStarted<E>(String entityId, E entity) implements ShardInput<E> {}

  /**
   * Reply to {@link ShardEffect.StartEntity}: the node's delivery gate is closed, nothing started;
   * the messages come back.
   */
  record EntityStartRefused<E>(String entityId, List<Object> messages) implements ShardInput<E> {}

  /**
   * Reply to {@link ShardEffect.StartEntity}: the entity's behavior could not be created; the
   * messages come back.
   */
  record EntityCreationFailed<E>(String entityId, List<Object> messages, Throwable cause)
      implements ShardInput<E> {}

  /** An entity's incarnation ended; {@code failed} if by an exception, then {@code cause}. */
  record EntityTerminated<E>(E entity, boolean failed, Throwable cause) implements ShardInput<E> {}

  /** The remember-entities store was read ({@link ShardEffect.RememberLoad}). */
  record RememberLoaded<E>(long readId, Set<String> entityIds) implements ShardInput<E> {}

  /** Reading the remember-entities store failed. */
  record RememberLoadFailed<E>(long readId, Throwable cause) implements ShardInput<E> {}

  /** A write to the remember-entities store is durable ({@link ShardEffect.RememberUpdate}). */
  record RememberWritten<E>(long batchId) implements ShardInput<E> {}

  /** A write to the remember-entities store failed. */
  record RememberWriteFailed<E>(long batchId, Throwable cause) implements ShardInput<E> {}

  /**
   * A read or write of the remember-entities store did not go out: the node's delivery gate is
   * closed ({@link ShardPorts#rememberLoad}, {@link ShardPorts#rememberUpdate}).
   */
  record RememberRefused<E>(long requestId) implements ShardInput<E> {}

  /** The node's delivery gate opened (after {@link ShardEffect.ParkOnGate}). */
  record GateOpened<E>() implements ShardInput<E> {}

  /** The region hands the shard off: stop every entity, then the shard. */
  record HandOff<E>() implements ShardInput<E> {}

  /** The region gave the hand-off up: keep running. */
  record CancelHandOff<E>() implements ShardInput<E> {}

  /** The region's new share of its active-entity limit for this shard. */
  record EntityLimit<E>(int limit) implements ShardInput<E> {}

  /** Asks for the shard's live entities, answered with {@link ShardEffect.ReplySnapshot}. */
  record GetShardState<E>(ActorRef<Object> replyTo) implements ShardInput<E> {}

  /** A timer started by {@link ShardEffect.StartTimer} fired. */
  record TimerFired<E>(ShardTimer key, long generation) implements ShardInput<E> {}
}
