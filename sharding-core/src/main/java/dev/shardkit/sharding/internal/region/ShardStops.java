package dev.shardkit.sharding.internal.region;

import java.time.Duration;
import java.util.Optional;

/**
 * What a region does when one of its shards has terminated. A shard being handed off stops after
 * its entities, which completes its move; a shard hosted here that stops on its own loses its
 * home, and starts again either with its next message or, when it remembers its entities (and the
 * region is not shutting down), after a back-off so that they come back without waiting for one.
 * A shard the region no longer knows as its own needs nothing. Pure.
 */
final class ShardStops {

  /** What the region does about a terminated shard. */
  sealed interface Outcome<S> {}

  /** The shard's move is complete: the region carries out {@code stopped}. */
  record HandedOff<S>(OwnerHandOffs.Stopped<S> stopped) implements Outcome<S> {}

  /**
   * The shard stopped on its own: it has no home until it starts again, after {@code restartAfter}
   * if present, else with its next message.
   */
  record Unexpected<S>(Optional<Duration> restartAfter) implements Outcome<S> {

    /** When it starts again, as the region's warning says it. */
    String when() {
      return restartAfter.map(b -> "in " + b.toMillis() + " ms with its remembered entities")
          .orElse("with its next message");
    }
  }

  /** Not a shard hosted here (any more): nothing to do. */
  record NotHosted<S>() implements Outcome<S> {}

  private ShardStops() {}

  /**
   * @param handedOff the completed move, if the shard was being handed off
   * @param hostedHere the region's table has the shard as hosted here
   * @param restartsRemembered the shard remembers its entities and the region restarts such shards
   * @param backoff how long a shard with remembered entities waits before it starts again
   */
  static <S> Outcome<S> decide(Optional<OwnerHandOffs.Stopped<S>> handedOff, boolean hostedHere,
      boolean restartsRemembered, Duration backoff) {
    if (handedOff.isPresent()) {
      return new HandedOff<>(handedOff.get());
    }
    if (!hostedHere) {
      return new NotHosted<>();
    }
    return new Unexpected<>(restartsRemembered ? Optional.of(backoff) : Optional.empty());
  }
}
