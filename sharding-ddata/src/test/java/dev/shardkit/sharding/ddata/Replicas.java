package dev.shardkit.sharding.ddata;

import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.shardkit.sharding.ddata.internal.CoordinatorStateReader;
import dev.shardkit.sharding.ddata.internal.ReplicaMajority;
import dev.shardkit.sharding.ddata.internal.Replicators;
import dev.shardkit.sharding.spi.CoordinatorEvent;
import dev.shardkit.sharding.spi.CoordinatorState;
import dev.shardkit.sharding.spi.CoordinatorStateStore;
import dev.shardkit.sharding.testkit.TestCluster;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorRefResolver;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.Cluster;
import org.apache.pekko.cluster.Member;

/** Helpers for tests that drive stores on the nodes of a {@link TestCluster}. */
final class Replicas {
  private Replicas() {}

  static <T> T get(CompletionStage<T> stage) throws Exception {
    return stage.toCompletableFuture().get(60, TimeUnit.SECONDS);
  }

  /** The error a stage failed with; fails the test if it succeeded. */
  static Throwable failure(CompletionStage<?> stage) {
    return assertThrows(ExecutionException.class, () -> get(stage)).getCause();
  }

  /**
   * A real actor on node {@code owner} standing in for a region or proxy, as node {@code viewer}
   * (the coordinator's) knows it: a ref that serializes like one.
   */
  static ActorRef<Object> fakeRegion(TestCluster cluster, int owner, String name, int viewer) {
    ActorRef<Object> ref = cluster.system(owner).systemActorOf(Behaviors.empty(), name, Props.empty());
    String serialized = ActorRefResolver.get(cluster.system(owner)).toSerializationFormat(ref);
    return ActorRefResolver.get(cluster.system(viewer)).resolveActorRef(serialized);
  }

  /** A state with its refs as full addresses, comparable between the nodes that hold it. */
  record Canonical(Map<String, List<String>> regions, Set<String> proxies) {}

  static Canonical canonical(TestCluster cluster, CoordinatorState state, int holder) {
    ActorRefResolver resolver = ActorRefResolver.get(cluster.system(holder));
    Map<String, List<String>> regions = new LinkedHashMap<>();
    state.regions().forEach((r, shards) -> regions.put(resolver.toSerializationFormat(r), shards));
    Set<String> proxies = new HashSet<>();
    state.proxies().forEach(p -> proxies.add(resolver.toSerializationFormat(p)));
    return new Canonical(regions, proxies);
  }

  /** Stores each event through the store, as the coordinator does, and returns the final state. */
  static CoordinatorState storeAll(CoordinatorStateStore store, CoordinatorState state, CoordinatorEvent... events)
      throws Exception {
    for (CoordinatorEvent event : events) {
      state = state.applied(event);
      get(store.store(List.of(event), state));
    }
    return state;
  }

  /**
   * The coordinator state of type {@code typeName} as a loading coordinator on {@code node} reads
   * it, by majority; without taking over, so it disturbs no serving coordinator.
   */
  static CoordinatorStateReader.Stored storedState(TestCluster cluster, int node, String typeName) throws Exception {
    ActorSystem<Void> system = cluster.system(node);
    ReplicaMajority majority = new ReplicaMajority(system, Optional.empty(), DDataSettings.create(system),
        Replicators.get(system).replicatorFor(Optional.empty()), "Entity type [" + typeName + "]", "closed");
    return get(new CoordinatorStateReader(typeName, majority, ActorRefResolver.get(system)::resolveActorRef).read())
        .orElseThrow(() -> new AssertionError("no coordinator state of " + typeName + " is stored"));
  }

  /** How many members node {@code node} knows, whatever their status. */
  static int members(TestCluster cluster, int node) {
    int n = 0;
    for (Member ignored : Cluster.get(Adapter.toClassic(cluster.system(node))).state().getMembers()) {
      n++;
    }
    return n;
  }
}
