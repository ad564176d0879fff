/**
 * The cluster's membership as the machines see it: Pekko's cluster events as
 * {@link ClusterChange} values ({@link ClusterChanges} is the one place that reads Pekko's
 * membership types for them), folded by {@link MembersFold} into the {@link MemberSnapshot} the
 * coordinator decides by, and {@link NodeAddress}, the node an actor lives on.
 */
package dev.shardkit.sharding.internal.membership;
