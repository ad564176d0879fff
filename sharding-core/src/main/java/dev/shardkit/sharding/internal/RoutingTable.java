package dev.shardkit.sharding.internal;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.typed.ActorRef;
import scala.Function0;
import scala.collection.immutable.HashMap;
import scala.collection.immutable.HashMap$;
import scala.collection.immutable.HashSet;
import scala.collection.immutable.HashSet$;
import scala.collection.mutable.ReusableBuilder;
import scala.jdk.javaapi.CollectionConverters;

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

  private static final RoutingTable EMPTY = new RoutingTable(ChunkedHashMap.empty(), HashMap$.MODULE$.empty(),
      HashMap$.MODULE$.empty(), Set.of(), Set.of(), false);
  private static final HashSet<String> EMPTY_SHARDS = HashSet$.MODULE$.empty();
  private static final Function0<HashSet<String>> NO_SHARDS = () -> EMPTY_SHARDS;

  // Persistent maps: a changed table shares all but a small part with the one before it, so a
  // home change does not copy the table. The homes, which every caller's message looks up, are in
  // a map made for fast lookups; the indexes, which only the region reads, in Scala's.
  private final ChunkedHashMap<Home> homes;
  /** The shards hosted here, kept apart so that the region's questions about them need no scan. */
  private final HashMap<String, ActorRef<Object>> locals;
  /** The shards of each remote region, so that a node's or region's shards need no scan either. */
  private final HashMap<ActorRef<Object>, HashSet<String>> byRegion;
  private final Set<Address> unreachable;
  private final Set<ActorRef<Object>> closing;
  private final boolean localHeld;

  private RoutingTable(ChunkedHashMap<Home> homes, HashMap<String, ActorRef<Object>> locals,
      HashMap<ActorRef<Object>, HashSet<String>> byRegion, Set<Address> unreachable, Set<ActorRef<Object>> closing,
      boolean localHeld) {
    this.homes = homes;
    this.locals = locals;
    this.byRegion = byRegion;
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
    return held == localHeld ? this : new RoutingTable(homes, locals, byRegion, unreachable, closing, held);
  }

  /** The nodes this table treats as unreachable. */
  public Set<Address> unreachable() {
    return unreachable;
  }

  /**
   * The same table with the shard living in {@code home}.
   *
   * @throws IllegalArgumentException if the shard id or the home is null
   */
  public RoutingTable withHome(String shardId, Home home) {
    return new Change(this).put(shardId, home).table();
  }

  /**
   * The same table with every shard of {@code homes} living in the home given for it: one change
   * for many homes, as when a region learns the homes placed up front all at once. The same table
   * as {@link #withHome} for each in turn, made in one pass: each shard's old home comes from
   * putting its new one, and each region's shards are added to its index in bulk.
   *
   * @throws IllegalArgumentException if {@code homes} is null or holds a null shard id or home
   */
  public RoutingTable withHomes(Map<String, Home> homes) {
    if (homes == null) {
      throw new IllegalArgumentException("the homes for the routing table must not be null");
    }
    if (homes.isEmpty()) {
      return this;
    }
    ChunkedHashMap.Editor<Home> editor = this.homes.edit(homes.size());
    IndexChange index = new IndexChange(locals, byRegion);
    // A bad entry throws before anything is published: the editor's half-made map is dropped.
    homes.forEach((shardId, home) -> {
      Change.check(shardId, home);
      index.moved(shardId, editor.put(shardId, home), home);
    });
    return new RoutingTable(editor.done(), index.locals, index.byRegion(), unreachable, closing, localHeld);
  }

  public RoutingTable without(String shardId) {
    if (!homes.contains(shardId)) {
      return this;
    }
    return new Change(this).remove(shardId).table();
  }

  /** The table without every shard that lived in {@code region}, which is no longer closing either. */
  public RoutingTable withoutRegion(ActorRef<Object> region) {
    Set<ActorRef<Object>> stillClosing = closing;
    if (closing.contains(region)) {
      Set<ActorRef<Object>> rest = new java.util.HashSet<>(closing);
      rest.remove(region);
      stillClosing = Set.copyOf(rest);
    }
    HashSet<String> lost = byRegion.getOrElse(region, NO_SHARDS);
    if (lost.isEmpty() && stillClosing == closing) {
      return this;
    }
    Change change = new Change(this);
    lost.foreach(shardId -> change.remove(shardId));
    RoutingTable t = change.table();
    return new RoutingTable(t.homes, t.locals, t.byRegion, unreachable, stillClosing, localHeld);
  }

  /**
   * The same homes, with the shards of {@code region} held: it is gone, and its link is being
   * closed; {@link #withoutRegion} ends that.
   */
  public RoutingTable withClosing(ActorRef<Object> region) {
    if (closing.contains(region)) {
      return this;
    }
    Set<ActorRef<Object>> more = new java.util.HashSet<>(closing);
    more.add(region);
    return new RoutingTable(homes, locals, byRegion, unreachable, Set.copyOf(more), localHeld);
  }

  /** True while the shards of {@code region} are held for its link to close. */
  public boolean isClosing(ActorRef<Object> region) {
    return closing.contains(region);
  }

  /** The same homes, with {@code nodes} as the unreachable ones. */
  public RoutingTable withUnreachable(Set<Address> nodes) {
    return new RoutingTable(homes, locals, byRegion, Set.copyOf(nodes), closing, localHeld);
  }

  /** The shards hosted by the region that owns this table: an unmodifiable view, made in constant time. */
  public Map<String, ActorRef<Object>> localShards() {
    return Collections.unmodifiableMap(CollectionConverters.asJava(locals));
  }

  /** The shards whose home is on {@code node}. */
  public List<String> shardsOn(Address node) {
    List<String> on = new ArrayList<>();
    byRegion.foreachEntry((region, shards) -> {
      if (region.path().address().equals(node)) {
        shards.foreach(on::add);
      }
      return null;
    });
    return on;
  }

  /** The shards that live in {@code region}. */
  public List<String> shardsOf(ActorRef<Object> region) {
    List<String> of = new ArrayList<>();
    byRegion.getOrElse(region, NO_SHARDS).foreach(of::add);
    return of;
  }

  /**
   * The indexes' part of a change of many homes: each region's leaving and joining shards are
   * gathered first and its index changed once, built in bulk when the region is new to it, instead
   * of the whole index changed for every shard.
   */
  private static final class IndexChange {
    private HashMap<String, ActorRef<Object>> locals;
    private final HashMap<ActorRef<Object>, HashSet<String>> byRegionBefore;
    /** The shards leaving each region's index, and those joining it (as its remote home). */
    private final java.util.Map<ActorRef<Object>, List<String>> leaving = new java.util.HashMap<>();
    private final java.util.Map<ActorRef<Object>, List<String>> joining = new java.util.HashMap<>();

    IndexChange(HashMap<String, ActorRef<Object>> locals, HashMap<ActorRef<Object>, HashSet<String>> byRegion) {
      this.locals = locals;
      this.byRegionBefore = byRegion;
    }

    /** The shard's home was {@code old} (null: none) and is {@code home} now. */
    void moved(String shardId, Home old, Home home) {
      if (old instanceof Local) {
        locals = locals.removed(shardId);
      } else if (old instanceof Remote r) {
        leaving.computeIfAbsent(r.region(), k -> new ArrayList<>()).add(shardId);
      }
      if (home instanceof Local l) {
        locals = locals.updated(shardId, l.shard());
      } else if (home instanceof Remote r) {
        joining.computeIfAbsent(r.region(), k -> new ArrayList<>()).add(shardId);
      }
    }

    /**
     * The regions' index after the change: leaving shards out first, so that a shard told the home
     * it had stays in its region's index.
     */
    HashMap<ActorRef<Object>, HashSet<String>> byRegion() {
      HashMap<ActorRef<Object>, HashSet<String>> byRegion = byRegionBefore;
      for (var left : leaving.entrySet()) {
        HashSet<String> rest = byRegion.apply(left.getKey());
        for (String shardId : left.getValue()) {
          rest = rest.excl(shardId);
        }
        byRegion = rest.isEmpty() ? byRegion.removed(left.getKey()) : byRegion.updated(left.getKey(), rest);
      }
      for (var joined : joining.entrySet()) {
        HashSet<String> before = byRegion.getOrElse(joined.getKey(), NO_SHARDS);
        byRegion = byRegion.updated(joined.getKey(), joined(before, joined.getValue()));
      }
      return byRegion;
    }

    /**
     * {@code before} with the shards of {@code ids}: built at once into a region new to the index;
     * into a region known before, one insert each, as a merge of two sets walks both, which costs
     * more when the region already has far more shards than join it.
     */
    private static HashSet<String> joined(HashSet<String> before, List<String> ids) {
      if (before.isEmpty()) {
        ReusableBuilder<String, HashSet<String>> built = HashSet$.MODULE$.newBuilder();
        ids.forEach(built::addOne);
        return built.result();
      }
      HashSet<String> after = before;
      for (String shardId : ids) {
        after = after.incl(shardId);
      }
      return after;
    }
  }

  /** One change of the table's homes, applied to its maps in turn: nothing is copied whole. */
  private static final class Change {
    private final RoutingTable from;
    private ChunkedHashMap<Home> homes;
    private HashMap<String, ActorRef<Object>> locals;
    private HashMap<ActorRef<Object>, HashSet<String>> byRegion;

    Change(RoutingTable from) {
      this.from = from;
      this.homes = from.homes;
      this.locals = from.locals;
      this.byRegion = from.byRegion;
    }

    static void check(String shardId, Home home) {
      if (shardId == null || home == null) {
        throw new IllegalArgumentException("a routing table home needs a shard id and a home, got shard id ["
            + shardId + "] and home [" + home + "]");
      }
    }

    Change put(String shardId, Home home) {
      check(shardId, home);
      index(shardId, home);
      homes = homes.with(shardId, home);
      return this;
    }

    /** Moves the shard in the indexes from the home it had (if any) to {@code home}. */
    void index(String shardId, Home home) {
      unindex(shardId, homes.get(shardId));
      if (home instanceof Local l) {
        locals = locals.updated(shardId, l.shard());
      } else if (home instanceof Remote r) {
        byRegion = byRegion.updated(r.region(), byRegion.getOrElse(r.region(), NO_SHARDS).incl(shardId));
      }
    }

    Change remove(String shardId) {
      unindex(shardId, homes.get(shardId));
      homes = homes.without(shardId);
      return this;
    }

    private void unindex(String shardId, Home old) {
      if (old instanceof Local) {
        locals = locals.removed(shardId);
      } else if (old instanceof Remote r) {
        HashSet<String> rest = byRegion.apply(r.region()).excl(shardId);
        byRegion = rest.isEmpty() ? byRegion.removed(r.region()) : byRegion.updated(r.region(), rest);
      }
    }

    RoutingTable table() {
      return homes == from.homes ? from
          : new RoutingTable(homes, locals, byRegion, from.unreachable, from.closing, from.localHeld);
    }
  }
}
