package dev.shardkit.examples.docs.gettingstarted;

import dev.shardkit.sharding.EntityContext;
import dev.shardkit.sharding.Passivate;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/** The entity of getting-started's passivation section. */
final class MyEntity {
  interface Command extends CborSerializable {}

  enum Idle implements Command { INSTANCE }

  // docs:start passivate
  public static Behavior<Command> create(EntityContext<Command> entity) {
    return Behaviors.setup(ctx -> Behaviors.receive(Command.class)
        .onMessage(Idle.class, idle -> {
          entity.shard().tell(new Passivate(ctx.getSelf()));
          return Behaviors.same();
        })
        // … the entity's other messages
        .build());
  }
  // started with: sharding.start(Entity.of(KEY, MyEntity::create))
  // docs:end passivate
}
