/**
 * The node's delivery gate: whether this node's entities may process messages now, so that a
 * node that may have been put out of the cluster (partitioned, paused) lets none of its entities
 * act while their next home may already run them. {@link DeliveryGate} is read by every entity's
 * {@link GatedMailbox}; the node's {@link GateKeeper} keeps it, by the decisions of its
 * {@link GateMachine} ({@link MembershipCheck}), asking the other nodes' keepers
 * ({@link GateProtocol}) when in doubt.
 */
package dev.shardkit.sharding.internal.gate;
