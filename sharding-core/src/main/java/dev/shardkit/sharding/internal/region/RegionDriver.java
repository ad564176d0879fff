package dev.shardkit.sharding.internal.region;

import java.util.ArrayDeque;
import java.util.List;

/**
 * Runs a region's machine: hands it an input, carries its effects out in order through the ports,
 * and hands it the synchronous answers those effects gave (a started shard, a quiet check) before
 * the next input, each in turn. The one way to drive a {@link RegionMachine}, for the region actor
 * and a simulation of the cluster alike. Not thread-safe.
 */
final class RegionDriver {
  private final RegionMachine machine;
  private final RegionPorts ports;
  private final ArrayDeque<RegionInput> replies = new ArrayDeque<>();

  RegionDriver(RegionMachine machine, RegionPorts ports) {
    this.machine = machine;
    this.ports = ports;
  }

  /** Hands {@code input} to the machine at {@code now} and carries out all that follows from it. */
  void run(RegionInput input, long now) {
    replies.clear();
    for (RegionInput in = input; in != null; in = replies.poll()) {
      List<RegionEffect> effects = machine.handle(in, now);
      // By index: no iterator per input.
      for (int i = 0, n = effects.size(); i < n; i++) {
        RegionInput reply = effects.get(i).carryOut(ports);
        if (reply != null) {
          replies.add(reply);
        }
      }
    }
  }
}
