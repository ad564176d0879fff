package dev.shardkit.sharding.spi;

import dev.shardkit.sharding.spi.CoordinatorEvent.ProxyRegistered;
import dev.shardkit.sharding.spi.CoordinatorEvent.ProxyTerminated;
import dev.shardkit.sharding.spi.CoordinatorEvent.RegionRegistered;
import dev.shardkit.sharding.spi.CoordinatorEvent.RegionTerminated;
import dev.shardkit.sharding.spi.CoordinatorEvent.ShardHomeAllocated;
import dev.shardkit.sharding.spi.CoordinatorEvent.ShardHomeDeallocated;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * The coordinator's state: the registered regions with their shards, the proxies, and each
 * shard's home. Immutable; {@link #applied} returns the state after an event and rejects events
 * that would break its invariants — above all, a shard never has two homes.
 */
public final class CoordinatorState {
  private static final CoordinatorState EMPTY = new CoordinatorState(Map.of(), Set.of(), Map.of());

  private final Map<ActorRef<Object>, List<String>> regions;
  private final Set<ActorRef<Object>> proxies;
  private final Map<String, ActorRef<Object>> shards;

  private CoordinatorState(Map<ActorRef<Object>, List<String>> regions, Set<ActorRef<Object>> proxies,
      Map<String, ActorRef<Object>> shards) {
    this.regions = regions;
    this.proxies = proxies;
    this.shards = shards;
  }

  /** The state of a coordinator that has never stored anything. */
  public static CoordinatorState empty() {
    return EMPTY;
  }

  /**
   * The state after {@code event}.
   *
   * @throws IllegalStateException if the event does not fit this state: a region registered
   *     twice, a shard allocated while it has a home or to an unknown region, a shard deallocated
   *     that has no home, an unknown region or proxy terminated
   */
  public CoordinatorState applied(CoordinatorEvent event) {
    if (event instanceof RegionRegistered e) {
      check(!regions.containsKey(e.region()), "region %s is already registered", e.region());
      Map<ActorRef<Object>, List<String>> r = new LinkedHashMap<>(regions);
      r.put(e.region(), List.of());
      Set<ActorRef<Object>> p = proxies;
      if (proxies.contains(e.region())) {
        p = new HashSet<>(proxies);
        p.remove(e.region());
        p = Collections.unmodifiableSet(p);
      }
      return new CoordinatorState(Collections.unmodifiableMap(r), p, shards);
    } else if (event instanceof ProxyRegistered e) {
      check(!proxies.contains(e.proxy()), "proxy %s is already registered", e.proxy());
      Set<ActorRef<Object>> p = new HashSet<>(proxies);
      p.add(e.proxy());
      return new CoordinatorState(regions, Collections.unmodifiableSet(p), shards);
    } else if (event instanceof RegionTerminated e) {
      check(regions.containsKey(e.region()), "terminated region %s is not registered", e.region());
      Map<ActorRef<Object>, List<String>> r = new LinkedHashMap<>(regions);
      List<String> lost = r.remove(e.region());
      Map<String, ActorRef<Object>> s = new HashMap<>(shards);
      lost.forEach(s::remove);
      return new CoordinatorState(Collections.unmodifiableMap(r), proxies, Collections.unmodifiableMap(s));
    } else if (event instanceof ProxyTerminated e) {
      check(proxies.contains(e.proxy()), "terminated proxy %s is not registered", e.proxy());
      Set<ActorRef<Object>> p = new HashSet<>(proxies);
      p.remove(e.proxy());
      return new CoordinatorState(regions, Collections.unmodifiableSet(p), shards);
    } else if (event instanceof ShardHomeAllocated e) {
      check(regions.containsKey(e.region()), "shard [%s] allocated to unregistered region %s", e.shardId(), e.region());
      ActorRef<Object> current = shards.get(e.shardId());
      check(current == null, "shard [%s] allocated to %s already has a home: %s", e.shardId(), e.region(), current);
      Map<ActorRef<Object>, List<String>> r = new LinkedHashMap<>(regions);
      List<String> list = new ArrayList<>(r.get(e.region()));
      list.add(e.shardId());
      r.put(e.region(), Collections.unmodifiableList(list));
      Map<String, ActorRef<Object>> s = new HashMap<>(shards);
      s.put(e.shardId(), e.region());
      return new CoordinatorState(Collections.unmodifiableMap(r), proxies, Collections.unmodifiableMap(s));
    } else if (event instanceof ShardHomeDeallocated e) {
      ActorRef<Object> home = shards.get(e.shardId());
      check(home != null, "shard [%s] deallocated but it has no home", e.shardId());
      Map<ActorRef<Object>, List<String>> r = new LinkedHashMap<>(regions);
      List<String> list = new ArrayList<>(r.get(home));
      list.remove(e.shardId());
      r.put(home, Collections.unmodifiableList(list));
      Map<String, ActorRef<Object>> s = new HashMap<>(shards);
      s.remove(e.shardId());
      return new CoordinatorState(Collections.unmodifiableMap(r), proxies, Collections.unmodifiableMap(s));
    }
    throw new IllegalStateException("Unknown coordinator event " + event);
  }

  private static void check(boolean ok, String format, Object... args) {
    if (!ok) {
      throw new IllegalStateException("Coordinator event rejected: " + String.format(format, args));
    }
  }

  /** The registered regions, in registration order, each with its shards in allocation order. */
  public Map<ActorRef<Object>, List<String>> regions() {
    return regions;
  }

  /** The registered proxies. */
  public Set<ActorRef<Object>> proxies() {
    return proxies;
  }

  /** Every allocated shard with its home. */
  public Map<String, ActorRef<Object>> shards() {
    return shards;
  }

  /** The home of a shard, if it has one. */
  public Optional<ActorRef<Object>> homeOf(String shardId) {
    return Optional.ofNullable(shards.get(shardId));
  }

  /** The events that rebuild this state from {@link #empty()}: a compact snapshot. */
  public List<CoordinatorEvent> toEvents() {
    List<CoordinatorEvent> events = new ArrayList<>();
    regions.keySet().forEach(r -> events.add(new RegionRegistered(r)));
    proxies.forEach(p -> events.add(new ProxyRegistered(p)));
    regions.forEach((r, list) -> list.forEach(s -> events.add(new ShardHomeAllocated(s, r))));
    return events;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof CoordinatorState other && regions.equals(other.regions) && proxies.equals(other.proxies);
  }

  @Override
  public int hashCode() {
    return regions.hashCode() * 31 + proxies.hashCode();
  }

  @Override
  public String toString() {
    return "CoordinatorState(regions=" + regions.size() + ", proxies=" + proxies.size() + ", shards=" + shards.size() + ")";
  }
}
