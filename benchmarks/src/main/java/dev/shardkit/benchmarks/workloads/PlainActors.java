package dev.shardkit.benchmarks.workloads;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.actor.NoSerializationVerificationNeeded;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * The baseline without sharding: {@link Counter} actors spawned directly, {@code perParent} to a
 * parent (as a shard parents its entities), addressed by plain {@code ActorRef.tell}.
 */
public final class PlainActors {
  private PlainActors() {}

  private record SpawnAll(List<String> ids, Counter.Hook hook, ActorRef<List<ActorRef<Counter.Command>>> replyTo)
      implements NoSerializationVerificationNeeded {}

  private static Behavior<SpawnAll> parent() {
    return Behaviors.receive((ctx, msg) -> {
      List<ActorRef<Counter.Command>> refs = new ArrayList<>(msg.ids().size());
      for (String id : msg.ids()) {
        refs.add(ctx.spawn(Counter.create(id, msg.hook()), id));
      }
      msg.replyTo().tell(refs);
      return Behaviors.same();
    });
  }

  /** Spawns one counter per id, in order, and returns their refs in the same order. */
  public static List<ActorRef<Counter.Command>> spawn(ActorSystem<?> system, List<String> ids, int perParent,
      Counter.Hook hook) throws Exception {
    List<CompletableFuture<List<ActorRef<Counter.Command>>>> parts = new ArrayList<>();
    for (int from = 0; from < ids.size(); from += perParent) {
      List<String> part = ids.subList(from, Math.min(ids.size(), from + perParent));
      ActorRef<SpawnAll> parent = system.systemActorOf(parent(), "plain-" + PARENTS.incrementAndGet(),
          Props.empty());
      parts.add(AskPattern.<SpawnAll, List<ActorRef<Counter.Command>>>ask(parent,
          replyTo -> new SpawnAll(part, hook, replyTo), Duration.ofMinutes(5), system.scheduler())
          .toCompletableFuture());
    }
    List<ActorRef<Counter.Command>> all = new ArrayList<>(ids.size());
    for (var part : parts) {
      all.addAll(part.get());
    }
    return all;
  }

  private static final AtomicInteger PARENTS = new AtomicInteger();
}
