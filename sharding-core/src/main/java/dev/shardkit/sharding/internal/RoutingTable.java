package dev.shardkit.sharding.internal;

import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * A region's knowledge of where shards live: immutable, so the region can publish it to
 * {@code EntityRef}s, which read it without locks and send straight to a known home.
 */
public final class RoutingTable {
  /** Where a shard lives, as seen from one region. */
  public sealed interface Home {
    /** The actor a message for this shard goes to next. */
    ActorRef<Object> target();
  }

  /** The shard is hosted by this region: {@code shard} is its local actor. */
  public record Local(ActorRef<Object> shard) implements Home {
    @Override
    public ActorRef<Object> target() {
      return shard;
    }
  }

  /** The shard is hosted by another region. */
  public record Remote(ActorRef<Object> region) implements Home {
    @Override
    public ActorRef<Object> target() {
      return region;
    }
  }

  private static final RoutingTable EMPTY = new RoutingTable(Map.of());

  private final Map<String, Home> homes;

  private RoutingTable(Map<String, Home> homes) {
    this.homes = homes;
  }

  public static RoutingTable empty() {
    return EMPTY;
  }

  /** The shard's home, or null when it is not known. */
  public Home home(String shardId) {
    return homes.get(shardId);
  }

  /** The actor to send a message for the shard to, or null when the home is not known. */
  public ActorRef<Object> target(String shardId) {
    Home h = homes.get(shardId);
    return h == null ? null : h.target();
  }

  public RoutingTable withHome(String shardId, Home home) {
    Map<String, Home> copy = new HashMap<>(homes);
    copy.put(shardId, home);
    return new RoutingTable(Collections.unmodifiableMap(copy));
  }

  public RoutingTable without(String shardId) {
    if (!homes.containsKey(shardId)) {
      return this;
    }
    Map<String, Home> copy = new HashMap<>(homes);
    copy.remove(shardId);
    return new RoutingTable(Collections.unmodifiableMap(copy));
  }

  /** The table without every shard that lived in {@code region}. */
  public RoutingTable withoutRegion(ActorRef<Object> region) {
    Map<String, Home> copy = new HashMap<>(homes);
    copy.values().removeIf(h -> h instanceof Remote r && r.region().equals(region));
    return copy.size() == homes.size() ? this : new RoutingTable(Collections.unmodifiableMap(copy));
  }

  /** The shards hosted by the region that owns this table. */
  public Map<String, ActorRef<Object>> localShards() {
    Map<String, ActorRef<Object>> local = new HashMap<>();
    homes.forEach((id, h) -> {
      if (h instanceof Local l) {
        local.put(id, l.shard());
      }
    });
    return local;
  }

  /** The shards that live in {@code region}. */
  public List<String> shardsOf(ActorRef<Object> region) {
    return homes.entrySet().stream()
        .filter(e -> e.getValue() instanceof Remote r && r.region().equals(region))
        .map(Map.Entry::getKey)
        .toList();
  }

  public int size() {
    return homes.size();
  }
}
