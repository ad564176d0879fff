package dev.shardkit.sharding;

import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * A reference to one entity by id, wherever it lives. Cheap to create and to keep; it stays valid
 * when the entity moves, passivates or has not been created yet (its first message creates it).
 *
 * <p>Delivery is at most once, like any actor message; messages from one thread through one
 * {@code EntityRef} (or several for the same type on the same node) arrive in the order sent.
 *
 * @param <M> the entity's message type
 */
public interface EntityRef<M> {

  /** The entity's type. */
  EntityTypeKey<M> typeKey();

  /** The entity's id. */
  String entityId();

  /**
   * Sends a message to the entity, creating it if needed.
   *
   * @throws IllegalArgumentException if {@code message} is null
   */
  void tell(M message);

  /**
   * Sends a message built around a reply-to reference and completes with the entity's reply.
   *
   * @param messageFactory builds the message from the reply-to reference
   * @param timeout how long to wait for the reply
   * @return completes with the reply, or fails with {@link java.util.concurrent.TimeoutException}
   *     if none came in time
   */
  <R> CompletionStage<R> ask(Function<ActorRef<R>, M> messageFactory, Duration timeout);
}
