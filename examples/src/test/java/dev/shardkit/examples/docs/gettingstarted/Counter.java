package dev.shardkit.examples.docs.gettingstarted;

import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

// docs:start counter
public final class Counter {
  public sealed interface Command extends CborSerializable permits Increment, Get {}
  public record Increment(int by) implements Command {}
  public record Get(ActorRef<Integer> replyTo) implements Command {}

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
// docs:end counter
