package dev.shardkit.sharding.internal.region;

import dev.shardkit.sharding.internal.region.RoutingTable.Home;
import dev.shardkit.sharding.internal.region.RoutingTable.Local;
import dev.shardkit.sharding.internal.region.RoutingTable.Remote;
import dev.shardkit.sharding.internal.util.MessageBuffers;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.Deliver;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * A region's routing state: the {@link RoutingTable} it publishes to callers, the messages it
 * holds back (per shard, under one limit: {@code buffer-size}), and the other nodes whose shards
 * it holds ({@link HeldNodes}). Owned by the region actor, not thread-safe; it sends nothing.
 *
 * <p>The rules it keeps:
 *
 * <ul>
 *   <li>A message is <b>held</b> when its shard's home is not known (the first one held for the
 *       shard asks the coordinator), or is known and held by the table: on an unreachable or
 *       downed node, in a region that is gone and whose link is closing, or here while this node's
 *       delivery gate is closed. Past the limit it is refused.
 *   <li>Held messages are <b>released</b>, oldest first, to be routed again by the new table
 *       before that table is published (so that no shortcut message overtakes them): when the
 *       shard gets a home, when its node is reachable again (unless it was downed: its shards are
 *       about to move), and when the gate opens (the shards hosted here).
 *   <li>What the closed link to a region that is gone <b>hands back</b> goes in front of what was
 *       held for the same shards since, whatever the limit: it is older, and was admitted once.
 *       So that it can, the last other region each shard was routed to is remembered, also past
 *       a hand-off ({@link #mayHandBack}): while that region is held and its link open, no home
 *       elsewhere is believed for the shard.
 *   <li>The coordinator is <b>asked again</b> for the held shards whose home is not known; not for
 *       a held known home, which would be given again.
 * </ul>
 */
final class RegionRouting {

  /** What {@link #route} decided for a message. */
  sealed interface Route {}

  /** Send it to the shard hosted here. */
  record ToShard(ActorRef<Object> shard) implements Route {}

  /** Send it into the link to the remote region that hosts the shard. */
  record ToRegion(Remote home) implements Route {}

  /**
   * It is held. {@code askForHome}: it is the first message held for a shard whose home is not
   * known, so the coordinator is to be asked (later ones wait for the same answer).
   */
  record Held(boolean askForHome) implements Route {}

  /** It is not held because the limit is reached: drop it, for {@code reason}. */
  record Refused(String reason) implements Route {}

  /**
   * The shards held for a node changed.
   *
   * @param reachable the node is reachable again (and not downed): {@code released} goes on
   * @param affected the shards whose home is on the node
   * @param released what was held for them, to be routed again, oldest first per shard
   */
  record NodeChange(boolean reachable, List<String> affected, List<Deliver> released) {

    /** What became of the node and its shards' messages; nothing to tell when no shard lives there. */
    Optional<String> report() {
      return affected.isEmpty() ? Optional.empty() : Optional.of((reachable ? "reachable again" : "unreachable")
          + "; messages for its " + affected.size() + " shard(s) " + (reachable ? "go on" : "are held"));
    }
  }

  private final MessageBuffers<String> buffers;
  private RoutingTable table = RoutingTable.empty();
  private HeldNodes heldNodes = HeldNodes.NONE;
  /**
   * The last other region each shard was routed to, kept when the shard's home is dropped (a
   * hand-off, a stop): that region's link may still hold older messages for it. Looked up only.
   */
  private final Map<String, ActorRef<Object>> lastRemote = new HashMap<>();

  /** @param limit the most messages held over all shards ({@code buffer-size}) */
  RegionRouting(int limit) {
    this.buffers = new MessageBuffers<>(limit);
  }

  /** The table as it is now: published by the region after every change, once released messages are sent. */
  RoutingTable table() {
    return table;
  }

  /** Decides where a message goes by the table, and holds it if that is the decision. */
  Route route(Deliver deliver) {
    Home home = table.knownHome(deliver.shardId());
    boolean heldHome = home != null && table.isHeld(home);
    if (home instanceof Local local && !heldHome) {
      return new ToShard(local.shard());
    }
    if (home instanceof Remote remote && !heldHome) {
      return new ToRegion(remote);
    }
    boolean first = !buffers.contains(deliver.shardId());
    if (buffers.offer(deliver.shardId(), deliver)) {
      return new Held(home == null && first);
    }
    String whose = home == null ? "is not known yet"
        : home instanceof Local ? "here waits for this node to be confirmed a member"
        : home.target().path().address() + " is unreachable";
    return new Refused("buffer full (buffer-size = " + buffers.limit() + "), dropping a message for shard ["
        + deliver.shardId() + "] whose home " + whose);
  }

  /** The shard lives in {@code home} from now on; what was held for it is {@link #release}d separately. */
  void home(String shardId, Home home) {
    table = table.withHome(shardId, home);
    if (home instanceof Remote remote) {
      lastRemote.put(shardId, remote.region());
    }
  }

  /** These shards live in these homes from now on (as {@link #home} for each, in one copy of the table). */
  void homes(Map<String, Home> homes) {
    table = table.withHomes(homes);
    homes.forEach((shardId, home) -> {
      if (home instanceof Remote remote) {
        lastRemote.put(shardId, remote.region());
      }
    });
  }

  /**
   * Whether a link to another region than {@code named} may still hand back messages for the
   * shard: the last other region it was routed to (its home now, or before its home was
   * dropped) is held (its node unreachable or downed, or it is gone and its link closing) and
   * {@code hasLink} says a link to it is open. Its next home gets them first, so it is not
   * believed before that link has closed.
   */
  boolean mayHandBack(String shardId, ActorRef<Object> named, Predicate<ActorRef<Object>> hasLink) {
    ActorRef<Object> last = lastRemote.get(shardId);
    return last != null && !last.equals(named) && hasLink.test(last)
        && (table.isClosing(last) || table.unreachable().contains(last.path().address()));
  }

  /** The shard's home is not known any more (it moves, or stopped): its messages are held from now on. */
  void noHome(String shardId) {
    table = table.without(shardId);
  }

  /** Takes out what is held for the shard, oldest first, to be routed again. */
  List<Deliver> release(String shardId) {
    if (!buffers.contains(shardId)) {
      // The usual case when many homes arrive at once (a placement told up front): nothing to copy.
      return List.of();
    }
    return buffers.drain(shardId).stream().map(Deliver.class::cast).toList();
  }

  /** Takes out everything held, each shard's oldest first. */
  List<Deliver> releaseAll() {
    List<Deliver> all = new ArrayList<>(buffers.total());
    buffers.keys().forEach(shardId -> all.addAll(release(shardId)));
    return all;
  }

  /**
   * A node's reachability or membership changed ({@code change} of the held nodes).
   *
   * @return empty if that changes nothing for the table
   */
  Optional<NodeChange> nodeChanged(Address node, UnaryOperator<HeldNodes> change) {
    heldNodes = change.apply(heldNodes);
    Set<Address> unreachable = heldNodes.addresses();
    if (unreachable.equals(table.unreachable())) {
      return Optional.empty();
    }
    boolean reachable = !unreachable.contains(node);
    table = table.withUnreachable(unreachable);
    List<String> affected = table.shardsOn(node);
    List<Deliver> released = new ArrayList<>();
    if (reachable) {
      affected.forEach(shardId -> released.addAll(release(shardId)));
    }
    return Optional.of(new NodeChange(reachable, affected, released));
  }

  /** Whether {@code node} was downed: its shards are held until they have new homes. */
  boolean isDowned(Address node) {
    return heldNodes.isDowned(node);
  }

  /** Whether {@code node} is returning: reachable again, its shards held until a link to it is confirmed. */
  boolean isReturning(Address node) {
    return heldNodes.isReturning(node);
  }

  /**
   * This node's delivery gate closed (the shards hosted here are held from now on) or opened.
   *
   * @return empty if it was so already; otherwise what is released: on opening, what was held for
   *     the shards hosted here
   */
  Optional<List<Deliver>> gate(boolean closed) {
    if (table.localHeld() == closed) {
      return Optional.empty();
    }
    table = table.withLocalHeld(closed);
    List<Deliver> released = new ArrayList<>();
    if (!closed) {
      table.localShards().keySet().forEach(shardId -> released.addAll(release(shardId)));
    }
    return Optional.of(released);
  }

  /** {@code region} is gone and its link is closing: its shards are held until {@link #forget}. */
  void closing(ActorRef<Object> region) {
    table = table.withClosing(region);
  }

  /** True while the shard's home is a region that is gone and whose link has not handed back yet. */
  boolean closingFor(String shardId) {
    return table.knownHome(shardId) instanceof Remote r && table.isClosing(r.region());
  }

  /**
   * Holds what a closed link handed back ahead of anything held for the same shards since, in
   * the order given, whatever the limit.
   *
   * @return the shards they are for, in the order they first appear
   */
  List<String> handBack(List<Deliver> messages) {
    Map<String, List<Object>> byShard = new LinkedHashMap<>();
    messages.forEach(d -> byShard.computeIfAbsent(d.shardId(), k -> new ArrayList<>()).add(d));
    byShard.forEach(buffers::prepend);
    return List.copyOf(byShard.keySet());
  }

  /**
   * {@code region} is gone (and its link, if any, has handed back): its shards have no home until
   * the coordinator gives them one.
   *
   * @return how many shards lived there
   */
  int forget(ActorRef<Object> region) {
    lastRemote.values().removeIf(region::equals);
    int lost = table.shardsOf(region).size();
    table = table.withoutRegion(region);
    return lost;
  }

  /**
   * The held shards whose home the table does not know: the coordinator is to be asked for them.
   * A shard held for a known home that is unreachable is not among them: asking would get the
   * same home again.
   */
  Set<String> awaitingHome() {
    return buffers.keys().stream().filter(id -> table.knownHome(id) == null).collect(Collectors.toSet());
  }

  /** The shards with held messages. */
  Set<String> heldShards() {
    return buffers.keys();
  }

  boolean holds(String shardId) {
    return buffers.contains(shardId);
  }

  /** How many messages are held for {@code shardId}. */
  int held(String shardId) {
    return buffers.size(shardId);
  }

  /** How many messages are held over all shards. */
  int held() {
    return buffers.total();
  }
}
