package dev.shardkit.sharding;

/**
 * The default envelope: a message addressed to one entity by id. Send it to the region returned
 * by {@link ClusterSharding#start} when you do not use an {@link EntityRef}.
 *
 * @param entityId the entity's id; must not be null or empty (a region drops such an envelope to
 *     dead letters with a warning naming the entity type)
 * @param message the message for the entity
 * @param <M> the entity's message type
 */
public record ShardingEnvelope<M>(String entityId, M message) {}
