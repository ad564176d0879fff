package dev.shardkit.sharding.internal.sim;

import dev.shardkit.sharding.internal.wire.ShardingProtocol;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.BeginHandOff;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.GetShardHome;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.GracefulShutdownReq;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.HandOffDeclined;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.HandOffMarker;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.Register;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.RegisterAck;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.ShardHome;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.ShardHomes;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.ShardStopped;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * A region of the simulation, as the coordinator sees one: it registers through the singleton
 * proxy (again every second until acknowledged, and when its coordinator is gone), takes an
 * acknowledgement only at a term at least its own and homes and hand-offs only at exactly its
 * term (as {@code CoordinatorFence}), asks for the homes of the shards its traffic needs, starts a
 * shard when told it is the new home or when traffic for a shard homed on it arrives, and answers
 * hand-offs as the owner does: it sends its marker to the owner, and the owner stops the shard
 * once it has every other region's marker (or that region's node is gone) and says
 * {@code ShardStopped}, or declines an if-unstarted hand-off of a shard it runs. When its node
 * leaves it asks for its shards to be moved and stops once it hosts none (or after 10 s). It does
 * not hold messages for shards, nor messages from a term ahead of its own (it refuses them).
 */
final class SimStubRegion {

  private final CoordinatorOnlySim sim;
  final int node;
  final ActorRef<Object> ref;

  // The fence.
  private ActorRef<Object> coordinator;
  private long term = -1;
  private boolean lost = true;

  /** Homes it knows, by shard; looked up only. */
  private final Map<String, ActorRef<Object>> homes = new HashMap<>();
  /** The shards its traffic needed. */
  final Set<String> wanted = new TreeSet<>();
  /** The shards that run here. */
  final Set<String> hosted = new TreeSet<>();
  /** Hand-offs of shards owned here: the regions whose markers are still awaited, by shard. */
  private final Map<String, OwnerHandOff> handOffs = new TreeMap<>();
  private final Set<HandOffMarker> earlyMarkers = new LinkedHashSet<>();
  /**
   * Regions it saw terminate (their node removed, or they stopped): a coordinator that has not yet
   * heard of a death may still name such a region as a home, and a real region does not believe
   * it (it asks again). Looked up only.
   */
  private final Set<ActorRef<Object>> dead = new HashSet<>();

  private boolean shuttingDown;
  private long shutdownDeadline;
  boolean stopped;

  private record OwnerHandOff(int id, ActorRef<Object> coordinator, Set<ActorRef<Object>> awaited) {}

  SimStubRegion(CoordinatorOnlySim sim, int node, ActorRef<Object> ref) {
    this.sim = sim;
    this.node = node;
    this.ref = ref;
  }

  boolean registered() {
    return coordinator != null && !lost;
  }

  ActorRef<Object> belief(String shardId) {
    return homes.get(shardId);
  }

  boolean shuttingDown() {
    return shuttingDown;
  }

  /** Once a second: registration, asks for homes, traffic, and the shut-down's progress. */
  void tick() {
    if (stopped) {
      return;
    }
    if (!registered()) {
      sim.viaProxy(sim.singletons.get(0), node, new Register(ref, Set.copyOf(hosted)));
    } else {
      if (shuttingDown) {
        sim.toCoordinator(node, coordinator, new GracefulShutdownReq(ref));
      }
      for (String shardId : wanted) {
        if (!homes.containsKey(shardId)) {
          sim.toCoordinator(node, coordinator, new GetShardHome(shardId, ref));
        }
      }
    }
    if (shuttingDown) {
      if ((hosted.isEmpty() && handOffs.isEmpty()) || sim.now() >= shutdownDeadline) {
        stop();
      }
    } else if (sim.trafficOn()) {
      String shardId = sim.trafficShard(node);
      if (shardId != null) {
        wanted.add(shardId);
        send(shardId);
      }
    }
  }

  /** A message for the shard: it goes where the shard's home is known to be. */
  private void send(String shardId) {
    ActorRef<Object> home = homes.get(shardId);
    if (home == null) {
      if (registered()) {
        sim.toCoordinator(node, coordinator, new GetShardHome(shardId, ref));
      }
    } else if (home.equals(ref)) {
      start(shardId);
    } else {
      sim.toRegion(node, home, new SimTraffic(shardId));
    }
  }

  /** A message for a shard, from another region. */
  void traffic(String shardId) {
    if (!stopped && ref.equals(homes.get(shardId))) {
      start(shardId);
    }
  }

  private void start(String shardId) {
    if (!hosted.contains(shardId) && !handOffs.containsKey(shardId) && !shuttingDown) {
      hosted.add(shardId);
      sim.started(this, shardId);
    }
  }

  void receive(ShardingProtocol message) {
    if (stopped) {
      return;
    }
    if (message instanceof RegisterAck ack) {
      acknowledged(ack);
    } else if (message instanceof ShardHome home) {
      if (actsOn(home.term())) {
        sim.actsOnHome(this, home.term(), home.shardId(), home.region());
        learn(home.shardId(), home.region());
        if (home.region().equals(ref)) {
          start(home.shardId());
        }
      }
    } else if (message instanceof ShardHomes told) {
      if (actsOn(told.term())) {
        new TreeMap<>(told.homes()).forEach((shardId, region) -> {
          sim.actsOnHome(this, told.term(), shardId, region);
          learn(shardId, region);
        });
      }
    } else if (message instanceof BeginHandOff begin) {
      if (actsOn(begin.term())) {
        beginHandOff(begin);
      }
    } else if (message instanceof HandOffMarker marker) {
      marker(marker);
    }
  }

