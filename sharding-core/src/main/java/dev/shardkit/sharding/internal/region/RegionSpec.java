package dev.shardkit.sharding.internal.region;

import dev.shardkit.sharding.EntityContext;
import dev.shardkit.sharding.EntityTypeKey;
import dev.shardkit.sharding.MessageExtractor;
import dev.shardkit.sharding.ShardingSettings;
import dev.shardkit.sharding.internal.InternalApi;
import dev.shardkit.sharding.internal.shard.Shard;
import dev.shardkit.sharding.spi.RememberEntitiesStoreProvider;
import java.util.Optional;
import java.util.function.Function;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.Props;

/**
 * Everything a region needs to know about its entity type.
 *
 * @param createBehavior empty for a proxy-only region, which never hosts shards
 * @param entityProps the props entities are spawned with (a dispatcher, tags), under the gated
 *     mailbox that the shard ({@link Shard}) puts in front of them
 * @param coordinator where registrations go: the coordinator singleton's proxy
 * @param rememberEntities the store provider of each shard's remembered entities; empty when the
 *     type does not remember them
 * @param status where the region publishes its registration for the node's health checks
 */
@InternalApi
public record RegionSpec(
    EntityTypeKey<Object> typeKey,
    MessageExtractor<Object, Object> extractor,
    Optional<Function<EntityContext<Object>, Behavior<Object>>> createBehavior,
    Optional<Object> stopMessage,
    Props entityProps,
    ShardingSettings settings,
    ActorRef<Object> coordinator,
    RegionHandle handle,
    Optional<RememberEntitiesStoreProvider> rememberEntities,
    RegionStatus status) {

  public boolean proxyOnly() {
    return createBehavior.isEmpty();
  }

  public String typeName() {
    return typeKey.name();
  }
}
