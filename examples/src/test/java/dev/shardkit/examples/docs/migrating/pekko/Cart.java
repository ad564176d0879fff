package dev.shardkit.examples.docs.migrating.pekko;

import dev.shardkit.examples.CborSerializable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
// docs:start cart
import org.apache.pekko.cluster.sharding.typed.javadsl.ClusterSharding;
import org.apache.pekko.cluster.sharding.typed.javadsl.Entity;
import org.apache.pekko.cluster.sharding.typed.javadsl.EntityContext;
import org.apache.pekko.cluster.sharding.typed.javadsl.EntityRef;
import org.apache.pekko.cluster.sharding.typed.javadsl.EntityTypeKey;

public final class Cart {
  public sealed interface Command extends CborSerializable permits AddItem, GetItems, Idle, Stop {}
  public record AddItem(String item) implements Command {}
  public record GetItems(ActorRef<List<String>> replyTo) implements Command {}
  enum Idle implements Command { INSTANCE }
  public enum Stop implements Command { INSTANCE }

  public static final EntityTypeKey<Command> TYPE = EntityTypeKey.create(Command.class, "Cart");

  public static Behavior<Command> create(EntityContext<Command> entity) {
    return Behaviors.setup(ctx -> {
      ctx.setReceiveTimeout(Duration.ofMinutes(5), Idle.INSTANCE);
      return open(entity, ctx, List.of());
    });
  }

  private static Behavior<Command> open(EntityContext<Command> entity, ActorContext<Command> ctx, List<String> items) {
    return Behaviors.receive(Command.class)
        .onMessage(AddItem.class, add -> open(entity, ctx, append(items, add.item())))
        .onMessage(GetItems.class, get -> { get.replyTo().tell(items); return Behaviors.same(); })
        .onMessageEquals(Idle.INSTANCE, () -> {
          entity.getShard().tell(new ClusterSharding.Passivate<>(ctx.getSelf()));
          return Behaviors.same();
        })
        .onMessageEquals(Stop.INSTANCE, Behaviors::stopped)
        .build();
  }

  private static List<String> append(List<String> items, String item) {
    List<String> more = new ArrayList<>(items);
    more.add(item);
    return more;
  }
}
// docs:end cart