  private void learn(String shardId, ActorRef<Object> home) {
    if (dead.contains(home)) {
      homes.remove(shardId);
    } else {
      homes.put(shardId, home);
      if (!sim.memberIn(node, home) && !home.equals(ref)) {
        // A region on a node this one never saw as a member: death watch goes by remoting's
        // failure detector, which gives up on a node that is gone after a while.
        sim.watchUnknown(this, home);
      }
    }
  }

  /** Another region terminated (death watch). */
  void regionTerminated(ActorRef<Object> region) {
    dead.add(region);
    homes.values().removeIf(region::equals);
  }

  private void acknowledged(RegisterAck ack) {
    boolean same = ack.coordinator().equals(coordinator);
    if (ack.term() < term || (ack.term() == term && !same)) {
      return;
    }
    if (ack.term() == term && same && !lost) {
      return;
    }
    // A coordinator that announced itself hears from this region now, with what runs here.
    coordinator = ack.coordinator();
    term = ack.term();
    lost = false;
    sim.toCoordinator(node, coordinator, new Register(ref, Set.copyOf(hosted)));
  }

  private boolean actsOn(long messageTerm) {
    return coordinator != null && !lost && messageTerm == term;
  }

  private void beginHandOff(BeginHandOff begin) {
    sim.actsOnHandOff(this, begin);
    String shardId = begin.shardId();
    homes.remove(shardId);
    if (!begin.owner().equals(ref)) {
      sim.toRegion(node, begin.owner(), new HandOffMarker(shardId, ref, begin.handOffId()));
      return;
    }
    if (begin.ifUnstarted() && hosted.contains(shardId)) {
      sim.toCoordinator(node, coordinator, new HandOffDeclined(shardId, ref, begin.handOffId()));
      return;
    }
    Set<ActorRef<Object>> awaited = new TreeSet<>(CoordinatorOnlySim.BY_PATH);
    for (ActorRef<Object> region : begin.regions()) {
      if (!region.equals(ref) && sim.memberIn(node, region)) {
        awaited.add(region);
      }
    }
    earlyMarkers.removeIf(m -> {
      if (m.shardId().equals(shardId) && m.handOffId() == begin.handOffId()) {
        awaited.remove(m.region());
        return true;
      }
      return false;
    });
    handOffs.put(shardId, new OwnerHandOff(begin.handOffId(), coordinator, awaited));
    completeHandOff(shardId);
  }

  private void marker(HandOffMarker marker) {
    OwnerHandOff handOff = handOffs.get(marker.shardId());
    if (handOff != null && handOff.id() == marker.handOffId()) {
      handOff.awaited().remove(marker.region());
      completeHandOff(marker.shardId());
    } else {
      earlyMarkers.add(marker);
    }
  }

  private void completeHandOff(String shardId) {
    OwnerHandOff handOff = handOffs.get(shardId);
    if (handOff != null && handOff.awaited().isEmpty()) {
      handOffs.remove(shardId);
      if (hosted.remove(shardId)) {
        sim.stoppedShard(this, shardId);
      }
      sim.toCoordinator(node, handOff.coordinator(), new ShardStopped(shardId, ref, handOff.id()));
    }
  }

  /** Node {@code gone} was removed from this node's view: its regions send no markers, and are no homes. */
  void nodeRemoved(int gone) {
    if (stopped) {
      return;
    }
    dead.add(SimRefs.region(gone, CoordinatorOnlySim.TYPE));
    homes.values().removeIf(region -> sim.nodeOf(region) == gone);
    for (String shardId : new TreeSet<>(handOffs.keySet())) {
      handOffs.get(shardId).awaited().removeIf(region -> sim.nodeOf(region) == gone);
      completeHandOff(shardId);
    }
    if (coordinator != null && sim.nodeOf(coordinator) == gone) {
      lost = true;
    }
  }

  /** The coordinator it watches terminated. */
  void coordinatorTerminated(ActorRef<Object> ref) {
    if (ref.equals(coordinator)) {
      lost = true;
    }
  }

  /** Its node leaves: it asks for its shards to be moved, and stops once they are. */
  void shutDown() {
    if (!shuttingDown && !stopped) {
      shuttingDown = true;
      shutdownDeadline = sim.now() + 10_000_000_000L;
      if (registered()) {
        sim.toCoordinator(node, coordinator, new GracefulShutdownReq(ref));
      }
    }
  }

  private void stop() {
    stopped = true;
    for (String shardId : hosted) {
      sim.stoppedShard(this, shardId);
    }
    hosted.clear();
    sim.regionStopped(this);
  }

  /** Its node's process ended: everything here is gone at once. */
  void died() {
    if (!stopped) {
      stopped = true;
      for (String shardId : hosted) {
        sim.stoppedShard(this, shardId);
      }
      hosted.clear();
    }
  }

  /** A message of the traffic, for a shard, between regions. */
  record SimTraffic(String shardId) {}
}
