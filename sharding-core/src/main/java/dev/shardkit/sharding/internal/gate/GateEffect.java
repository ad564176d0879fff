package dev.shardkit.sharding.internal.gate;

import dev.shardkit.sharding.internal.gate.GateProtocol.ConfirmMember;
import dev.shardkit.sharding.internal.gate.GateProtocol.MemberConfirmed;
import java.time.Duration;
import java.util.List;
import org.apache.pekko.actor.typed.ActorRef;
import org.jspecify.annotations.Nullable;

/**
 * What the {@link GateMachine} decides to do, as values. Each effect carries out itself through
 * {@link GatePorts} ({@link #carryOut}): a new effect cannot compile without saying how, and a new
 * port not without every implementation of it.
 */
sealed interface GateEffect {

  /**
   * Carries this effect out.
   *
   * @return the input this effect answers with at once (the result of opening the gate), to be
   *     handled right after the current effects; null for every other effect
   */
  @Nullable GateInput carryOut(GatePorts ports);

  record CloseGate() implements GateEffect {
    @Override
    public @Nullable GateInput carryOut(GatePorts ports) {
      ports.closeGate();
      return null;
    }
  }

  /** Opens the gate unless the node was paused since {@code confirmedSince}; answers {@link GateInput.GateOpenResult}. */
  record TryOpenGate(long confirmedSince) implements GateEffect {
    @Override
    public GateInput carryOut(GatePorts ports) {
      return new GateInput.GateOpenResult(ports.tryOpenGate(confirmedSince));
    }
  }

  record DownGate() implements GateEffect {
    @Override
    public @Nullable GateInput carryOut(GatePorts ports) {
      ports.downGate();
      return null;
    }
  }

  /** Asks the keepers of {@code members} (addresses, in a stable order). */
  record Ask(List<String> members, ConfirmMember question) implements GateEffect {
    @Override
    public @Nullable GateInput carryOut(GatePorts ports) {
      ports.ask(members, question);
      return null;
    }
  }

  record Answer(ActorRef<Object> to, MemberConfirmed answer) implements GateEffect {
    @Override
    public @Nullable GateInput carryOut(GatePorts ports) {
      ports.answer(to, answer);
      return null;
    }
  }

  record Notify(List<ActorRef<Object>> subscribers, GateKeeper.GateChanged change) implements GateEffect {
    @Override
    public @Nullable GateInput carryOut(GatePorts ports) {
      ports.notify(subscribers, change);
      return null;
    }
  }

  record Watch(ActorRef<Object> subscriber) implements GateEffect {
    @Override
    public @Nullable GateInput carryOut(GatePorts ports) {
      ports.watch(subscriber);
      return null;
    }
  }

  record StartRetry(long generation, Duration interval) implements GateEffect {
    @Override
    public @Nullable GateInput carryOut(GatePorts ports) {
      ports.startRetry(generation, interval);
      return null;
    }
  }

  record CancelRetry() implements GateEffect {
    @Override
    public @Nullable GateInput carryOut(GatePorts ports) {
      ports.cancelRetry();
      return null;
    }
  }

  record Report(GateNotice notice) implements GateEffect {
    @Override
    public @Nullable GateInput carryOut(GatePorts ports) {
      ports.report(notice);
      return null;
    }
  }
}
