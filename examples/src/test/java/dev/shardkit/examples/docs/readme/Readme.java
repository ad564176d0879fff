package dev.shardkit.examples.docs.readme;

import dev.shardkit.sharding.ClusterSharding;
import dev.shardkit.sharding.Entity;
import dev.shardkit.sharding.EntityRef;
import dev.shardkit.sharding.EntityTypeKey;
import java.time.Duration;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.typed.ActorSystem;

/** The README's example, where the compiler checks it ({@code DocsSnippetsTest}). */
@SuppressWarnings("unused")
final class Readme {
  private Readme() {}

  static void run(ActorSystem<Void> system) {
    // docs:start use
    // On every node of the cluster (system: a typed ActorSystem with pekko.actor.provider = cluster):
    EntityTypeKey<Counter.Command> COUNTER = EntityTypeKey.create(Counter.Command.class, "Counter");
    ClusterSharding sharding = ClusterSharding.get(system);
    sharding.start(Entity.of(COUNTER, ctx -> Counter.create(ctx.entityId())));

    // From anywhere in the cluster:
    EntityRef<Counter.Command> counter = sharding.entityRefFor(COUNTER, "counter-42");
    counter.tell(new Counter.Increment(1));
    CompletionStage<Integer> value = counter.ask(Counter.Get::new, Duration.ofSeconds(3));
    // docs:end use
  }
}
