package dev.shardkit.sharding.internal.region;

import dev.shardkit.sharding.ShardingSettings;
import java.time.Duration;
import java.util.OptionalInt;

/**
 * What the {@link RegionMachine} is configured with, taken once from the type's settings.
 *
 * @param proxyOnly the region routes but never hosts
 * @param bufferSize the most messages held over all shards, and the callers' limit in each outbox
 * @param restartsRemembered a shard that stops unexpectedly is started again (its entities are remembered)
 * @param entityRestartBackoff how long such a shard waits before it starts again
 */
record RegionConfig(String typeName, boolean proxyOnly, int bufferSize, Duration retryInterval,
    Duration handOffTimeout, boolean restartsRemembered, Duration entityRestartBackoff,
    OptionalInt activeEntityLimit, boolean redeliverUnacknowledged) {

  static RegionConfig of(String typeName, boolean proxyOnly, boolean remembersEntities, ShardingSettings settings) {
    return new RegionConfig(typeName, proxyOnly, settings.bufferSize(), settings.retryInterval(),
        settings.handOffTimeout(), remembersEntities, settings.entityRestartBackoff(),
        settings.passivationActiveEntityLimit(), settings.remoteDelivery().redeliverUnacknowledgedAfterCrash());
  }
}
