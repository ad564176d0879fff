package dev.shardkit.sharding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.shardkit.sharding.spi.CoordinatorEvent;
import dev.shardkit.sharding.spi.CoordinatorEvent.ShardHomeAllocated;
import dev.shardkit.sharding.spi.CoordinatorEvent.ShardHomeDeallocated;
import dev.shardkit.sharding.spi.CoordinatorState;
import dev.shardkit.sharding.spi.CoordinatorStateStore;
import dev.shardkit.sharding.spi.CoordinatorStateStoreProvider;
import dev.shardkit.sharding.spi.LoadedCoordinatorState;
import dev.shardkit.sharding.testsupport.EntityProbe;
import dev.shardkit.sharding.testsupport.EntityProbe.Hello;
import dev.shardkit.sharding.testsupport.EntityProbe.Msg;
import dev.shardkit.sharding.testkit.TestCluster;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.pekko.actor.typed.ActorSystem;
import org.junit.jupiter.api.Test;

/**
 * Shards placed up front on the only node there is reach a node that joins later without
 * hand-offs, as long as nobody has used them and regions were not told their homes
 * ({@code tell-up-front-homes = off}; told homes count as used): the joining node gets its share at once, and
 * entities then start on both nodes with nothing left to rebalance. What the coordinator decided
 * is read from the writes to its state store; {@code PlacementTest} checks the same decisions on
 * values alone.
 */
class UpFrontPlacementTest {

  /** Every write of the coordinator, in order: an in-memory store that remembers its writes. */
  private static final List<List<CoordinatorEvent>> WRITES = new CopyOnWriteArrayList<>();

  /** The provider of {@code state-store-mode = recording}. */
  public static final class RecordingProvider implements CoordinatorStateStoreProvider {
    @Override
    public CoordinatorStateStore create(ActorSystem<?> system, String typeName, ShardingSettings settings) {
      return new CoordinatorStateStore() {
        @Override
        public CompletionStage<LoadedCoordinatorState> load() {
          return CompletableFuture.completedFuture(new LoadedCoordinatorState(1, CoordinatorState.empty()));
        }

        @Override
        public CompletionStage<Void> store(List<CoordinatorEvent> events, CoordinatorState stateAfter) {
          WRITES.add(List.copyOf(events));
          return CompletableFuture.completedFuture(null);
        }

        @Override
        public String describe() {
          return "recording in-memory test store";
        }
      };
    }
  }

  private static final String RECORDING = "shardkit.sharding.state-store-mode = recording\n"
      + "shardkit.sharding.state-store-providers.recording = \"" + RecordingProvider.class.getName() + "\"";

  /** The first write that holds an event of {@code type}, once there is one. */
  private static List<CoordinatorEvent> awaitWriteWith(Class<? extends CoordinatorEvent> type) {
    TestCluster.await(Duration.ofSeconds(15), () -> WRITES.stream().anyMatch(w -> count(w, type) > 0),
        "a write with a " + type.getSimpleName());
    return WRITES.stream().filter(w -> count(w, type) > 0).findFirst().orElseThrow();
  }

  private static long count(List<CoordinatorEvent> events, Class<? extends CoordinatorEvent> type) {
    return events.stream().filter(type::isInstance).count();
  }

  @Test
  void aJoiningNodeGetsItsShareOfTheUnusedShardsWithoutHandOffs() throws Exception {
    EntityProbe probe = new EntityProbe();
    EntityTypeKey<Msg> key = EntityTypeKey.create(Msg.class, "UpFront");
    WRITES.clear();
    try (TestCluster cluster = new TestCluster("UpFront")) {
      ActorSystem<Void> first = cluster.add(RECORDING);
      cluster.awaitUp(1);
      ClusterSharding.get(first).start(Entity.of(key, probe::behavior)
          .withSettings(ShardingSettings.create(first).withNumberOfShards(100).withTellUpFrontHomes(false)));
      assertEquals(100, count(awaitWriteWith(ShardHomeAllocated.class), ShardHomeAllocated.class),
          "every shard placed up front, in one write");

      ActorSystem<Void> second = cluster.add(RECORDING);
      cluster.awaitUp(2);
      ClusterSharding.get(second).start(Entity.of(key, probe::behavior)
          .withSettings(ShardingSettings.create(second).withNumberOfShards(100).withTellUpFrontHomes(false)));
      List<CoordinatorEvent> spread = awaitWriteWith(ShardHomeDeallocated.class);
      assertEquals(50, count(spread, ShardHomeDeallocated.class), "half of the unused shards move: " + spread);
      spread.stream().filter(ShardHomeAllocated.class::isInstance).map(ShardHomeAllocated.class::cast)
          .forEach(e -> assertEquals(second.address(), e.region().path().address(), e + " goes to the new node"));
      int writesAfterSpread = WRITES.indexOf(spread) + 1;

      Set<String> ids = new HashSet<>();
      for (int i = 0; i < 200; i++) {
        ids.add("e" + i);
        ClusterSharding.get(second).entityRefFor(key, "e" + i).tell(new Hello(1));
      }
      TestCluster.await(Duration.ofSeconds(15), () -> ids.stream().allMatch(id -> probe.received(id).equals(List.of(1))),
          "every entity got its message");
      Set<String> nodes = new HashSet<>();
      ids.forEach(id -> nodes.add(probe.startedOn(id)));
      assertEquals(Set.of(first.address().toString(), second.address().toString()), nodes,
          "entities run on both nodes");
      ids.forEach(id -> assertEquals(1, probe.starts(id), id + " started once: it never moved"));
      List<List<CoordinatorEvent>> later = WRITES.subList(writesAfterSpread, WRITES.size());
      assertTrue(later.stream().allMatch(w -> count(w, ShardHomeDeallocated.class) == 0),
          "nothing was left to rebalance: " + later);
    }
  }
}
