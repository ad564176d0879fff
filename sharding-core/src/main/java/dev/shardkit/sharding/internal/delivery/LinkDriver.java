package dev.shardkit.sharding.internal.delivery;

import java.util.List;

/**
 * Runs the {@link LinkMachine}: hands it an input and carries out its effects in order through
 * {@link LinkPorts}. Shared by the link actor and a simulation of the cluster, so both carry the
 * effects out alike.
 */
final class LinkDriver {

  private LinkDriver() {}

  static void run(LinkMachine machine, LinkInput input, long now, LinkPorts ports) {
    List<LinkEffect> effects = machine.handle(input, now);
    // By index: no iterator for a list handled once per batch.
    for (int i = 0, n = effects.size(); i < n; i++) {
      effects.get(i).carryOut(ports);
    }
  }
}
