package dev.shardkit.sharding.internal.shard;

import dev.shardkit.sharding.internal.InternalApi;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs a shard's machine: hands it an input, carries its effects out in order through the ports,
 * and hands it the synchronous replies those effects gave ({@link ShardEffect#carryOut}) before the
 * next input, each in turn. The one way to drive a {@link ShardMachine}, shared by the shard actor
 * and shardkit's simulation, so the simulation exercises what the actor does.
 *
 * <p>When a port throws (the shard actor then fails and restarts), the effects it did not reach and
 * the replies it did not hand back are kept ({@link #unfinished}), so that the machine can carry
 * over the messages among them ({@link ShardMachine#carryOver}).
 *
 * <p>Internal API: public for shardkit's simulation tests; not for applications, and it may change
 * in any release. Not thread-safe.
 *
 * @param <E> what an entity's incarnation is
 */
@InternalApi
public final class ShardDriver<E> {
  private final ShardMachine<E> machine;
  private final ShardPorts<E> ports;
  private final ArrayDeque<ShardInput<E>> replies = new ArrayDeque<>();
  private final List<Object> unfinished = new ArrayList<>();

  public ShardDriver(ShardMachine<E> machine, ShardPorts<E> ports) {
    this.machine = machine;
    this.ports = ports;
  }

  /** Hands {@code input} to the machine at {@code now} and carries out all that follows from it. */
  public void run(ShardInput<E> input, long now) {
    unfinished.clear();
    replies.clear();
    List<ShardEffect<E>> effects = List.of();
    int next = 0;
    try {
      for (ShardInput<E> in = input; in != null; in = replies.poll()) {
        effects = machine.handle(in, now);
        for (next = 0; next < effects.size(); ) {
          ShardInput<E> reply = effects.get(next++).carryOut(ports);
          if (reply != null) {
            replies.add(reply);
          }
        }
        effects = List.of();
      }
    } catch (Throwable t) {
      unfinished.addAll(effects.subList(Math.min(next, effects.size()), effects.size()));
      unfinished.addAll(replies);
      replies.clear();
      throw t;
    }
  }

  /**
   * After {@link #run} threw: the effects that were not carried out and the replies the machine was
   * not given, in order; empty otherwise.
   */
  public List<Object> unfinished() {
    return List.copyOf(unfinished);
  }
}
