package dev.shardkit.sharding.internal.shard;

import dev.shardkit.sharding.internal.InternalApi;

/**
 * The timers of a shard's machine ({@link ShardMachine}): at most one of each runs at a time.
 *
 * <p>Internal API: public for shardkit's simulation tests; not for applications, and it may change
 * in any release.
 */
@InternalApi
public enum ShardTimer {
  /** Look for entities idle longer than {@code passivation.idle-timeout}. */
  IDLE,
  /** Start the next batch of remembered entities. */
  RECOVERY,
  /** The earliest restart back-off of an entity ends. */
  BACKOFF,
  /** Read the remember-entities store again, after it failed. */
  RETRY_LOAD,
  /** Write the remember-entities store again, after it failed. */
  RETRY_WRITE
}
