package dev.shardkit.sharding.spi;

import dev.shardkit.sharding.spi.CoordinatorEvent.ProxyRegistered;
import dev.shardkit.sharding.spi.CoordinatorEvent.ProxyTerminated;
import dev.shardkit.sharding.spi.CoordinatorEvent.RegionRegistered;
import dev.shardkit.sharding.spi.CoordinatorEvent.RegionTerminated;
import dev.shardkit.sharding.spi.CoordinatorEvent.ShardHomeAllocated;
import dev.shardkit.sharding.spi.CoordinatorEvent.ShardHomeDeallocated;
import dev.shardkit.sharding.internal.store.PersistentList;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.pekko.actor.typed.ActorRef;
import org.jspecify.annotations.Nullable;
import scala.collection.immutable.HashMap;
import scala.collection.immutable.HashMap$;
import scala.collection.immutable.HashSet;
import scala.collection.immutable.HashSet$;
import scala.collection.immutable.VectorMap;
import scala.collection.immutable.VectorMap$;
import scala.jdk.javaapi.CollectionConverters;

/**
 * The coordinator's state: the registered regions with their shards, the proxies, and each
 * shard's home. Immutable; {@link #applied} returns the state after an event and rejects events
 * that would break its invariants — above all, a shard never has two homes.
 *
 * <p>The state after an event shares all but the changed entries with the state before it
 * (persistent maps, which Pekko's Scala library brings): applying an event takes time
 * logarithmic in the number of shards and regions, plus, for a deallocation or a region's
 * termination, the size of that one region's shard list; so replaying a journal of n events is
 * not quadratic. The getters return unmodifiable views over these maps, made once per state.
 */
public final class CoordinatorState {
  private static final CoordinatorState EMPTY = new CoordinatorState(VectorMap$.MODULE$.empty(),
      HashSet$.MODULE$.empty(), HashMap$.MODULE$.empty());

  // Registration order, which regions() promises; each region's shards in allocation order.
  private final VectorMap<ActorRef<Object>, PersistentList<String>> regions;
  private final HashSet<ActorRef<Object>> proxies;
  private final HashMap<String, ActorRef<Object>> shards;
  private final Map<ActorRef<Object>, List<String>> regionsView;
  private final Set<ActorRef<Object>> proxiesView;
  private final Map<String, ActorRef<Object>> shardsView;

  private CoordinatorState(VectorMap<ActorRef<Object>, PersistentList<String>> regions,
      HashSet<ActorRef<Object>> proxies, HashMap<String, ActorRef<Object>> shards) {
    this.regions = regions;
    this.proxies = proxies;
    this.shards = shards;
    this.regionsView = Collections.unmodifiableMap(CollectionConverters.asJava(regions));
    this.proxiesView = Collections.unmodifiableSet(CollectionConverters.asJava(proxies));
    this.shardsView = Collections.unmodifiableMap(CollectionConverters.asJava(shards));
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
      check(!regions.contains(e.region()), "region %s is already registered", e.region());
      return new CoordinatorState(regions.updated(e.region(), PersistentList.empty()), proxies.excl(e.region()),
          shards);
    } else if (event instanceof ProxyRegistered e) {
      check(!proxies.contains(e.proxy()), "proxy %s is already registered", e.proxy());
      return new CoordinatorState(regions, proxies.incl(e.proxy()), shards);
    } else if (event instanceof RegionTerminated e) {
      check(regions.contains(e.region()), "terminated region %s is not registered", e.region());
      HashMap<String, ActorRef<Object>> s = shards;
      for (String lost : regions.apply(e.region())) {
        s = s.removed(lost);
      }
      return new CoordinatorState(regions.removed(e.region()), proxies, s);
    } else if (event instanceof ProxyTerminated e) {
      check(proxies.contains(e.proxy()), "terminated proxy %s is not registered", e.proxy());
      return new CoordinatorState(regions, proxies.excl(e.proxy()), shards);
    } else if (event instanceof ShardHomeAllocated e) {
      check(regions.contains(e.region()), "shard [%s] allocated to unregistered region %s", e.shardId(), e.region());
      ActorRef<Object> current = shardsView.get(e.shardId());
      check(current == null, "shard [%s] allocated to %s already has a home: %s", e.shardId(), e.region(), current);
      return new CoordinatorState(regions.updated(e.region(), regions.apply(e.region()).appended(e.shardId())),
          proxies, shards.updated(e.shardId(), e.region()));
    } else if (event instanceof ShardHomeDeallocated e) {
      ActorRef<Object> home = shardsView.get(e.shardId());
      check(home != null, "shard [%s] deallocated but it has no home", e.shardId());
      return new CoordinatorState(regions.updated(home, regions.apply(home).without(e.shardId())), proxies,
          shards.removed(e.shardId()));
    }
    throw new IllegalStateException("Unknown coordinator event " + event);
  }

  private static void check(boolean ok, String format, @Nullable Object... args) {
    if (!ok) {
      throw new IllegalStateException("Coordinator event rejected: " + String.format(format, args));
    }
  }

  /** The registered regions, in registration order, each with its shards in allocation order. */
  public Map<ActorRef<Object>, List<String>> regions() {
    return regionsView;
  }

  /** The registered proxies. */
  public Set<ActorRef<Object>> proxies() {
    return proxiesView;
  }

  /** Every allocated shard with its home. */
  public Map<String, ActorRef<Object>> shards() {
    return shardsView;
  }

  /** The home of a shard, if it has one. */
  public Optional<ActorRef<Object>> homeOf(String shardId) {
    return Optional.ofNullable(shardsView.get(shardId));
  }

  /** The events that rebuild this state from {@link #empty()}: a compact snapshot. */
  public List<CoordinatorEvent> toEvents() {
    List<CoordinatorEvent> events = new ArrayList<>();
    regionsView.keySet().forEach(r -> events.add(new RegionRegistered(r)));
    proxiesView.forEach(p -> events.add(new ProxyRegistered(p)));
    regionsView.forEach((r, list) -> list.forEach(s -> events.add(new ShardHomeAllocated(s, r))));
    return events;
  }

  @Override
  public boolean equals(@Nullable Object o) {
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
