package dev.shardkit.sharding.internal.sim;

import dev.shardkit.sharding.MessageExtractor;
import dev.shardkit.sharding.internal.region.SimRegionHost;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * One entity type of the simulated cluster: its model and settings, drawn per seed; its
 * coordinator singleton and store; on each node its region, the incarnations of its entities that
 * run there and its shards' hosts; and its remember-entities store. Types share the nodes, their
 * membership, network and delivery gates, and nothing else, as they do in shardkit: a region,
 * coordinator, link and shard belong to one type.
 */
final class SimEntityType {

  final int index;
  final String name;
  final SimModel model;
  final CoordinatorOnlySim.Singleton singleton;
  final SimRegionHost.Settings settings;
  /** How many entities the type has; traffic picks among them. */
  final int entities;
  final OptionalInt limit;
  final SimRememberStore rememberStore;
  final MessageExtractor<Object, Object> extractor;
  /** Its region on each node, by node. */
  final Map<Integer, SimRegionHost> regions = new TreeMap<>();
  /** Its live entity incarnations, by node, in the order they started. */
  final Map<Integer, List<SimEntity>> live = new TreeMap<>();
  /** The nodes whose region of this type has shut down after the node began to leave. */
  final java.util.Set<Integer> shutDown = new TreeSet<>();

  /**
   * @param draw the type's own draws (the first type's are the seed's, as when there was one type)
   * @param freezeOldest the freeze-oldest family's settings: a link's window (8 batches, as by
   *     default) and batches of about a second of a node's traffic (as 1 000 messages are at the
   *     soak test's 1 000 a second), so that what is held while a node is away rides in few batches
   */
  SimEntityType(int index, SimModel model, CoordinatorOnlySim.Singleton singleton, SimRng draw, int nodes,
      int shards, boolean freezeOldest, CoordinatorOnlySim sim) {
    this.index = index;
    this.name = singleton.typeName;
    this.model = model;
    this.singleton = singleton;
    String s = "cluster";
    int bufferSize = draw.between(s, 200, 2000);
    int batchMax = draw.between(s, 8, 64);
    int window = draw.between(s, 2, 8);
    if (freezeOldest) {
      batchMax = draw.between("cluster.freezeOldest", 32, 128);
      window = 8;
    }
    this.entities = draw.between(s, 20, 100);
    // A limit that bites: between half and all of a node's even share of the entities.
    int even = Math.max(2, entities / nodes);
    this.limit = model.limited() ? OptionalInt.of(draw.between("cluster.limit", Math.max(1, even / 2), even))
        : OptionalInt.empty();
    this.settings = new SimRegionHost.Settings(bufferSize, batchMax, window, Duration.ofSeconds(1),
        Duration.ofSeconds(1), Duration.ofSeconds(10), model.redelivering(), model.remembering(), limit);
    this.rememberStore = new SimRememberStore(sim, SimRememberStore.Behaviour.draw(draw));
    this.extractor = new MessageExtractor<>() {
      @Override
      public String entityId(Object envelope) {
        return ((SimMsg) envelope).entityId();
      }

      @Override
      public String shardId(String entityId) {
        return Integer.toString(Math.floorMod(entityId.hashCode(), shards));
      }

      @Override
      public Object unwrapMessage(Object envelope) {
        return envelope;
      }
    };
  }

  boolean remembering() {
    return model.remembering();
  }

  /** The id of the type's entity number {@code pick}: the first type's are {@code e<n>}, as when there was one type. */
  String entityId(int pick) {
    return index == 0 ? "e" + pick : "t" + index + "e" + pick;
  }

  /** Whether {@code entityId} is one of this type's entities. */
  boolean owns(String entityId) {
    return index == 0 ? entityId.startsWith("e") : entityId.startsWith("t" + index + "e");
  }

  /** The live incarnations of this type's entities on {@code node}. */
  List<SimEntity> liveOn(int node) {
    return live.computeIfAbsent(node, n -> new ArrayList<>());
  }

  /** Its region on {@code node}, if the node has one. */
  SimRegionHost region(int node) {
    return regions.get(node);
  }
}
