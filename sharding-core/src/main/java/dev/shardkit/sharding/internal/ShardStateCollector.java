package dev.shardkit.sharding.internal;

import java.time.Duration;
import java.util.Collection;
import java.util.HashSet;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.pekko.actor.NoSerializationVerificationNeeded;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * A short-lived actor that asks each of a region's shards for its entities and hands the answers
 * on, so the region itself never waits. A shard that does not answer in time is left out.
 */
final class ShardStateCollector {
  private enum Timeout implements NoSerializationVerificationNeeded { INSTANCE }

  private ShardStateCollector() {}

  static Behavior<Object> create(Collection<ActorRef<Object>> shards, Duration timeout,
      Consumer<Set<ShardProtocol.ShardSnapshot>> onDone) {
    return Behaviors.setup(ctx -> {
      if (shards.isEmpty()) {
        onDone.accept(Set.of());
        return Behaviors.stopped();
      }
      shards.forEach(s -> s.tell(new ShardProtocol.GetShardState(ctx.getSelf())));
      return Behaviors.withTimers(timers -> {
        timers.startSingleTimer(Timeout.INSTANCE, timeout);
        Set<ShardProtocol.ShardSnapshot> answers = new HashSet<>();
        return Behaviors.receive(Object.class)
            .onMessage(ShardProtocol.ShardSnapshot.class, s -> {
              answers.add(s);
              if (answers.size() == shards.size()) {
                onDone.accept(answers);
                return Behaviors.stopped();
              }
              return Behaviors.same();
            })
            .onMessageEquals(Timeout.INSTANCE, () -> {
              onDone.accept(answers);
              return Behaviors.stopped();
            })
            .build();
      });
    });
  }
}
