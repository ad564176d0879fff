package dev.shardkit.sharding;

import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.RecipientRef;
import org.apache.pekko.pattern.StatusReply;

/**
 * A reference to one entity by id, wherever it lives. Cheap to create and to keep; it stays valid
 * when the entity moves, passivates or has not been created yet (its first message creates it).
 *
 * <p>Delivery is at most once, like any actor message; messages from one thread through one
 * {@code EntityRef} (or several for the same type on the same node) arrive in the order sent.
 *
 * <p>It is a Pekko {@link RecipientRef}, so Pekko's typed APIs that take one accept it:
 * {@code AskPattern.ask(ref, replyTo -> message, timeout, scheduler)},
 * {@code AskPattern.askWithStatus}, and {@code ActorContext.ask} / {@code askWithStatus} from
 * inside an actor. Such an ask goes the way of {@link #tell}, and when it times out Pekko's
 * {@code TimeoutException} names this reference (its {@code toString()}: the entity's type and id).
 *
 * <p>Not for implementation by applications: shardkit's {@code EntityRef}s are those of
 * {@link ClusterSharding#entityRefFor} and, for tests, the testkit's {@code TestEntityRef}. Pekko's
 * asks need a reference that also implements Pekko internals, which these do; they refuse any
 * other {@code RecipientRef} with an {@code IllegalStateException}.
 *
 * @param <M> the entity's message type
 */
public interface EntityRef<M> extends RecipientRef<M> {

  /** The entity's type. */
  EntityTypeKey<M> typeKey();

  /** The entity's id. */
  String entityId();

  /**
   * Sends a message to the entity, creating it if needed.
   *
   * @throws IllegalArgumentException if {@code message} is null
   */
  @Override
  void tell(M message);

  /**
   * Sends a message built around a reply-to reference and completes with the entity's reply.
   * The message may have been processed even when the ask times out.
   *
   * @param messageFactory builds the message from the reply-to reference
   * @param timeout how long to wait for the reply; positive
   * @return completes with the reply, or fails with a {@link java.util.concurrent.TimeoutException}
   *     (Pekko's {@code AskTimeoutException}, as Pekko's sharding {@code EntityRef} fails) whose
   *     message names the entity's type and id, the message's class and the timeout, if none came
   *     in time (and at once, naming the entity, if the type's region on this node has stopped);
   *     fails with an {@link IllegalArgumentException} if {@code timeout} is not positive
   * @throws IllegalArgumentException if an argument is null, or the factory builds null
   */
  <R> CompletionStage<R> ask(Function<ActorRef<R>, M> messageFactory, Duration timeout);

  /**
   * Like {@link #ask}, for a protocol whose replies are Pekko {@link StatusReply}s, as Pekko's
   * {@code AskPattern.askWithStatus}: completes with the value of a
   * {@link StatusReply#success success} reply; fails with the exception of an
   * {@link StatusReply#error(String) error} reply (a {@link StatusReply.ErrorMessage} for an error
   * made from a text, the exception itself for one made from an exception); and times out as
   * {@link #ask} does.
   *
   * @param messageFactory builds the message from the reply-to reference
   * @param timeout how long to wait for the reply; positive
   * @return completes with the value of a successful reply, or fails with the error of an error
   *     reply, or as {@link #ask} fails
   * @throws IllegalArgumentException if an argument is null, or the factory builds null
   */
  <R> CompletionStage<R> askWithStatus(Function<ActorRef<StatusReply<R>>, M> messageFactory, Duration timeout);
}
