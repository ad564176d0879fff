/**
 * The region: one node's region of one entity type, through which every message for the type
 * passes. {@link RegionMachine} decides where each message goes (a shard here, a link to another
 * node's region, or a buffer while a home is unknown or a hand-off runs), how the region registers
 * with its coordinator and which coordinator it believes ({@link RegionRegistration},
 * {@link CoordinatorFence}, {@link AheadOfTerm}, {@link HomeBelief}), and the owner's side of a
 * hand-off ({@link OwnerHandOffs}, {@link ShardStops}). It publishes an immutable
 * {@link RoutingTable} that callers on the node read without asking the actor: {@link RegionHandle}
 * and {@link EntityRefImpl} are the caller-thread shortcut. {@link ShardRegion} is the actor that
 * carries out the machine's effects.
 */
package dev.shardkit.sharding.internal.region;
