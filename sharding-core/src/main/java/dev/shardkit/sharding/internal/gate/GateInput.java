package dev.shardkit.sharding.internal.gate;

import dev.shardkit.sharding.internal.gate.GateProtocol.ConfirmMember;
import dev.shardkit.sharding.internal.gate.GateProtocol.MemberConfirmed;
import org.apache.pekko.actor.typed.ActorRef;

/** What the {@link GateMachine} is told: the keeper's messages and signals, as values. */
sealed interface GateInput {

  /** A region (or a test) wants to hear of the gate's changes. */
  record Subscribe(ActorRef<Object> subscriber) implements GateInput {}

  /** A subscriber stopped (its watch fired). */
  record SubscriberGone(ActorRef<Object> subscriber) implements GateInput {}

  /** The pause ticker found the node silent for {@code nanos}; it has closed an open gate itself. */
  record Paused(long nanos) implements GateInput {}

  /** The member at {@code by} (an address) quarantined this node. */
  record Quarantined(String by) implements GateInput {}

  /**
   * A cluster event, as the gate sees it: this node's view after it, and what it says of this node.
   *
   * <p>Interim form: the shell folds Pekko's events into the view itself ({@link GateMembership})
   * until the one membership vocabulary of issue 27 ({@code ClusterChange} folded by
   * {@code MembersFold}) gives the same view and kind; the machine then takes them from there
   * unchanged.
   *
   * @param view the view after the event; this node's own status is Pekko's (removed before it
   *     joined, and after it was removed)
   * @param kind what the event says of this node
   * @param previous this node's status before the event if it was removed by it (for
   *     {@link Departure}: a node removed on its way out left on purpose); its current status
   *     otherwise
   * @param reason what started this node's coordinated shutdown, read when the event came
   */
  record Membership(MembershipCheck.View view, Kind kind, MembershipCheck.Status previous,
      Departure.ShutdownReason reason) implements GateInput {

    /** What a cluster event says of this node. */
    enum Kind {
      /** Nothing of this node's removal or reachability: another member changed, or this one's status. */
      OTHER,
      /** This node was downed. */
      DOWNED,
      /** This node was removed. */
      REMOVED,
      /** Some member's records say this node is unreachable. */
      SEEN_UNREACHABLE,
      /** This node's cluster is shutting down. */
      SHUTTING_DOWN
    }
  }

  /** Another node's keeper asks whether this node still counts it as a member. */
  record ConfirmAsked(ConfirmMember question, boolean ownGateOpen) implements GateInput {}

  /** Another node's keeper confirmed this node as a member. */
  record Confirmed(MemberConfirmed answer) implements GateInput {}

  /** The answer to {@link GateEffect.TryOpenGate}: whether the gate opened. */
  record GateOpenResult(boolean opened) implements GateInput {}

  /** The retry timer started as {@code generation} fired. */
  record RetryFired(long generation) implements GateInput {}
}
