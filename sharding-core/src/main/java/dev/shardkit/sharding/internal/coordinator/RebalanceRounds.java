package dev.shardkit.sharding.internal.coordinator;

import dev.shardkit.sharding.internal.machine.Backoff;
import java.time.Duration;

/**
 * When the coordinator's next rebalance round runs. A round that moved shards, or a region that
 * joined (usually shards should move to it), brings the next round one interval later; rounds in
 * a row that found nothing to move wait longer, twice as long each time up to eight intervals, so
 * a steady cluster costs little. A round that cannot plan because writes are in flight (it plans
 * on stored homes only) looks again shortly, and the end of a round's last hand-off starts the
 * next round at once; neither counts as idle. Owned by the coordinator actor; not thread-safe.
 */
final class RebalanceRounds {

  /** How soon a round looks again when it found writes in flight. */
  static final Duration WRITES_IN_FLIGHT = Duration.ofMillis(100);

  private final Duration interval;
  private final Backoff idle;
  /** Rounds in a row that found nothing to move. */
  private int idleRounds;

  /** @param interval the rebalance interval of the type's settings */
  RebalanceRounds(Duration interval) {
    this.interval = interval;
    this.idle = new Backoff(interval.multipliedBy(2), interval.multipliedBy(8), 2);
  }

  /** The delay of the first round, once the coordinator has settled. */
  Duration first() {
    return interval;
  }

  /** A region joined, or a round moved shards: the next round comes one interval later. */
  Duration moved() {
    idleRounds = 0;
    return interval;
  }

  /** A round found nothing to move: the next one waits longer than the last. */
  Duration foundNothing() {
    return idle.delay(++idleRounds);
  }
}
