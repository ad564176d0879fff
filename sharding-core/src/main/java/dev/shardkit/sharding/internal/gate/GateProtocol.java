package dev.shardkit.sharding.internal.gate;

import dev.shardkit.sharding.internal.InternalApi;
import dev.shardkit.sharding.internal.wire.GateSerializer;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * What the nodes' gate keepers ({@link GateKeeper}) say to each other, serialized by
 * {@link GateSerializer}: a node whose {@link DeliveryGate} closed asks the others whether they
 * still count it as a member, and each answers only if it does ({@link MembershipCheck#confirms}).
 *
 * <p>Internal API: public because the configuration binds it to its serializer by name; not for
 * applications, and it may change in any release.
 */
@InternalApi
public sealed interface GateProtocol {

  /**
   * Keeper → keeper: do you still count me (this incarnation of my node) as a reachable member?
   * {@code round} ties the answer to this closing of the gate.
   */
  record ConfirmMember(long round, long uid, ActorRef<Object> replyTo) implements GateProtocol {}

  /**
   * Keeper → keeper: yes, for that round; {@code from} is the answering keeper. {@code current} is
   * false when the answering node's own gate is closed: it may have been paused itself, so its view
   * may be old, and its answer counts only if every member answers.
   */
  record MemberConfirmed(long round, ActorRef<Object> from, boolean current) implements GateProtocol {}
}
