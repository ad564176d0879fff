package dev.shardkit.sharding.internal;

import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * A region's knowledge of where shards live: immutable, so the region can publish it to
 * {@code EntityRef}s, which read it without locks and send straight to a known home.
 *
 * <p>It also knows which nodes are unreachable. A shard whose home is on such a node is
 * <em>held</em>: its home is still known ({@link #knownHome}), but it is not routable
 * ({@link #home} is null), so messages for it wait in the region instead of vanishing into a node
 * that may be dead. They go on when the node is reachable again, or to the shard's next home
 * once the node is removed.
 *
 * <p>Likewise the shards hosted here are held while this node's delivery gate is closed
 * ({@link #localHeld}): the node may have been downed while it was not looking, so callers' messages
 * for them wait in the region, within its bounded buffers, until the node is confirmed a member.
 *
 * <p>Internal API: public for the benchmarks module's micro-benchmarks; not for applications, and
 * it may change in any release.
 */
public final class RoutingTable {
  /** Where a shard lives, as seen from one region. */
  public sealed interface Home {
    /** The actor the shard lives in or behind: its local shard actor, or the remote region. */
    ActorRef<Object> target();
  }

  /** The shard is hosted by this region: {@code shard} is its local actor. */
  public record Local(ActorRef<Object> shard) implements Home {
    @Override
    public ActorRef<Object> target() {
      return shard;
    }
  }

  /**
   * The shard is hosted by another region; messages for it go into {@code outbox}, this region's
   * link to that region.
   */
  public record Remote(ActorRef<Object> region, Outbox outbox) implements Home {
    @Override
    public ActorRef<Object> target() {
      return region;
    }
  }

  private static final RoutingTable EMPTY = new RoutingTable(Map.of(), Set.of(), Set.of(), false);

  private final Map<String, Home> homes;
  private final Set<Address> unreachable;
  private final Set<ActorRef<Object>> closing;
  private final boolean localHeld;

  private RoutingTable(Map<String, Home> homes, Set<Address> unreachable, Set<ActorRef<Object>> closing,
      boolean localHeld) {
    this.homes = homes;
    this.unreachable = unreachable;
    this.closing = closing;
    this.localHeld = localHeld;
  }

  public static RoutingTable empty() {
    return EMPTY;
  }

  /** Where to send a message for the shard now, or null when its home is unknown or held. */
  public Home home(String shardId) {
    Home h = homes.get(shardId);
    return h != null && isHeld(h) ? null : h;
  }

  /** The shard's recorded home, routable or held; null when it is not known. */
  public Home knownHome(String shardId) {
    return homes.get(shardId);
  }

  /**
   * True when messages for {@code home} must wait: it is on an unreachable node, or it is a region
   * that is gone and whose link is being closed (what the link hands back goes first), or it is
   * local while this node waits to be confirmed a member.
   */
  public boolean isHeld(Home home) {
    if (home instanceof Local) {
      return localHeld;
    }
    return home instanceof Remote r && (!unreachable.isEmpty() && unreachable.contains(r.region().path().address())
        || !closing.isEmpty() && closing.contains(r.region()));
  }

  /** True while the shards hosted here are held. */
  public boolean localHeld() {
    return localHeld;
  }

  /** The same homes, with the shards hosted here held or not. */
  public RoutingTable withLocalHeld(boolean held) {
    return held == localHeld ? this : new RoutingTable(homes, unreachable, closing, held);
  }

  /** The nodes this table treats as unreachable. */
  public Set<Address> unreachable() {
    return unreachable;
  }

  public RoutingTable withHome(String shardId, Home home) {
    Map<String, Home> copy = new HashMap<>(homes);
    copy.put(shardId, home);
    return new RoutingTable(Collections.unmodifiableMap(copy), unreachable, closing, localHeld);
  }

  /** The same table with every one of {@code more} recorded, each replacing what the shard had. */
  public RoutingTable withHomes(Map<String, Home> more) {
    if (more.isEmpty()) {
      return this;
    }
    Map<String, Home> copy = new HashMap<>(homes);
    copy.putAll(more);
    return new RoutingTable(Collections.unmodifiableMap(copy), unreachable, closing, localHeld);
  }

  public RoutingTable without(String shardId) {
    if (!homes.containsKey(shardId)) {
      return this;
    }
    Map<String, Home> copy = new HashMap<>(homes);
    copy.remove(shardId);
    return new RoutingTable(Collections.unmodifiableMap(copy), unreachable, closing, localHeld);
  }

  /** The table without every shard that lived in {@code region}, which is no longer closing either. */
  public RoutingTable withoutRegion(ActorRef<Object> region) {
    Map<String, Home> copy = new HashMap<>(homes);
    copy.values().removeIf(h -> h instanceof Remote r && r.region().equals(region));
    Set<ActorRef<Object>> stillClosing = closing;
    if (closing.contains(region)) {
      Set<ActorRef<Object>> rest = new HashSet<>(closing);
      rest.remove(region);
      stillClosing = Set.copyOf(rest);
    }
    return copy.size() == homes.size() && stillClosing == closing ? this
        : new RoutingTable(Collections.unmodifiableMap(copy), unreachable, stillClosing, localHeld);
  }

  /**
   * The same homes, with the shards of {@code region} held: it is gone, and its link is being
   * closed; {@link #withoutRegion} ends that.
   */
  public RoutingTable withClosing(ActorRef<Object> region) {
    if (closing.contains(region)) {
      return this;
    }
    Set<ActorRef<Object>> more = new HashSet<>(closing);
    more.add(region);
    return new RoutingTable(homes, unreachable, Set.copyOf(more), localHeld);
  }

  /** True while the shards of {@code region} are held for its link to close. */
  public boolean isClosing(ActorRef<Object> region) {
    return closing.contains(region);
  }

  /** The same homes, with {@code nodes} as the unreachable ones. */
  public RoutingTable withUnreachable(Set<Address> nodes) {
    return new RoutingTable(homes, Set.copyOf(nodes), closing, localHeld);
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

  /** The shards whose home is on {@code node}. */
  public List<String> shardsOn(Address node) {
    return remoteShardsWhere(r -> r.region().path().address().equals(node));
  }

  /** The shards that live in {@code region}. */
  public List<String> shardsOf(ActorRef<Object> region) {
    return remoteShardsWhere(r -> r.region().equals(region));
  }

  private List<String> remoteShardsWhere(java.util.function.Predicate<Remote> test) {
    return homes.entrySet().stream()
        .filter(e -> e.getValue() instanceof Remote r && test.test(r))
        .map(Map.Entry::getKey)
        .toList();
  }
}
