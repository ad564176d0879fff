package dev.shardkit.sharding.testkit.examples;

import dev.shardkit.sharding.EntityTypeKey;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/** The entity under test: a counter. */
public final class Counter {
  public static final EntityTypeKey<Command> KEY = EntityTypeKey.create(Command.class, "Counter");

  public sealed interface Command extends CborSerializable permits Increment, Get {}

  public record Increment(int by) implements Command {}

  public record Get(ActorRef<Integer> replyTo) implements Command {}

  private Counter() {}

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
