package dev.shardkit.sharding.internal.region;

import dev.shardkit.sharding.EntityRef;
import dev.shardkit.sharding.internal.util.Arguments;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.apache.pekko.actor.ActorRefProvider;
import org.apache.pekko.actor.ExtendedActorSystem;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.internal.InternalRecipientRef;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.pattern.AskTimeoutException;
import org.apache.pekko.pattern.StatusReply;
import scala.concurrent.Promise;
import scala.jdk.javaapi.FutureConverters;

/**
 * The base of shardkit's {@link EntityRef}s (the runtime's and the testkit's {@code TestEntityRef}):
 * what makes them references that Pekko's asks accept, and their own asks. It is the one class of
 * shardkit that implements a Pekko internal API, so that a Pekko upgrade has one place to check.
 *
 * <h2>The Pekko internal API used here</h2>
 *
 * <p>Pekko's asks ({@code javadsl.AskPattern.ask} and {@code askWithStatus}, the Scala
 * {@code AskPattern}, {@code ActorContext.ask} and {@code askWithStatus}) are declared for any
 * {@code RecipientRef}, but work only with one that also implements
 * {@link InternalRecipientRef} ({@code org.apache.pekko.actor.typed.internal}, marked
 * {@code @InternalApi}, package-private to Pekko in Scala and public in the bytecode); any other
 * fails with an {@code IllegalStateException} ("Only expect references to be RecipientRef,
 * ActorRefAdapter or ActorSystemAdapter"). Pekko's own sharding {@code EntityRef} implements it for
 * the same reason. The ask (Pekko 1.7's {@code scaladsl.AskPattern}):
 *
 * <ol>
 *   <li>calls {@link #isTerminated()}: if true, it fails at once with a {@code TimeoutException}
 *       ("Recipient[…] had already been terminated") and sends nothing;
 *   <li>creates its temporary reply-to actor with {@link #provider()}, named
 *       {@link #refPrefix()} followed by {@code $} and a counter (Pekko refuses a prefix with a
 *       {@code /});
 *   <li>builds the message with the caller's factory, notes the message's class for its timeout
 *       message, and sends it with {@link #tell}; on timeout it fails with a
 *       {@code TimeoutException} that names {@link #toString()}, the message class and the timeout.
 * </ol>
 *
 * <p><b>On a Pekko upgrade</b>, check that {@code InternalRecipientRef} still has exactly these
 * abstract methods ({@code provider}, {@code isTerminated}, and {@code tell} from
 * {@code RecipientRef}), that {@code refPrefix} still has a default, that the trait still keeps no
 * state (a Java class cannot run a Scala trait's initializer), and that the asks still use them as
 * listed. {@link #isTerminated()} also reads the same trait on the actor ref
 * {@link #terminatesWith()} gives (Pekko's typed refs implement it), which has no public
 * counterpart. {@code AbstractEntityRefTest} fails if any of this changes for the Pekko version of
 * shardkit's BOM: it checks the trait by reflection, and asks through a subclass of this class with
 * Pekko's Java {@code AskPattern} (which runs the Scala one) and {@code ActorContext.ask}: the
 * message goes by {@code tell}, the reply-to actor is named after {@code refPrefix}, a timeout
 * names the reference and the message's class, and an ask to a terminated one fails at once.
 *
 * <p>Internal API: public only for the testkit's {@code TestEntityRef}; not for applications, and
 * it may change in any release.
 *
 * @param <M> the entity's message type
 */
public abstract class AbstractEntityRef<M> implements EntityRef<M>, InternalRecipientRef<M> {
  private final ActorSystem<?> system;

  /**
   * @param system the actor system whose scheduler times asks out, and whose actor-ref provider
   *     creates their reply-to actors
   */
  protected AbstractEntityRef(ActorSystem<?> system) {
    this.system = system;
  }

  /**
   * The actor whose termination ends this reference: once it has terminated, an ask fails at once
   * instead of waiting out its timeout. Called once per ask.
   */
  protected abstract ActorRef<?> terminatesWith();

  /**
   * Sends the message {@code messageFactory} builds around a temporary reply-to reference with
   * {@link #tell}, and completes with the reply.
   *
   * @return completes with the reply; fails with Pekko's {@link AskTimeoutException} (a
   *     {@link TimeoutException}) naming this reference (the entity's type and id), the message's
   *     class and the timeout if no reply came in time, or at once if the entity's region (or
   *     probe) has stopped; fails with an {@link IllegalArgumentException} if {@code timeout} is
   *     not positive
   * @throws IllegalArgumentException if an argument is null, or the factory builds null
   */
  @Override
  public final <R> CompletionStage<R> ask(Function<ActorRef<R>, M> messageFactory, Duration timeout) {
    requireArguments("ask", messageFactory, timeout);
    Promise<R> answer = Promise.apply();
    askPekko(messageFactory, timeout).whenCompleteAsync((reply, failure) -> {
      if (failure != null) {
        answer.failure(askTimeout(failure));
      } else {
        answer.success(reply);
      }
    }, Runnable::run);
    return FutureConverters.asJava(answer.future());
  }

