package dev.shardkit.sharding.internal.membership;

import dev.shardkit.sharding.RegionInfo;
import dev.shardkit.sharding.internal.InternalApi;
import dev.shardkit.sharding.spi.CoordinatorEvent.ProxyTerminated;
import dev.shardkit.sharding.spi.CoordinatorEvent.RegionTerminated;
import dev.shardkit.sharding.spi.CoordinatorEvent;
import dev.shardkit.sharding.spi.CoordinatorState;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.cluster.MemberStatus;

/**
 * The cluster's members as the coordinator sees them at one moment: address, status, roles and
 * age. Every membership question the coordinator asks (which nodes may host shards, which regions
 * take new shards and how the strategy sees them, whether a region's node is still a member) is
 * answered from one snapshot, so the answers agree with each other. Built by {@link MembersFold}
 * from the membership changes the coordinator was given. Immutable.
 */
@InternalApi
public final class MemberSnapshot {

  /** One member: its address, status and roles. */
  public record Node(Address address, MemberStatus status, Set<String> roles) {
    public Node {
      // Sorted: the strategy sees them as values whose order does not depend on the JVM.
      roles = Collections.unmodifiableSet(new TreeSet<>(roles));
    }

    /** Up or weakly Up: a node whose region takes new shards. */
    boolean up() {
      return status == MemberStatus.up() || status == MemberStatus.weaklyUp();
    }

    /** Up, or leaving but not yet exiting: the nodes that are ranked by age for the strategy. */
    boolean ranked() {
      return up() || status == MemberStatus.leaving();
    }

    /**
     * Up, or on its way out: a leaving or exiting node's region still hosts its shards until it has
     * handed them off, so a new coordinator must hear from it before it places shards.
     */
    public boolean mayHostShards() {
      return ranked() || status == MemberStatus.exiting();
    }
  }

  private final Address self;
  private final Map<Address, Node> nodes = new LinkedHashMap<>();
  /** The age rank of each ranked node: 0 for the oldest. */
  private final Map<Address, Integer> ranks = new HashMap<>();

  /**
   * @param nodes every member; the ranked ones ({@link Node#ranked()}) oldest first, as Pekko's
   *     {@code Member.ageOrdering} sorts them; where the others are does not matter
   * @param self this node's address, the address of local references
   */
  public MemberSnapshot(List<Node> nodes, Address self) {
    this.self = self;
    for (Node node : nodes) {
      this.nodes.put(node.address(), node);
      if (node.ranked()) {
        ranks.put(node.address(), ranks.size());
      }
    }
  }

  /** The node a reference lives on; a local reference's address has no host, so it is this node's. */
  public Address addressOf(ActorRef<?> ref) {
    return NodeAddress.of(ref, self);
  }

  /** Whether the node at {@code address} is a member that has not been removed (it may be down). */
  boolean isMember(Address address) {
    Node node = nodes.get(address);
    return node != null && node.status() != MemberStatus.removed();
  }

  /**
   * The regions and proxies of a loaded state whose nodes are no longer members: gone for good, so
   * a coordinator forgets them before it serves (it never answers with a dead home); the others
   * it watches.
   *
   * @return their terminations, regions first, in the state's order
   */
  public List<CoordinatorEvent> leftTheCluster(CoordinatorState state) {
    List<CoordinatorEvent> gone = new ArrayList<>();
    state.regions().keySet().stream().filter(r -> !isMember(addressOf(r))).map(RegionTerminated::new)
        .forEach(gone::add);
    state.proxies().stream().filter(p -> !isMember(addressOf(p))).map(ProxyTerminated::new).forEach(gone::add);
    return gone;
  }

  /** Whether the node is a member that is Up (or weakly Up). */
  public boolean isUp(Address address) {
    Node node = nodes.get(address);
    return node != null && node.up();
  }

  /** Whether the node is leaving or exiting the cluster: its regions are shutting down, or soon will. */
  public boolean isLeaving(Address address) {
    Node node = nodes.get(address);
    return node != null && (node.status() == MemberStatus.leaving() || node.status() == MemberStatus.exiting());
  }

  /** Whether the node at {@code address} is a member that is neither down nor removed. */
  public boolean isMemberNotDown(Address address) {
    Node node = nodes.get(address);
    return node != null && node.status() != MemberStatus.down() && node.status() != MemberStatus.removed();
  }

  /** The nodes whose regions may host the type's shards ({@link Node#mayHostShards()}), with the role. */
  public Set<Address> mayHostShards(Optional<String> role) {
    Set<Address> hosts = new LinkedHashSet<>();
    nodes.values().forEach(n -> {
      if (n.mayHostShards() && role.map(n.roles()::contains).orElse(true)) {
        hosts.add(n.address());
      }
    });
    return hosts;
  }

  /**
   * Whether there are regions and each is on an Up node (or shutting down, when it takes no shards
   * anyway): a region on a node still joining takes no shards yet, and placing everything without
   * it would leave it to rebalancing to move shards that may be in use by then. With no member Up
   * at all (a coordinator outside a formed cluster), regions are taken as they are.
   */
  public boolean everyRegionUp(Collection<ActorRef<Object>> regions, Set<ActorRef<Object>> shuttingDown) {
    Set<Address> up = new HashSet<>();
    nodes.values().forEach(n -> {
      if (n.up()) {
        up.add(n.address());
      }
    });
    for (ActorRef<Object> region : regions) {
      if (!up.isEmpty() && !shuttingDown.contains(region) && !up.contains(addressOf(region))) {
        return false;
      }
    }
    return !regions.isEmpty();
  }

  /**
   * The regions that take new shards, in the order given, each as the strategy sees it: those not
   * shutting down whose node is Up; if there is none, those not shutting down whose node is leaving
   * or already gone (a coordinator that just loaded its state may not have seen them terminate
   * yet), which would take a shard only to lose it, but are better than nothing.
   */
  public Map<ActorRef<Object>, RegionInfo> takingShards(Collection<ActorRef<Object>> regions,
      Set<ActorRef<Object>> shuttingDown) {
    Map<ActorRef<Object>, RegionInfo> up = new LinkedHashMap<>();
    Map<ActorRef<Object>, RegionInfo> notUp = new LinkedHashMap<>();
    for (ActorRef<Object> region : regions) {
      if (!shuttingDown.contains(region)) {
        Address address = addressOf(region);
        Node node = ranks.containsKey(address) ? nodes.get(address) : null;
        (node != null && node.up() ? up : notUp).put(region, new RegionInfo(address,
            node == null ? Set.of() : node.roles(), ranks.getOrDefault(address, Integer.MAX_VALUE)));
      }
    }
    return up.isEmpty() ? notUp : up;
  }
}
