package dev.shardkit.sharding;

import org.apache.pekko.actor.typed.ActorRef;

/**
 * Asks the shard to stop an idle entity. The shard stops sending it messages, holds new messages
 * for it, sends it the type's stop message (or, without one, stops it after everything already in
 * its mailbox), and when it has stopped starts a new incarnation for the held messages, in order.
 *
 * @param entity the entity to passivate, usually the sender itself ({@code context.getSelf()})
 */
public record Passivate(ActorRef<?> entity) implements ShardCommand {}