  /**
   * Like {@link #ask}, with the reply flattened as Pekko's {@code askWithStatus} does: the value of
   * a successful {@link StatusReply}, the exception of an error one.
   *
   * @return completes with the value of a successful reply; fails with the exception of an error
   *     reply ({@link StatusReply.ErrorMessage} for an error made from a text), or as {@link #ask}
   *     fails
   * @throws IllegalArgumentException if an argument is null, or the factory builds null
   */
  @Override
  public final <R> CompletionStage<R> askWithStatus(Function<ActorRef<StatusReply<R>>, M> messageFactory,
      Duration timeout) {
    requireArguments("askWithStatus", messageFactory, timeout);
    Promise<R> answer = Promise.apply();
    this.<StatusReply<R>>askPekko(messageFactory, timeout).whenCompleteAsync((reply, failure) -> {
      if (failure != null) {
        // Only the ask's own failures are renamed: an error reply's exception is the entity's.
        answer.failure(askTimeout(failure));
      } else if (reply == null) {
        answer.failure(new IllegalStateException(this + " answered askWithStatus with null, not a StatusReply"));
      } else if (reply.isSuccess()) {
        answer.success(reply.getValue());
      } else {
        answer.failure(reply.getError());
      }
    }, Runnable::run);
    return FutureConverters.asJava(answer.future());
  }

  /**
   * Pekko's ask, which sends with {@link #tell}: so an ask takes the same route as a tell, straight
   * to a known home and in order with the caller's tells before and after it.
   *
   * <p>Its stage runs dependent stages made without an executor on the common pool; the one
   * callback hung on it here runs where the reply arrives instead (no thread hop per ask), and
   * completes a Scala promise whose Java stage behaves as Pekko's own ask stages do for the caller.
   */
  private <R> CompletionStage<R> askPekko(Function<ActorRef<R>, M> messageFactory, Duration timeout) {
    return AskPattern.<M, R>ask(this, messageFactory::apply, timeout, system.scheduler());
  }

  private void requireArguments(String method, Object messageFactory, Duration timeout) {
    if (messageFactory == null) {
      throw nullArgument(method, "messageFactory");
    }
    if (timeout == null) {
      throw nullArgument(method, "timeout");
    }
  }

  /**
   * The error for a null argument, in the API's words ({@link Arguments}) and naming the entity;
   * built only when it is thrown, so that a tell's check costs nothing more.
   */
  protected final IllegalArgumentException nullArgument(String method, String argument) {
    return new IllegalArgumentException("EntityRef." + method + " to entity [" + entityId() + "] of type ["
        + typeKey().name() + "]: " + argument + " must not be null");
  }

  /**
   * Pekko's typed ask fails with a plain {@code TimeoutException}; Pekko's sharding
   * {@code EntityRef} with an {@link AskTimeoutException}, which applications moving over may
   * catch. The message, Pekko's, names this reference, the message's class and the timeout.
   */
  private static Throwable askTimeout(Throwable failure) {
    Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause()
        : failure;
    return cause instanceof TimeoutException && !(cause instanceof AskTimeoutException)
        ? new AskTimeoutException(cause.getMessage())
        : cause;
  }

  /** For Pekko's asks: the provider that creates their reply-to actors. */
  @Override
  public final ActorRefProvider provider() {
    return ((ExtendedActorSystem) Adapter.toClassic(system)).provider();
  }

  /** For Pekko's asks: true once {@link #terminatesWith()} has terminated. */
  @Override
  public final boolean isTerminated() {
    // Typed refs of a running system are InternalRecipientRefs (Pekko's adapters); any other
    // counts as alive, which the trait allows ("false if alive or uncertain").
    return terminatesWith() instanceof InternalRecipientRef<?> ref && ref.isTerminated();
  }

  /**
   * For Pekko's asks: the start of a reply-to actor's name, the type name and the entity id,
   * URL-encoded as Pekko's sharding does, so that an id with {@code /}, {@code #} or {@code $}
   * makes a valid actor name, and the temporary actor's path shows which entity was asked.
   */
  @Override
  public final String refPrefix() {
    return URLEncoder.encode(typeKey().name() + "-" + entityId(), StandardCharsets.UTF_8);
  }
}
