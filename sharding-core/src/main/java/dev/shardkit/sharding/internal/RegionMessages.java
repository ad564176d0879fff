package dev.shardkit.sharding.internal;

import org.apache.pekko.actor.NoSerializationVerificationNeeded;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * What a region tells itself: its timers, and the terminations of the actors it watches. They
 * never leave the region's node.
 */
sealed interface RegionMessages extends NoSerializationVerificationNeeded {

  /** Every retry interval: register again, ask again for held homes, ask again to be shut down. */
  enum RetryTick implements RegionMessages { INSTANCE }

  /** A coordinator the region registered with is gone. */
  record CoordinatorTerminated(ActorRef<Object> coordinator) implements RegionMessages {}

  /** A region that hosts shards this region routes to (or that routes to it) is gone. */
  record RegionTerminated(ActorRef<Object> region) implements RegionMessages {}

  /** A shard hosted here has stopped. */
  record ShardTerminated(String shardId) implements RegionMessages {}

  /** Look again at the actions waiting in {@link QuietWaits}. */
  enum QuietCheck implements RegionMessages { INSTANCE }

  /** Shutting down: look again whether every link has delivered what it holds. */
  enum LinksFlushedCheck implements RegionMessages { INSTANCE }

  /** Every hand-off timeout: forget the hand-off markers of moves that never began here. */
  enum SweepEarlyMarkers implements RegionMessages { INSTANCE }

  /** A shard with remembered entities stopped unexpectedly: start it again, which starts them. */
  record RestartShard(String shardId) implements RegionMessages {}
}
