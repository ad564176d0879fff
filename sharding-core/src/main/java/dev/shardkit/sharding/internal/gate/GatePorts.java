package dev.shardkit.sharding.internal.gate;

import dev.shardkit.sharding.internal.gate.GateProtocol.ConfirmMember;
import dev.shardkit.sharding.internal.gate.GateProtocol.MemberConfirmed;
import java.time.Duration;
import java.util.List;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * Where the {@link GateMachine}'s effects are carried out: the node's {@link DeliveryGate}, the
 * other keepers, the subscribers, a timer and the log. The keeper actor implements it with Pekko;
 * a simulation of the cluster implements it with its own gate, network and clock.
 */
interface GatePorts {

  /** Closes the gate if it is open. */
  void closeGate();

  /**
   * Opens the gate if it is closed and the node was not paused since {@code confirmedSince}.
   *
   * @return whether it opened
   */
  boolean tryOpenGate(long confirmedSince);

  /** Closes the gate for good. */
  void downGate();

  /** Sends {@code question} to the keeper on each of {@code members} (addresses). */
  void ask(List<String> members, ConfirmMember question);

  void answer(ActorRef<Object> to, MemberConfirmed answer);

  void notify(List<ActorRef<Object>> subscribers, GateKeeper.GateChanged change);

  /** Watches a subscriber, so that its stop comes back as {@link GateInput.SubscriberGone}. */
  void watch(ActorRef<Object> subscriber);

  /**
   * (Re)starts the periodic retry timer: {@link GateInput.RetryFired} with {@code generation}
   * every {@code interval}, the first one interval from now.
   */
  void startRetry(long generation, Duration interval);

  void cancelRetry();

  void report(GateNotice notice);
}
