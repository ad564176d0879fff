package dev.shardkit.sharding;

import org.apache.pekko.actor.typed.ActorRef;

/**
 * What an entity is told when it is created: its type, its id, and its shard.
 *
 * @param typeKey the entity's type
 * @param entityId the entity's id, never null or empty
 * @param shard the shard that hosts the entity; send it {@link Passivate} to leave memory
 * @param <M> the entity's message type
 */
public record EntityContext<M>(EntityTypeKey<M> typeKey, String entityId, ActorRef<ShardCommand> shard) {}
