package dev.shardkit.sharding.internal.region;

import dev.shardkit.sharding.internal.InternalApi;
import dev.shardkit.sharding.internal.delivery.Outbox;
import dev.shardkit.sharding.internal.util.ChunkedHashMap;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.typed.ActorRef;
import scala.collection.immutable.HashMap$;
import scala.collection.immutable.HashMap;
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
@InternalApi
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
      Set.of(), Set.of(), false);

  // Persistent maps: a changed table shares all but a small part with the one before it, so a
  // home change does not copy the table. The homes, which every caller's message looks up, are in
  // a map made for fast lookups; the index of local shards, which only the region reads, in Scala's.
  private final ChunkedHashMap<Home> homes;
  /**
   * The shards hosted here, kept apart so that the region's questions about them need no scan.
   * The shards of a remote region or node have no index: the region asks for them only when that
   * region or node goes or comes back, and a scan of the homes then costs less than keeping an
   * index on every home it learns (a placement up front tells it every shard's).
   */
  private final HashMap<String, ActorRef<Object>> locals;
  private final Set<Address> unreachable;
  private final Set<ActorRef<Object>> closing;
  private final boolean localHeld;

  private RoutingTable(ChunkedHashMap<Home> homes, HashMap<String, ActorRef<Object>> locals,
      Set<Address> unreachable, Set<ActorRef<Object>> closing, boolean localHeld) {
    this.homes = homes;
    this.locals = locals;
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
    return held == localHeld ? this : new RoutingTable(homes, locals, unreachable, closing, held);
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
   * putting its new one.
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
    Change change = new Change(this);
    // A bad entry throws before anything is published: the editor's half-made map is dropped.
    homes.forEach((shardId, home) -> {
      Change.check(shardId, home);
      change.indexLocal(shardId, editor.put(shardId, home), home);
    });
    return new RoutingTable(editor.done(), change.locals, unreachable, closing, localHeld);
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
    List<String> lost = shardsOf(region);
    if (lost.isEmpty() && stillClosing == closing) {
      return this;
    }
    ChunkedHashMap<Home> left = homes;
    for (String shardId : lost) {
      left = left.without(shardId);
    }
    // Remote homes only: the local index stays as it is.
    return new RoutingTable(left, locals, unreachable, stillClosing, localHeld);
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
    return new RoutingTable(homes, locals, unreachable, Set.copyOf(more), localHeld);
  }

  /** True while the shards of {@code region} are held for its link to close. */
  public boolean isClosing(ActorRef<Object> region) {
    return closing.contains(region);
  }

  /** The same homes, with {@code nodes} as the unreachable ones. */
  public RoutingTable withUnreachable(Set<Address> nodes) {
    return new RoutingTable(homes, locals, Set.copyOf(nodes), closing, localHeld);
  }

  /** The shards hosted by the region that owns this table: an unmodifiable view, made in constant time. */
  public Map<String, ActorRef<Object>> localShards() {
    return Collections.unmodifiableMap(CollectionConverters.asJava(locals));
  }

  /** The shards whose home is a region on {@code node}: a scan of the homes. */
  public List<String> shardsOn(Address node) {
    return remoteShards(region -> region.path().address().equals(node));
  }

  /** The shards that live in {@code region}, if it is another region: a scan of the homes. */
  public List<String> shardsOf(ActorRef<Object> region) {
    return remoteShards(region::equals);
  }

  private List<String> remoteShards(Predicate<ActorRef<Object>> ofRegion) {
    List<String> found = new ArrayList<>();
    homes.forEach((shardId, home) -> {
      if (home instanceof Remote r && ofRegion.test(r.region())) {
        found.add(shardId);
      }
    });
    return found;
  }

  /** One change of the table's homes, applied to its maps in turn: nothing is copied whole. */
  private static final class Change {
    private final RoutingTable from;
    private ChunkedHashMap<Home> homes;
    private HashMap<String, ActorRef<Object>> locals;

    Change(RoutingTable from) {
      this.from = from;
      this.homes = from.homes;
      this.locals = from.locals;
    }

    static void check(String shardId, Home home) {
      if (shardId == null || home == null) {
        throw new IllegalArgumentException("a routing table home needs a shard id and a home, got shard id ["
            + shardId + "] and home [" + home + "]");
      }
    }

    Change put(String shardId, Home home) {
      check(shardId, home);
      indexLocal(shardId, homes.get(shardId), home);
      homes = homes.with(shardId, home);
      return this;
    }

    /** The shard's home was {@code old} (null: none) and is {@code home} now (null: none). */
    void indexLocal(String shardId, Home old, Home home) {
      if (home instanceof Local l) {
        locals = locals.updated(shardId, l.shard());
      } else if (old instanceof Local) {
        locals = locals.removed(shardId);
      }
    }

    Change remove(String shardId) {
      indexLocal(shardId, homes.get(shardId), null);
      homes = homes.without(shardId);
      return this;
    }

    RoutingTable table() {
      return homes == from.homes ? from
          : new RoutingTable(homes, locals, from.unreachable, from.closing, from.localHeld);
    }
  }
}
