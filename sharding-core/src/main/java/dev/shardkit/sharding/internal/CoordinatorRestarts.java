package dev.shardkit.sharding.internal;

import dev.shardkit.sharding.ShardingSettings;
import org.apache.pekko.actor.typed.BackoffSupervisorStrategy;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.SupervisorStrategy;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * A coordinator is never left dead by one of its own exceptions: the failure is logged (entity
 * type, the message it was handling, the exception), and the coordinator starts again in place
 * after a back-off ({@code coordinator-failure-backoff}: doubling for failures in a row, with
 * random jitter). The new incarnation is built from scratch and goes through loading again, so it
 * reloads its state from the same store instance (which is not closed: it closes only when the
 * coordinator stops for good), announces itself to the regions, and settles; what it knew only in
 * memory (hand-offs in progress, stashed requests) is gone, and regions ask again. Its actor
 * reference stays the same, so regions stay registered; the restart cancels its timers, its
 * watches stay, and answers the store gives to the previous incarnation are ignored
 * ({@link CoordinatorStoreLink}). Messages that arrive during the back-off wait in a stash as
 * large as the coordinator's own, and go to the new incarnation.
 */
final class CoordinatorRestarts {

  private CoordinatorRestarts() {}

  /** The coordinator's supervisor strategy, from the type's settings. */
  static BackoffSupervisorStrategy strategy(ShardingSettings settings, int stashCapacity) {
    return SupervisorStrategy.restartWithBackoff(settings.coordinatorFailureBackoffMin(),
            settings.coordinatorFailureBackoffMax(), settings.coordinatorFailureBackoffRandomFactor())
        .withStashCapacity(stashCapacity)
        // Reported by HandlerFailures, with the type's name and the failed message.
        .withLoggingEnabled(false);
  }

  /** {@code coordinator}, restarted with back-off when it throws. */
  static Behavior<Object> supervised(CoordinatorSpec spec, Behavior<Object> coordinator) {
    ShardingSettings settings = spec.settings();
    Behavior<Object> reported = HandlerFailures.around(coordinator, HandlerFailures.Then.RESTART,
        (ctx, failed, cause) -> ctx.getLog().error("Coordinator of [{}] failed handling {} ({}); it starts again "
                + "in {} ms or more (coordinator-failure-backoff) and reloads its state from the store",
            spec.typeName(), HandlerFailures.describe(failed), cause.toString(),
            settings.coordinatorFailureBackoffMin().toMillis(), cause));
    return Behaviors.supervise(reported).onFailure(Exception.class, strategy(settings, spec.stashCapacity()));
  }
}
