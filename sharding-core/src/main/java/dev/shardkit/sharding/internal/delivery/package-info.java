/**
 * Delivery between regions on different nodes. A region sends through one {@link DeliveryLink} per
 * destination region; its {@link LinkMachine} decides which numbered batches go out, which are
 * acknowledged ({@link DeliveryWindow}) and when they are sent again. Callers and the region put
 * messages into the link's {@link Outbox}; the receiving region delivers a batch only in its link's
 * order ({@link InboundSequences}). {@link RegionLinks} is one region's set of links.
 */
package dev.shardkit.sharding.internal.delivery;
