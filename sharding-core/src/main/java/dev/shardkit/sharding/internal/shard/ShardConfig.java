package dev.shardkit.sharding.internal.shard;

import dev.shardkit.sharding.ShardingSettings;
import dev.shardkit.sharding.internal.InternalApi;
import java.time.Duration;
import java.util.Optional;

/**
 * What a shard's machine ({@link ShardMachine}) is told of its entity type and settings, once.
 *
 * <p>Internal API: public for shardkit's simulation tests; not for applications, and it may change
 * in any release.
 *
 * @param bufferSize the most messages the shard holds, over all entities that are not active
 * @param remembering whether the type remembers its entities
 * @param restartBackoff the first back-off of an entity that stops without passivating
 *     ({@code entity-restart-backoff})
 * @param restartBackoffMax the longest one ({@code entity-restart-backoff-max})
 * @param idleTimeout {@code passivation.idle-timeout}, if entities passivate when idle
 * @param automaticPassivation whether the shard passivates entities by itself (an idle timeout or
 *     an active-entity limit is set): only then does it keep when each entity last got a message
 * @param recoveryBatch how many remembered entities start at a time; 0 for all at once
 * @param recoveryFrequency how often the next batch starts
 * @param rememberRetry the first wait before a failed read or write of the remember-entities store
 *     is tried again (doubling for each failure in a row)
 * @param rememberRetryMax the longest such wait
 * @param storeDescription the remember-entities store, as its reports name it
 */
@InternalApi
public record ShardConfig(String typeName, String shardId, int bufferSize, boolean remembering,
    Duration restartBackoff, Duration restartBackoffMax, Optional<Duration> idleTimeout, boolean automaticPassivation,
    int recoveryBatch, Duration recoveryFrequency, Duration rememberRetry, Duration rememberRetryMax,
    String storeDescription) {

  /** A failed read or write of the remember-entities store waits this long at first… */
  static final Duration REMEMBER_RETRY = Duration.ofMillis(200);
  /** …and at most this long. */
  static final Duration REMEMBER_RETRY_MAX = Duration.ofSeconds(5);

  /** The configuration of shard {@code shardId} of a type with these settings. */
  public static ShardConfig of(String typeName, String shardId, ShardingSettings settings, boolean remembering,
      String storeDescription) {
    return new ShardConfig(typeName, shardId, settings.bufferSize(), remembering, settings.entityRestartBackoff(),
        settings.entityRestartBackoffMax(), settings.passivationIdleTimeout(),
        settings.passivationIdleTimeout().isPresent() || settings.passivationActiveEntityLimit().isPresent(),
        settings.rememberEntitiesRecoveryBatch(), settings.rememberEntitiesRecoveryFrequency(), REMEMBER_RETRY,
        REMEMBER_RETRY_MAX, storeDescription);
  }
}
