package dev.shardkit.sharding.internal.coordinator;

import dev.shardkit.sharding.internal.wire.ShardingProtocol.ShardHome;
import dev.shardkit.sharding.internal.wire.ShardingProtocol;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * The coordinator's side of starting the shards of a type that remembers its entities. Such a
 * shard must start at its home without a message, so a home told to its own region asks it to
 * confirm ({@link ShardHome#confirmStart}), and the home is told again every {@link #INTERVAL}
 * until the region answers {@link ShardingProtocol.ShardStarted}, or the shard's home is another
 * one by then: a tell lost on the way (a dropped association, a partition) would otherwise leave
 * the shard, and its remembered entities, stopped until a message came for it. Owned by the
 * coordinator's machine ({@link CoordinatorMachine}); not thread-safe.
 */
final class StartConfirmations {

  /** How long a home waits to confirm before it is told again. */
  static final Duration INTERVAL = Duration.ofSeconds(2);

  /** The region each shard waits on, sorted by shard id so that homes are told again in order. */
  private final Map<String, ActorRef<Object>> awaiting = new TreeMap<>();

  /**
   * A home told to its own region: from now on it is awaited from there.
   *
   * @return whether nothing was awaited before, so the caller starts the timer
   */
  boolean expect(ShardHome home) {
    boolean first = awaiting.isEmpty();
    awaiting.put(home.shardId(), home.region());
    return first;
  }

  /** The region confirmed it hosts the shard; an answer from any other region changes nothing. */
  void confirmed(String shardId, ActorRef<Object> region) {
    awaiting.remove(shardId, region);
  }

  /**
   * The interval passed: the homes to tell again, each still the shard's home by {@code homeOf}
   * (the decided state); the others are no longer awaited.
   */
  List<ShardHome> due(Function<String, ActorRef<Object>> homeOf, long term) {
    List<ShardHome> again = new ArrayList<>(awaiting.size());
    awaiting.entrySet().removeIf(e -> !e.getValue().equals(homeOf.apply(e.getKey())));
    awaiting.forEach((shardId, region) -> again.add(new ShardHome(shardId, region, term, true)));
    return again;
  }

  boolean isEmpty() {
    return awaiting.isEmpty();
  }

  /** How many homes are awaited. */
  int size() {
    return awaiting.size();
  }
}
