package dev.shardkit.sharding.internal.gate;

import java.util.List;

/**
 * Runs the {@link GateMachine}: hands it an input, carries out its effects in order through
 * {@link GatePorts}, and hands it at once the input an effect answered with (whether the gate
 * opened) before anything else. Shared by the keeper actor and a simulation of the cluster, so
 * both carry the effects out alike.
 */
final class GateDriver {

  private GateDriver() {}

  static void run(GateMachine machine, GateInput input, long now, GatePorts ports) {
    GateInput next = input;
    while (next != null) {
      List<GateEffect> effects = machine.handle(next, now);
      GateInput answer = null;
      for (int i = 0, n = effects.size(); i < n; i++) {
        GateInput a = effects.get(i).carryOut(ports);
        if (a != null) {
          if (answer != null) {
            throw new IllegalStateException("the gate machine asked two things at once: " + effects);
          }
          answer = a;
        }
      }
      next = answer;
    }
  }
}
