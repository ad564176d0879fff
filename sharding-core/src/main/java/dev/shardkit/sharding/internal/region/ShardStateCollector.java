package dev.shardkit.sharding.internal.region;

import dev.shardkit.sharding.ShardingSettings;
import dev.shardkit.sharding.internal.InternalApi;
import dev.shardkit.sharding.internal.shard.ShardProtocol;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.GetRegionStats;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.RegionStats;
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
@InternalApi
public final class ShardStateCollector {
  private enum Timeout implements NoSerializationVerificationNeeded { INSTANCE }

  /** How long a region's statistics wait for its shards. */
  private static final Duration STATS_TIMEOUT = Duration.ofSeconds(5);

  private ShardStateCollector() {}

  /**
   * Answers {@code get} with the region's state: its shards' entities, and what it holds and
   * dropped (as counted when asked).
   */
  static Behavior<Object> localState(Collection<ActorRef<Object>> shards, RegionRequests.GetLocalState get,
      int holding, long dropped, ShardingSettings settings) {
    return create(shards, get.timeout(), answers -> get.replyTo().tell(
        new RegionRequests.LocalState(RegionReport.state(answers, holding, dropped, settings))));
  }

  /** Answers {@code get} with how many entities each of the region's shards has. */
  static Behavior<Object> regionStats(Collection<ActorRef<Object>> shards, GetRegionStats get) {
    return create(shards, STATS_TIMEOUT, answers -> get.replyTo().tell(
        new RegionStats(RegionReport.entityCounts(answers))));
  }

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
