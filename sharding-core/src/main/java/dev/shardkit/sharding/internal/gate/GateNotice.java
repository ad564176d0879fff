package dev.shardkit.sharding.internal.gate;

import dev.shardkit.sharding.internal.InternalApi;
import org.slf4j.event.Level;

/**
 * What the {@link GateMachine} has to say, as values: the keeper's shell logs each with
 * {@link #render()} at {@link #level()}. The texts are the ones operators and shardkit's tests
 * know (a node put out warns, one that left on purpose says so at INFO), so they change only
 * together with those.
 */
@InternalApi
public sealed interface GateNotice {

  Level level();

  String render();

  /** Why the gate closed, or why a closed gate starts a new round of questions. */
  sealed interface Reason {
    String render();
  }

  /** The pause ticker found the node silent for longer than the gate's lease. */
  record PausedFor(long nanos, long thresholdMillis) implements Reason {
    @Override
    public String render() {
      return "this node was paused for " + nanos / 1_000_000 + " ms (longer than the pause threshold of "
          + thresholdMillis + " ms: a long garbage-collection pause, a frozen VM or process), so the cluster may have "
          + "downed it meanwhile";
    }
  }

  /** Another member quarantined this node. */
  record QuarantinedBy(String member) implements Reason {
    @Override
    public String render() {
      return "member " + member + " has quarantined this node";
    }
  }

  /** Some member's reachability records say this node is unreachable. */
  record SeenUnreachable() implements Reason {
    @Override
    public String render() {
      return "other members see this node as unreachable, and may down it";
    }
  }

  /** The gate closed: deliveries wait for the other members' confirmations. */
  record Closed(Reason reason) implements GateNotice {
    @Override
    public Level level() {
      return Level.WARN;
    }

    @Override
    public String render() {
      return "Deliveries to this node's entities wait until the other members confirm that it is still a member: "
          + reason.render();
    }
  }

  /** The gate was closed already; the answers to earlier questions no longer count. */
  record AskingAgain(Reason reason) implements GateNotice {
    @Override
    public Level level() {
      return Level.INFO;
    }

    @Override
    public String render() {
      return "Asking the other members again whether this node is still a member: " + reason.render();
    }
  }

  /** The gate opened again after {@code confirmations} answers, {@code millis} after it closed. */
  record Reopened(int confirmations, long millis) implements GateNotice {
    @Override
    public Level level() {
      return Level.INFO;
    }

    @Override
    public String render() {
      return confirmations + " of the other members confirmed that this node is still a member, " + millis
          + " ms after its deliveries stopped; deliveries to its entities go on";
    }
  }

  /** The node is out of the cluster: INFO if it left on purpose, a warning if it was put out. */
  record Out(Departure.Verdict verdict) implements GateNotice {
    @Override
    public Level level() {
      return verdict.onPurpose() ? Level.INFO : Level.WARN;
    }

    @Override
    public String render() {
      return "This node " + verdict.how() + " and is no longer a member of the cluster: its entities process nothing "
          + "more here; the cluster starts them on other nodes";
    }
  }
}
