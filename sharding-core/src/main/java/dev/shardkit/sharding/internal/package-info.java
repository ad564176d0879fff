/**
 * shardkit's runtime, not API. The actors are thin shells ({@code ShardCoordinator},
 * {@code ShardRegion}, {@code Shard}, each region's {@code DeliveryLink}s to other regions, the
 * node's {@code GateKeeper}) around pure units tested without actors: for the coordinator
 * {@code Placement}, {@code HandOffTracker}, {@code CoordinatorWrites}, {@code MemberSnapshot} and
 * {@code Settling}; for the region the {@code RoutingTable}, {@code RegionRouting},
 * {@code OwnerHandOffs}, {@code RegionLinks} with a link's {@code DeliveryWindow} and a receiving
 * region's {@code InboundSequences}; for the shard its {@code EntityTable} with checked
 * transitions. The protocol between them ({@link dev.shardkit.sharding.internal.ShardingProtocol})
 * has its own versioned binary serializer.
 *
 * <p>Nearly everything here is package-private. What is public is so only because something
 * outside the package must reach it, and says why in its Javadoc: {@link StartedType}, through
 * which {@code ClusterSharding} starts and reaches an entity type; what the health checks of
 * {@code dev.shardkit.sharding} decide from and with ({@link NodeHealth}, {@link Readiness},
 * {@link Liveness}, {@link ReadinessWindow}); the serializers, mailbox,
 * protocols and in-memory store that Pekko or the configuration name; the serializers' base, the
 * binary primitives and the persistent list that the store modules and
 * {@code spi.CoordinatorState} use; {@link AbstractEntityRef}, the base the testkit's
 * {@code TestEntityRef} shares with the runtime's {@code EntityRef} (and the one class that
 * implements a Pekko internal API); and {@link EntityProps}, with which {@code Entity} and
 * {@code ClusterSharding} check an entity type's props.
 */
package dev.shardkit.sharding.internal;
