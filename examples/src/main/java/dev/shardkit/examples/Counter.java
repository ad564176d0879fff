package dev.shardkit.examples;

import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/** A sharded counter: one per entity id, created on its first message. */
public final class Counter {
  private Counter() {}

  /** Everything a counter accepts. */
  public sealed interface Command extends CborSerializable permits Increment, Get {}

  /** Adds {@code by} to the counter. */
  public record Increment(int by) implements Command {}

  /** Replies with the current value. */
  public record Get(ActorRef<Integer> replyTo) implements Command {}

  /** A counter that starts at zero. */
  public static Behavior<Command> create(String entityId) {
    return counting(0);
  }

  private static Behavior<Command> counting(int value) {
    return Behaviors.receive(Command.class)
        .onMessage(Increment.class, inc -> counting(value + inc.by()))
        .onMessage(Get.class, get -> {
          get.replyTo().tell(value);
          return Behaviors.same();
        })
        .build();
  }
}
