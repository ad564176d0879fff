package dev.shardkit.sharding.internal.machine;

import dev.shardkit.sharding.internal.InternalApi;
import java.util.function.Supplier;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.BehaviorInterceptor;
import org.apache.pekko.actor.typed.Signal;
import org.apache.pekko.actor.typed.TypedActorContext;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * What a core actor (coordinator, region, shard) does when one of its handlers throws: it reports
 * the failure with the message that caused it (so that the log names the actor, the message's
 * type and the exception, and user messages among them are counted as dropped), and then either
 * passes the exception on to its supervisor, which restarts it ({@link Then#RESTART}), or carries
 * on with its state as it was before that message ({@link Then#RESUME}). Without it, a typed actor
 * that throws is stopped, and nothing would start a region or a coordinator again.
 *
 * <p>Only exceptions are handled; errors (out of memory, linkage) go on as they are.
 */
@InternalApi
public final class HandlerFailures extends BehaviorInterceptor<Object, Object> {

  /** What the actor does after a failed handler has been reported. */
  public enum Then {
    /** The exception goes on to the actor's supervisor, which restarts the actor. */
    RESTART,
    /** The actor keeps the behaviour and state it had; the message that failed is lost. */
    RESUME
  }

  /** Told of each failure, on the actor's thread, before the actor restarts or resumes. */
  @FunctionalInterface
  public interface Report {
    /** @param failed the message, or the signal, whose handler threw */
    void failed(ActorContext<Object> context, Object failed, Exception cause);
  }

  /** What a report names as the failed message when the actor failed while it started. */
  public static final String STARTING = "its start";

  private final Then then;
  private final Report report;

  HandlerFailures(Then then, Report report) {
    super(Object.class);
    this.then = then;
    this.report = report;
  }

  /** {@code behavior}, with its failures reported and then handled as {@code then} says. */
  public static Behavior<Object> around(Behavior<Object> behavior, Then then, Report report) {
    return Behaviors.intercept(() -> new HandlerFailures(then, report), behavior);
  }

  /** A failure while the actor starts is reported and passed on: there is no state to resume. */
  @Override
  public Behavior<Object> aroundStart(TypedActorContext<Object> ctx, PreStartTarget<Object> target) {
    try {
      return target.start(ctx);
    } catch (Exception e) {
      report.failed(ctx.asJava(), STARTING, e);
      throw e;
    }
  }

  @Override
  public Behavior<Object> aroundReceive(TypedActorContext<Object> ctx, Object msg, ReceiveTarget<Object> target) {
    return guarded(ctx, msg, () -> target.apply(ctx, msg));
  }

  @Override
  public Behavior<Object> aroundSignal(TypedActorContext<Object> ctx, Signal signal, SignalTarget<Object> target) {
    return guarded(ctx, signal, () -> target.apply(ctx, signal));
  }

  /** Runs the handler of {@code handled}; if it throws, reports it and resumes or rethrows. */
  private Behavior<Object> guarded(TypedActorContext<Object> ctx, Object handled, Supplier<Behavior<Object>> handler) {
    try {
      return handler.get();
    } catch (Exception e) {
      if (resumes(ctx, handled, e)) {
        return Behaviors.same();
      }
      throw e;
    }
  }

  /** How a report names what failed: the message's type (its content may be large, or user data). */
  public static String describe(Object failed) {
    return failed instanceof String s ? s : "a message of type " + failed.getClass().getName();
  }

  /** Reports the failure; true if the actor carries on. */
  private boolean resumes(TypedActorContext<Object> ctx, Object failed, Exception e) {
    try {
      report.failed(ctx.asJava(), failed, e);
    } catch (RuntimeException reportFailed) {
      // The report must not turn a handled failure into a stopped actor.
      ctx.asJava().getLog().error("Reporting a failed handler failed too ({}); the first failure was {}",
          reportFailed.toString(), e.toString(), e);
    }
    return then == Then.RESUME;
  }
}
