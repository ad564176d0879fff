package dev.shardkit.examples.docs.gettingstarted;

import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.pattern.StatusReply;

// docs:start counter
public final class Counter {
  public sealed interface Command extends CborSerializable permits Increment, Get, Take {}
  public record Increment(int by) implements Command {}
  public record Get(ActorRef<Integer> replyTo) implements Command {}
  /** Takes {@code amount} if the counter holds that much; answers what is left, or an error. */
  public record Take(int amount, ActorRef<StatusReply<Integer>> replyTo) implements Command {}

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
        .onMessage(Take.class, take -> {
          if (take.amount() > value) {
            take.replyTo().tell(StatusReply.error("only " + value + " left"));
            return Behaviors.same();
          }
          take.replyTo().tell(StatusReply.success(value - take.amount()));
          return counting(value - take.amount());
        })
        .build();
  }
}
// docs:end counter
