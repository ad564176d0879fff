package dev.shardkit.sharding.internal.sim;

import dev.shardkit.sharding.internal.membership.ClusterChange;
import dev.shardkit.sharding.internal.coordinator.CoordinatorInput;
import dev.shardkit.sharding.internal.util.ShardIdBounds;
import dev.shardkit.sharding.internal.shard.ShardInput;
import dev.shardkit.sharding.internal.shard.ShardMachine;
import dev.shardkit.sharding.internal.wire.ShardingProtocol;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.Deliver;
import dev.shardkit.sharding.internal.region.SimHostWorld;
import dev.shardkit.sharding.internal.delivery.SimLinkHost;
import dev.shardkit.sharding.internal.region.SimRegionHost;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Consumer;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.cluster.MemberStatus;

/**
 * The whole cluster in one simulation: on every node the real {@link
 * dev.shardkit.sharding.internal.region.RegionMachine} ({@link SimRegionHost}), its real link machines
 * and outboxes ({@link SimLinkHost}), the real {@link dev.shardkit.sharding.internal.shard.ShardMachine}s
 * ({@link SimShardHost}) with {@link SimEntity} incarnations, and the real coordinator machine as a
 * singleton on the oldest node (as {@link CoordinatorOnlySim} runs it, whose membership, network,
 * store, singleton and gate keepers this extends: the region subscribes to its node's keeper, and
 * shards, entities and coordinator loads wait for the gate that keeper keeps). Traffic is numbered per sender node and entity, and each
 * message's fate is kept ({@link SimLedger}). One seed, one thread.
 *
 * <p>Invariants: I1 and I9 as the coordinator-only simulation checks them; I2 (one incarnation of
 * an entity processing at a time), I3 (per sender and entity, in order) and I4 (nothing twice) as
 * messages are processed; at the end, once the cluster is calm, I5 (every message processed,
 * dropped with a reason, or lost with a node that ended, nothing held anywhere), I6 (a scenario of
 * planned moves only (leaves, joins, rebalances, passivation, store outages) loses nothing and
 * drops only at a full buffer) and I10 (the coordinator's, and every live region
 * registered); I11 (no entity runs twice, and with remember-entities exactly the remembered ones
 * run, {@link SimRememberStore}) once calm, and I12 (the active-entity limit) every 100 ms, in the
 * seed's model ({@link SimModel}); I13 (a batch is acknowledged only while its receiver's gate is
 * open) as acknowledgements are sent, and I14 (a link to a healthy node delivers within a bound)
 * every 100 ms. A seed's model may have two or three entity types ({@link SimEntityType}): each
 * has its own coordinator singleton and store, regions, shards, links and entities, and they
 * share the nodes, their membership, network and gates.
 */
final class ClusterSim extends CoordinatorOnlySim implements SimHostWorld {

  /** The fault kinds a run may have; the others are taken out of the seed's scenario. */
  static final Set<SimScenario.Kind> NO_FAULTS = EnumSet.noneOf(SimScenario.Kind.class);

  /** The faults that end a node or cut it off (a node can be downed after them). */
  static final Set<SimScenario.Kind> FAILURES = EnumSet.of(SimScenario.Kind.CRASH, SimScenario.Kind.FREEZE,
      SimScenario.Kind.PARTITION);

  /**
   * Whether a seed with a failure keeps its joins ({@code -Dsim.joinsWithFailures=false} leaves
   * them out; on by default). They were left out while this family of bugs was open. Seeds 1085 (I5)
   * and 7196 (I3): a node that joined while a crashed node's region waited out the coordinator's
   * removal margin was answered with that region, opened a link to it, and what the link handed
   * back when it closed stayed held behind homes already known, or went to the new home after
   * newer messages of the same sender; the coordinator now answers no home at a region in its
   * removal margin. Seed 1883086365002904798 (I5): a region cut off by a partition learned of the
   * crashed node's removal after the coordinator did, believed the shards' next homes while its
   * link to the old home still held their older messages, and what that link handed back stayed
   * held for good; the region now asks again once that link has closed.
   */
  static final boolean JOINS_WITH_FAILURES = Boolean.parseBoolean(System.getProperty("sim.joinsWithFailures", "true"));

  /** Whether entities stop or fail by their own doing, by per-seed rates ({@code -Dsim.entityEnds}, on by default). */
  static final boolean ENTITY_ENDS = Boolean.parseBoolean(System.getProperty("sim.entityEnds", "true"));

  /** When half of a remembering type's entities get their last messages. */
  private static final long QUIET_AFTER = 3_000 * MS;

  /** What a run came to: the coordinator simulation's result, and the traffic's. */
  record Outcome(Result result, SimModel model, int remembered, int repeated, int sent, int processed, int dropped, int lost,
      int lostFromOthers, int lostAfterConfirmation, long lostToFullQueues, String reasons) {
    SimViolation violation() {
      return result.violation();
    }
  }

  /** What is watched, by whom (its node), and what the watcher is told. */
  private static final class Watch {
    final int node;
    final ActorRef<Object> ref;
    final Runnable terminated;
    /** Its termination was told to the watcher (which may lose it on the way). */
    boolean fired;
    /** The watcher has heard of it. */
    boolean heard;

    Watch(int node, ActorRef<Object> ref, Runnable terminated) {
      this.node = node;
      this.ref = ref;
      this.terminated = terminated;
    }
  }

  private record Actor(int node, Consumer<Object> receive) {}

  private final SimLedger ledger = new SimLedger();
  /** The entity types, by index. */
  private final List<SimEntityType> types = new ArrayList<>();
  /** Each region's type, by the region's ref; looked up only. */
  private final Map<ActorRef<Object>, SimEntityType> typesByRegion = new HashMap<>();
  private final double rate;
  private final double passivateRate;
  private final double stopRate;
  private final double failRate;
  /** Every actor that runs, by ref; looked up only. */
  private final Map<ActorRef<Object>, Actor> actors = new HashMap<>();
  /** A type's singleton proxy on a node. */
  private record Proxy(int node, SimEntityType type) {}

  private final Map<ActorRef<Object>, Proxy> proxies = new HashMap<>();
  private final List<Watch> watches = new ArrayList<>();
  private final Map<ActorRef<Object>, List<Watch>> watchesByRef = new HashMap<>();
  private final List<SimShardHost> shardHosts = new ArrayList<>();
  private final Set<Integer> left = new TreeSet<>();
  private final int[] links = new int[SimNetwork.MAX_NODES];
  /** When each traffic message was handed to a link; looked up only. */
  private final Map<Integer, Long> offeredAt = new HashMap<>();
  /** Which node's link each traffic message was last handed to; looked up only. */
  private final Map<Integer, Integer> offeredFrom = new HashMap<>();
  /** When each node's region first saw another one gone in the episode of its last fault, -1 if never. */
  private final long[][] sawGone = new long[SimNetwork.MAX_NODES][SimNetwork.MAX_NODES];
  /**
   * When each node's region last had its link to another region confirmed (that region's node
   * acknowledged a batch sent after its return, so its gate was open), by the destination region
   * and then the sender's node; absent or -1 if never. Per region, not per node: the regions of
   * several types on a node confirm their links at different moments (seed 5421, with two types,
   * took a later confirmation of the other type's link for this one's).
   */
  private final Map<ActorRef<Object>, long[]> confirmedAt = new HashMap<>();
  /** I14's bound: a link to a node healthy this long holds nothing older (4 × resend-after). */
  private static final long LATENCY_BOUND = 4_000 * MS;
  /** Since when each link's destination has been healthy, by the link's ref; looked up only. */
  private final Map<ActorRef<Object>, Long> healthySince = new HashMap<>();
  /** The links whose region held what it routed to their destination in their last unhealthy spell; looked up only. */
  private final Set<ActorRef<Object>> heldInSpell = new java.util.HashSet<>();
  /** Messages lost with a node downed after the sender had it confirmed back: the at-most-once window. */
  private int lostAfterConfirmation;
  /** When the last crash, freeze or partition began for each node. */
  private final long[] faultAt = new long[SimNetwork.MAX_NODES];
  private int shardUids;
  private int incarnations;
  private final boolean plannedOnly;

  /**
   * @param freezeOldest the freeze-oldest family's settings ({@link SimEntityType})
   */
  ClusterSim(SimScenario scenario, boolean freezeOldest, SimModel model, boolean deepHash) {
    super(scenario, deepHash, model.types());
    SimRng draw = new SimRng(scenario.seed() ^ 0x5eedL);
    for (int t = 0; t < model.types(); t++) {
      // The first type draws from the seed's own streams, as when there was one type.
      SimRng typeDraw = t == 0 ? draw : new SimRng(scenario.seed() ^ 0x5eedL ^ (0x9e3779b97f4a7c15L * t));
      types.add(new SimEntityType(t, model.type(t), singletons.get(t), typeDraw, scenario.nodes(),
          scenario.askedShards(), freezeOldest, this));
    }
    if (model.smallQueues()) {
      network.queueLimit(draw.between("cluster.queue", 4, 64));
    }
    if (model.slowStores()) {
      singletons.forEach(singleton -> singleton.store.slow());
    }
    String s = "cluster";
    this.rate = draw.between(s, 20, 80);
    this.passivateRate = draw.chance(s, 0.5) ? 0.01 : 0;
    this.stopRate = ENTITY_ENDS && draw.chance(s, 0.3) ? 0.002 : 0;
    this.failRate = ENTITY_ENDS && draw.chance(s, 0.3) ? 0.002 : 0;
    boolean planned = true;
    for (SimScenario.Action a : scenario.actions()) {
      planned &= a.kind() == SimScenario.Kind.LEAVE || a.kind() == SimScenario.Kind.JOIN
          || a.kind() == SimScenario.Kind.STORE_OUTAGE;
    }
    this.plannedOnly = planned;
    for (int i = 0; i < SimNetwork.MAX_NODES; i++) {
      java.util.Arrays.fill(sawGone[i], -1);
    }
  }

  static Outcome run(long seed, Set<SimScenario.Kind> kinds, boolean deepHash) {
    return run(seed, kinds, false, deepHash);
  }

  /**
   * @param freezeOldest the freeze-oldest family instead of the seed's actions: 4 nodes, the
   *     coordinator's node frozen once for 5-15 s under traffic (plan §5)
   */
  static Outcome run(long seed, Set<SimScenario.Kind> kinds, boolean freezeOldest, boolean deepHash) {
    return run(seed, kinds, freezeOldest, JOINS_WITH_FAILURES, deepHash);
  }

  /** As {@link #run(long, Set, boolean, boolean)}, saying whether a seed with a failure keeps its joins. */
  static Outcome run(long seed, Set<SimScenario.Kind> kinds, boolean freezeOldest, boolean joinsWithFailures,
      boolean deepHash) {
    return run(scenario(seed, kinds, freezeOldest, joinsWithFailures), freezeOldest, deepHash);
  }

  /** The scenario a seed runs: its generated actions of the given kinds, or the freeze-oldest family's. */
  static SimScenario scenario(long seed, Set<SimScenario.Kind> kinds, boolean freezeOldest, boolean joinsWithFailures) {
    SimScenario generated = SimScenario.generate(seed, false);
    List<SimScenario.Action> actions = new ArrayList<>();
    boolean failures = false;
    for (SimScenario.Action a : generated.actions()) {
      failures |= kinds.contains(a.kind()) && FAILURES.contains(a.kind());
    }
    for (SimScenario.Action a : generated.actions()) {
      boolean leftOut = a.kind() == SimScenario.Kind.JOIN && failures && !joinsWithFailures;
      if (kinds.contains(a.kind()) && !freezeOldest && !leftOut) {
        actions.add(a);
      }
    }
    if (freezeOldest) {
      SimRng draw = new SimRng(seed ^ 0xf7eeL);
      actions.add(new SimScenario.Action(draw.between("freeze", 5000, 10_000), SimScenario.Kind.FREEZE, true, 0,
          draw.between("freeze", 5000, 15_000)));
      generated = new SimScenario(seed, 4, generated.knownShards(), generated.askedShards(), generated.tellsHomes(),
          generated.rebalanceThreshold(), generated.rebalanceIntervalMs(), generated.trafficRate(), 0, false, List.of());
    }
    return generated.withActions(actions);
  }

  /**
   * Runs one scenario (a seed's, or a shrunk one: {@link SimShrinker}), with the freeze-oldest
   * family's settings if {@code freezeOldest}.
   */
  static Outcome run(SimScenario scenario, boolean freezeOldest, boolean deepHash) {
    return run(scenario, freezeOldest, SimModel.of(scenario.seed()), deepHash);
  }

  /** As {@link #run(SimScenario, boolean, boolean)}, in the given model. */
  static Outcome run(SimScenario scenario, boolean freezeOldest, SimModel model, boolean deepHash) {
    ClusterSim sim = new ClusterSim(scenario, freezeOldest, model, deepHash);
    Result result = sim.run();
    SimLedger l = sim.ledger;
    int remembered = 0;
    for (SimEntityType type : sim.types) {
      remembered += type.rememberStore.all().values().stream().mapToInt(Set::size).sum();
    }
    return new Outcome(result, model, remembered, l.repeated(), l.sent(), l.processedCount(), l.droppedCount(), l.lostCount(), l.lostFromOthers(),
        sim.lostAfterConfirmation, sim.network.lostToFullQueues(), l.reasons().toString());
  }

  // ---- nodes

  /** A node joined the cluster (or formed it): it gets a region of each type, subscribed to its gate keeper. */
  @Override
  void addRegion(int n) {
    for (SimEntityType type : types) {
      ActorRef<Object> proxy = SimRefs.proxy(n, type.name);
      proxies.put(proxy, new Proxy(n, type));
      SimRegionHost region = new SimRegionHost(this, n, type.name, SimRefs.region(n, type.name), proxy,
          SimMembership.id(n), type.extractor, new ShardIdBounds(type.name, scenario.knownShards(), 1000, null),
          type.settings);
      type.regions.put(n, region);
      typesByRegion.put(region.ref(), type);
      type.liveOn(n);
      register(SimRefs.shutdownWaiter(n, type.name), n, done -> regionShutDown(n, type));
      after(n, 0, () -> {
        region.start();
        region.receive(membership.snapshot(n));
        gateSubscribe(n, region.ref());
      });
    }
    after(n, rng.millis("traffic.phase." + n, 1, 50), () -> traffic(n));
    if (n == 0) {
      scheduler.after(100 * MS, this::checkBounds);
    }
  }

  /** The region subscribes to its node's gate keeper as it starts, and hears of the gate's changes. */
  @Override
  void gateChanged(int node, List<ActorRef<Object>> subscribers, Object change) {
    for (ActorRef<Object> subscriber : subscribers) {
      send(node, subscriber, change);
    }
  }

  @Override
  void gateWatch(int node, ActorRef<Object> subscriber, Runnable gone) {
    watch(node, subscriber, gone);
  }

  /**
   * I8, every 100 ms: what regions and shards hold stays within buffer-size; and I12, with an
   * active-entity limit, no node runs more entities than the limit.
   */
  private void checkBounds() {
    for (SimEntityType type : types) {
      int bufferSize = type.settings.bufferSize();
      for (SimRegionHost region : type.regions.values()) {
        if (!region.isStopped() && region.held() > bufferSize + region.handedBack()) {
          throw new SimViolation("I8 buffers within their bounds", region.ref() + " holds " + region.held()
              + " messages, more than buffer-size " + bufferSize + " and the " + region.handedBack()
              + " its closed links handed back");
        }
      }
    }
    for (SimShardHost shard : shardHosts) {
      int bufferSize = shard.type.settings.bufferSize();
      if (!shard.stopped && shard.machine.heldMessages() > bufferSize) {
        throw new SimViolation("I8 buffers within their bounds", shard.ref + " holds " + shard.machine.heldMessages()
            + " messages, more than buffer-size " + bufferSize);
      }
    }
    shardHosts.removeIf(shard -> shard.stopped);
    for (SimEntityType type : types) {
      checkLimit(type);
      checkLatency(type);
    }
    if (now() < end) {
      scheduler.after(100 * MS, this::checkBounds);
    }
  }

  /** I12 for one type: with an active-entity limit, no node runs more of its entities than the limit. */
  private void checkLimit(SimEntityType type) {
    OptionalInt limit = type.limit;
    if (limit.isPresent()) {
      type.live.forEach((node, live) -> {
        // As configuration.md promises it: never exceeded, except that a region hosting more
        // shards than the limit gives each one at once (the others passivate down to their
        // smaller shares meanwhile, so no total holds then), and that a shard being handed off
        // delivers its held messages to one more incarnation of their entities regardless.
        int hosted = 0;
        for (SimShardHost shard : shardHosts) {
          if (shard.type == type && shard.node == node && !shard.stopped) {
            hosted++;
          }
        }
        long counted = live.stream().filter(e -> !e.forHandOff).count();
        if (membership.alive(node) && hosted <= limit.getAsInt() && counted > limit.getAsInt()) {
          throw new SimViolation("I12 at most the active-entity limit", "n" + node + " runs " + counted
              + " entities of " + type.name + ", more than the limit " + limit.getAsInt() + " allows with " + hosted + " shards hosted"
              + " (and " + (live.size() - counted) + " started for a hand-off): " + live);
        }
      });
    }
  }

  /**
   * I14 for one type: a link whose destination has been healthy for a bound (both nodes running
   * and connected, the destination Up and reachable in the sender's view and Up in truth, its gate
   * open, its region of the type running) holds no message it took longer ago than that bound:
   * what entered it before or during a fault goes out soon after the fault ends. The bound is
   * {@link #LATENCY_BOUND} after a spell in which the sender's region held what it routed to that
   * node (it saw the node unreachable and then reachable again: its links resend at once, and a
   * probe's answer ends the hold), and that plus the link's longest resend timeout after a spell
   * nobody noticed (a partition shorter than failure detection: nothing tells the link that its
   * grown timeout may be cut short).
   */
  private void checkLatency(SimEntityType type) {
    for (SimRegionHost region : type.regions.values()) {
      int from = region.node();
      if (region.isStopped() || !membership.alive(from)) {
        continue;
      }
      for (SimLinkHost link : region.links()) {
        if (link.isStopped()) {
          continue;
        }
        int to = nodeOf(link.destination());
        SimRegionHost destination = type.region(to);
        boolean healthy = destination != null && destination.ref().equals(link.destination())
            && !destination.isStopped() && healthyPair(from, to) && membership.reachableIn(from, to);
        if (!healthy && healthySince.remove(link.ref()) != null) {
          heldInSpell.remove(link.ref()); // a new spell begins
        }
        if (region.holdsFor(SimRefs.address(to))) {
          heldInSpell.add(link.ref());
        }
        if (!healthy) {
          continue;
        }
        long since = healthySince.computeIfAbsent(link.ref(), k -> now());
        boolean noticed = heldInSpell.contains(link.ref());
        long bound = noticed ? LATENCY_BOUND : LATENCY_BOUND + 8 * type.settings.resendAfter().toNanos();
        if (now() - since < bound) {
          continue;
        }
        link.forEachHeld(item -> {
          SimMsg m = simMsg(item);
          Long at = m == null ? null : offeredAt.get(m.id());
          if (at != null && now() - at > bound) {
            throw new SimViolation("I14 a link to a healthy node delivers within a bound", link.ref() + " still holds "
                + m + ", taken " + (now() - at) / MS + " ms ago, unacknowledged; its destination " + link.destination()
                + " has been healthy for " + (now() - since) / MS + " ms, after a spell the sender's region "
                + (noticed ? "noticed" : "did not notice") + ": the bound is " + bound / MS + " ms");
          }
        });
      }
    }
  }

  /** Both nodes run, reach each other, and see the second Up; the second's gate is open. */
  private boolean healthyPair(int from, int to) {
    return membership.alive(from) && membership.alive(to) && membership.thawAt(from) < 0 && membership.thawAt(to) < 0
        && membership.connected(from, to) && membership.connected(to, from)
        && membership.status(to) == MemberStatus.up() && membership.statusIn(from, to) == MemberStatus.up()
        && gateOpen(to);
  }

  /** The type whose entity {@code entityId} is. */
  private SimEntityType typeOf(String entityId) {
    for (int t = types.size() - 1; t > 0; t--) {
      if (types.get(t).owns(entityId)) {
        return types.get(t);
      }
    }
    return types.get(0);
  }

  @Override
  public void changed(int node, ClusterChange change) {
    super.changed(node, change);
    if (types.get(0).region(node) != null && membership.alive(node)) {
      after(node, 0, () -> {
        noteGone(node, change);
        for (SimEntityType type : types) {
          type.region(node).receive(change);
        }
      });
    }
    if (change instanceof ClusterChange.MemberChanged changed && changed.node().status() == MemberStatus.removed()) {
      int gone = nodeOf(changed.node().id().address());
      // Remote death watch: what the watcher's node sees removed has terminated, also if the
      // actor's own stop was told and lost on the way (the node quarantined its sender).
      for (Watch w : watches) {
        if (!w.heard && w.node == node && nodeOf(w.ref) == gone) {
          w.fired = true;
          network.send(node, node, () -> after(node, 0, () -> hear(w)));
        }
      }
    }
  }

  @Override
  void faulted(Set<Integer> nodes) {
    for (int n : nodes) {
      faultAt[n] = now();
    }
  }

  /**
   * When node {@code node}'s region first saw each other node gone (unreachable or downed) since
   * the last fault that began for that node, for I7: a fault's episode lasts until the node is
   * gone for good, whether or not it was seen reachable in between (a Down may be decided on a view
   * older than the return), and a later fault begins another.
   */
  private void noteGone(int node, ClusterChange change) {
    int n;
    if (change instanceof ClusterChange.ReachabilityChanged r && !r.reachable()) {
      n = nodeOf(r.node().id().address());
    } else if (change instanceof ClusterChange.MemberChanged c && c.node().status() == MemberStatus.down()) {
      n = nodeOf(c.node().id().address());
    } else {
      return;
    }
    if (sawGone[node][n] < faultAt[n]) {
      sawGone[node][n] = now();
    }
  }

  @Override
  public void ended(int node) {
    super.ended(node);
    for (SimEntityType type : types) {
      SimRegionHost region = type.region(node);
      if (region != null) {
        region.died();
      }
    }
    for (SimShardHost shard : shardHosts) {
      if (shard.node == node) {
        shard.stopped = true;
      }
    }
    for (SimEntityType type : types) {
      for (SimEntity e : type.liveOn(node)) {
        e.terminated = true;
      }
      type.liveOn(node).clear();
    }
    MemberStatus status = membership.status(node);
    SimLedger.Cause cause = left.contains(node) ? SimLedger.Cause.LEFT
        : status == null || status == MemberStatus.down() ? SimLedger.Cause.DOWNED : SimLedger.Cause.CRASHED;
    List<SimMsg> gone = ledger.nodeEnded(node, cause);
    if (cause == SimLedger.Cause.DOWNED) {
      checkWindow(gone, node);
    }
    trace(node, "node ended", cause + ", " + gone.size() + " messages lost", List.of());
  }

  /** Coordinated shutdown: the node's region of each type hands off its shards and stops; the node exits after. */
  @Override
  public void leaving(int node) {
    left.add(node);
    for (SimEntityType type : types) {
      SimRegionHost region = type.region(node);
      if (region != null && !region.isStopped()) {
        after(node, 0, () -> region.shutDown(SimRefs.shutdownWaiter(node, type.name)));
      } else {
        regionShutDown(node, type);
      }
    }
  }

  /** A leaving node's region of {@code type} has shut down: once every type's has, the node may exit. */
  private void regionShutDown(int node, SimEntityType type) {
    type.shutDown.add(node);
    if (types.stream().allMatch(t -> t.shutDown.contains(node))) {
      membership.exitReady(node);
    }
  }

  // ---- the coordinator's side

  @Override
  boolean remembersEntities(int type) {
    return types.get(type).remembering();
  }

  @Override
  void readRememberedShards(SimCoordinatorHost host, long readId) {
    types.get(host.singleton.index).rememberStore.readShards(host.node,
        ids -> toCoordinatorHost(host, new CoordinatorInput.RememberedShardsRead(readId, ids)),
        failure -> toCoordinatorHost(host, new CoordinatorInput.RememberedShardsFailed(readId, failure)));
  }

  @Override
  void toRegion(int from, ActorRef<Object> to, Object message) {
    send(from, to, message);
  }

  @Override
  void identify(int from, int to, SimCoordinatorHost host) {
    network.send(from, to, () -> {
      SimRegionHost region = types.get(host.singleton.index).region(to);
      boolean has = region != null && !region.isStopped();
      network.send(to, from, () -> toCoordinatorHost(host,
          new CoordinatorInput.NodeIdentified(SimRefs.address(to), has)));
    });
  }

  @Override
  void watch(SimCoordinatorHost host, ActorRef<Object> ref) {
    watch(host.node, ref, () -> toCoordinatorHost(host, new CoordinatorInput.Terminated(ref)));
  }

  @Override
  void coordinatorGone(SimCoordinatorHost host) {
    if (membership.alive(host.node)) {
      stoppedActor(host.ref);
    }
  }

  // ---- traffic and entities

  private void traffic(int n) {
    SimEntityType type = types.size() == 1 ? types.get(0) : types.get(rng.stream("traffic.type").nextInt(types.size()));
    SimRegionHost region = type.region(n);
    if (now() >= trafficEnd || region == null || region.isStopped() || !membership.alive(n) || left.contains(n)) {
      return;
    }
    int entities = type.entities;
    int pick = rng.stream("traffic.entity").nextInt(entities);
    if (type.remembering() && pick < entities / 2 && now() >= QUIET_AFTER) {
      // Half of a remembering type's entities are quiet after the first seconds: only
      // remember-entities brings them back after a move, a crash or their own failure (I11).
      pick = entities / 2 + pick % (entities - entities / 2);
    }
    String entityId = type.entityId(pick);
    SimMsg m = ledger.send(n, entityId);
    send(n, region.ref(), m);
    after(n, (long) (rng.stream("traffic.gap").nextDouble() * 2e9 / rate), () -> traffic(n));
  }

  SimEntity newEntity(SimShardHost shard, String entityId) {
    SimEntity e = new SimEntity(entityId, shard.node, ++incarnations, shard, now());
    e.forHandOff = shard.machine.phase() == ShardMachine.Phase.HANDING_OFF;
    shard.type.liveOn(shard.node).add(e);
    trace(shard.node, "entity started", e, List.of());
    return e;
  }

  /** A shard tells an entity: into its mailbox, at once, as a tell does. */
  void toEntity(SimEntity e, Object message) {
    if (e.terminated) {
      SimMsg m = simMsg(message);
      if (e.endedBy != null && m != null) {
        // Told before the shard heard that it ended by its own doing: lost with it, as in Pekko.
        ledger.lost(m, e.node, e.endedBy);
      } else {
        deadLetter(e.node, message, "to a stopped " + e);
      }
      return;
    }
    e.mailbox.add(message);
    if (!e.busy) {
      e.busy = true;
      after(e.node, rng.millis("entity.pick", 0.01, 0.2), () -> processNext(e));
    }
  }

  private void processNext(SimEntity e) {
    if (e.terminated) {
      return;
    }
    if (!gateOpen(e.node)) {
      whenGateOpen(e.node, () -> processNext(e));
      return;
    }
    Object m = e.mailbox.poll();
    if (m == null) {
      e.busy = false;
      return;
    }
    if (m == SimEntity.STOP) {
      terminate(e, null, null);
      return;
    }
    if (m instanceof SimMsg msg) {
      if (failRate > 0 && rng.chance("entity.fail", failRate)) {
        // It throws on this message: the message is not processed, and the incarnation fails.
        ledger.dropped(msg, e.node, "the entity failed on it");
        terminate(e, SimLedger.Cause.ENTITY_FAILED, new IllegalStateException("simulated failure of " + e));
        return;
      }
      ledger.processed(msg, e, now());
      if (stopRate > 0 && rng.chance("entity.stop", stopRate)) {
        terminate(e, SimLedger.Cause.ENTITY_STOPPED, null);
        return;
      }
      if (passivateRate > 0 && !e.passivating && rng.chance("entity.passivate", passivateRate)) {
        e.passivating = true;
        send(e.node, e.shard.ref, new ShardInput.Passivate<>(e));
      }
    }
    after(e.node, rng.millis("entity.work", 0, 2), () -> processNext(e));
  }

  /**
   * The incarnation ends: at its stop request (what is behind it would be a dead letter, which the
   * shard must never cause), or by its own doing, stopping or failing, when Pekko drops what is
   * left in its mailbox (lost with that cause).
   */
  private void terminate(SimEntity e, SimLedger.Cause ownDoing, Throwable failure) {
    e.terminated = true;
    e.endedBy = ownDoing;
    e.shard.type.liveOn(e.node).remove(e);
    for (Object left : e.mailbox) {
      SimMsg m = simMsg(left);
      if (ownDoing == null) {
        deadLetter(e.node, left, "left in the mailbox of " + e + " as it stopped");
      } else if (m != null) {
        ledger.lost(m, e.node, ownDoing);
      }
    }
    e.mailbox.clear();
    trace(e.node, "entity stopped", e, ownDoing == null ? List.of() : List.of(ownDoing));
    send(e.node, e.shard.ref, new ShardInput.EntityTerminated<>(e, failure != null, failure));
  }

  void shardStopped(SimShardHost shard) {
    List<SimEntity> live = shard.type.liveOn(shard.node);
    for (SimEntity e : new ArrayList<>(live)) {
      if (e.shard == shard) {
        e.terminated = true;
        live.remove(e);
        for (Object m : e.mailbox) {
          deadLetter(e.node, m, "in the mailbox of " + e + " when its shard stopped");
        }
      }
    }
    stoppedActor(shard.ref);
  }

  /**
   * A message that reached no one: a traffic message in it is lost (I5 does not allow that cause),
   * unless its node is out of the cluster (its gate is down): there the region has stopped, and
   * what is still told to it is lost with the node, which ends.
   */
  private void deadLetter(int node, Object message, String where) {
    SimMsg m = simMsg(message);
    if (m != null) {
      SimLedger.Cause cause = gateDown(node) ? SimLedger.Cause.DOWNED : SimLedger.Cause.DEAD_LETTER;
      ledger.lost(m, node, cause);
      trace(node, "dead letter", message, List.of(where, cause));
    }
  }

  private static SimMsg simMsg(Object message) {
    if (message instanceof SimMsg m) {
      return m;
    } else if (message instanceof Deliver d && d.message() instanceof SimMsg m) {
      return m;
    }
    return null;
  }

  // ---- the world of the hosts

  @Override
  public void send(int from, ActorRef<Object> to, Object message) {
    if (message instanceof ShardingProtocol.DeliveryAck ack && !ack.resend() && !gateOpen(from)) {
      // The sender forgets what is acknowledged: taken while the gate is closed, it is lost if the
      // node turns out to have been downed, and a probe so answered would release what was held.
      throw new SimViolation("I13 a batch is acknowledged only while the receiver's gate is open", "n" + from
          + " acknowledges " + ack + " to " + to + " while its delivery gate is " + (gateDown(from) ? "down" : "closed"));
    }
    Proxy proxy = proxies.get(to);
    if (proxy != null) {
      viaProxy(proxy.type().singleton, from, (ShardingProtocol) message);
      return;
    }
    Actor actor = actors.get(to);
    if (actor == null) {
      if (message instanceof ShardingProtocol p) {
        toCoordinator(from, to, p);
      } else {
        deadLetter(from, message, "to " + to);
      }
      return;
    }
    boolean queued = network.send(from, actor.node, () -> {
      Actor now = actors.get(to);
      if (now == null || !membership.alive(now.node)) {
        deadLetter(actor.node, message, "to " + to + ", stopped");
      } else {
        now.receive.accept(message);
      }
    });
    if (!queued) {
      trace(from, "lost to a full queue", message, List.of(to));
    }
  }

  @Override
  public ActorRef<Object> startShard(int node, ActorRef<Object> region, String shardId, int entityLimit) {
    SimEntityType type = typesByRegion.get(region);
    ActorRef<Object> ref = SimRefs.shard(node, type.name, shardId, ++shardUids);
    SimShardHost shard = new SimShardHost(this, type, node, ref, region, shardId, entityLimit);
    shardHosts.add(shard);
    register(ref, node, shard::receive);
    send(node, ref, new ShardInput.Start<>());
    return ref;
  }

  @Override
  public void watch(int node, ActorRef<Object> ref, Runnable terminated) {
    Watch w = new Watch(node, ref, terminated);
    watches.add(w);
    watchesByRef.computeIfAbsent(ref, k -> new ArrayList<>()).add(w);
    int at = nodeOf(ref);
    boolean known = actors.containsKey(ref) || proxies.containsKey(ref) || isCoordinator(ref);
    if (!known || membership.removedIn(node, at)) {
      fire(w, node);
    } else if (at != node && membership.statusIn(node, at) == null) {
      // A node the watcher never saw as a member: remote death watch falls back to its own
      // failure detector, and the watcher hears of an actor that is gone after about 10 s, unless
      // it has seen the node join meanwhile: then the cluster's removal tells (seed
      // 1883127761064027045 had a coordinator hear of a region on a crashed member at once).
      scheduler.after(10_000 * MS, () -> {
        if (membership.statusIn(node, at) == null
            && (!membership.alive(at) || membership.status(at) == null || !actors.containsKey(ref))) {
          fire(w, node);
        }
      });
    }
  }

  private boolean isCoordinator(ActorRef<Object> ref) {
    for (SimCoordinatorHost host : running()) {
      if (host.ref.equals(ref)) {
        return true;
      }
    }
    return false;
  }

  private void fire(Watch w, int from) {
    if (w.fired) {
      return;
    }
    w.fired = true;
    network.sendSystem(from, w.node, () -> after(w.node, 0, () -> hear(w)));
  }

  /** The watcher hears that what it watched has terminated, once, however it learned it. */
  private void hear(Watch w) {
    if (!w.heard) {
      w.heard = true;
      w.terminated.run();
    }
  }

  @Override
  public ActorRef<Object> linkRef(int node, ActorRef<Object> region) {
    return SimRefs.link(node, typesByRegion.get(region).name, ++links[node]);
  }

  @Override
  public void register(ActorRef<Object> ref, int node, Consumer<Object> receive) {
    actors.put(ref, new Actor(node, receive));
  }

  @Override
  public void stoppedActor(ActorRef<Object> ref) {
    Actor actor = actors.remove(ref);
    int node = actor != null ? actor.node : nodeOf(ref);
    trace(node, "stopped", ref, List.of());
    for (Watch w : watchesByRef.getOrDefault(ref, List.of())) {
      fire(w, node);
    }
    SimEntityType type = typesByRegion.get(ref);
    if (type != null && left.contains(node)) {
      // Coordinated shutdown goes on once the region has stopped.
      regionShutDown(node, type);
    }
  }

  @Override
  public void dropped(int node, Object message, String reason) {
    SimMsg m = simMsg(message);
    if (m != null) {
      ledger.dropped(m, node, reason);
      trace(node, "dropped", m, List.of(reason));
    }
  }

  @Override
  public void sent(int node, ActorRef<Object> destination, Object item) {}

  @Override
  public void offered(int node, ActorRef<Object> destination, Object item) {
    SimMsg m = simMsg(item);
    if (m != null) {
      offeredAt.put(m.id(), now());
      offeredFrom.put(m.id(), node);
    }
  }

  /**
   * I7 for what a node took and acknowledged and then was lost with it when it was downed: it must
   * have entered the link before its sender's region saw that node gone.
   */
  private void checkWindow(List<SimMsg> gone, int node) {
    for (SimMsg m : gone) {
      Integer from = offeredFrom.get(m.id());
      if (from == null || from == node) {
        continue;
      }
      long saw = sawGone[from][node] >= faultAt[node] ? sawGone[from][node] : -1;
      long offered = offeredAt.get(m.id());
      ActorRef<Object> destination = typeOf(m.entityId()).region(node).ref();
      if (saw >= 0 && offered > saw && afterConfirmation(from, destination, saw, offered)) {
        lostAfterConfirmation++;
      } else if (saw >= 0 && offered > saw) {
        throw new SimViolation("I7 lost only in the window before the sender saw the node gone", m
            + " entered the link from n" + from + " to n" + node + " at " + offered / 1e9 + " s, after n" + from
            + "'s region saw n" + node + " unreachable or downed at " + saw / 1e9 + " s; n" + node
            + " acknowledged it and it is lost with that node");
      }
    }
  }

  /**
   * I7: what a link to a node that ended held unacknowledged is lost with it, if it entered the
   * link before the sender's region saw that node unreachable or downed; after, it must not have
   * entered.
   */
  @Override
  public void goneUnacknowledged(int node, ActorRef<Object> destination, List<Object> unacknowledged) {
    int dest = nodeOf(destination);
    for (Object item : unacknowledged) {
      SimMsg m = simMsg(item);
      if (m == null || ledger.fate(m) != SimLedger.Fate.SENT) {
        continue;
      }
      long saw = sawGone[node][dest] >= faultAt[dest] ? sawGone[node][dest] : -1;
      Long offered = offeredAt.get(m.id());
      if (saw >= 0 && offered != null && offered > saw && afterConfirmation(node, destination, saw, offered)) {
        lostAfterConfirmation++;
      } else if (saw >= 0 && offered != null && offered > saw) {
        throw new SimViolation("I7 lost only in the window before the sender saw the node gone", m
            + " entered the link from n" + node + " to n" + dest + " at " + offered / 1e9 + " s, after n" + node
            + "'s region saw n" + dest + " unreachable or downed at " + saw / 1e9 + " s; it is lost unacknowledged");
      }
      ledger.lost(m, dest, SimLedger.Cause.UNACKED_WINDOW);
    }
  }

  @Override
  public void redelivering(int node, ActorRef<Object> destination, List<Object> unacknowledged) {
    for (Object item : unacknowledged) {
      SimMsg m = simMsg(item);
      if (m != null) {
        ledger.redelivered(m);
      }
    }
  }

  /**
   * I7's one exception after a return: the sender's link to the node was confirmed (the node
   * acknowledged a batch sent after its return, with its gate open, so a majority had confirmed it)
   * before the message entered it, and the node was downed anyway, on the resolver's leader's
   * older view. What the link had unacknowledged then, or the node had acknowledged and not yet
   * processed, is the at-most-once window of a node that is downed while it runs; counted apart.
   */
  private boolean afterConfirmation(int from, ActorRef<Object> destination, long saw, long offered) {
    long[] confirmed = confirmedAt.get(destination);
    return confirmed != null && confirmed[from] >= saw && offered >= confirmed[from];
  }

  @Override
  public void linkConfirmed(int node, ActorRef<Object> destination) {
    int dest = nodeOf(destination);
    if (membership.statusIn(node, dest) != MemberStatus.down()) {
      confirmedAt.computeIfAbsent(destination, d -> {
        long[] never = new long[SimNetwork.MAX_NODES];
        java.util.Arrays.fill(never, -1);
        return never;
      })[node] = now();
    }
  }

  @Override
  public void acknowledged(int node, ActorRef<Object> destination, Object item) {
    SimMsg m = simMsg(item);
    if (m != null) {
      ledger.at(m, nodeOf(destination));
    }
  }

  @Override
  public void noticed(int node, Object notice) {
    trace(node, "notice", notice, List.of());
  }

  @Override
  public long now() {
    return super.now();
  }

  @Override
  public void trace(int node, String what, Object input, List<?> effects) {
    super.trace(node, what, input, effects);
  }

  // ---- at the end

  @Override
  void checkAtEnd() {
    super.checkAtEnd();
    if (!membership.calm()) {
      return;
    }
    for (SimRegionHost region : regions()) {
      if (region.isStopped() || !membership.alive(region.node())) {
        continue;
      }
      if (region.held() > 0) {
        throw new SimViolation("I5 nothing held after the calm tail", region.ref() + " holds " + region.held()
            + " messages; unresolved: " + describe(ledger.unresolved(5)));
      }
      for (SimLinkHost link : region.links()) {
        if (!link.isStopped() && link.pending() > 0) {
          throw new SimViolation("I10 no link stuck", link.ref() + " to " + link.destination() + " has "
              + link.pending() + " messages pending after the calm tail");
        }
      }
    }
    if (ledger.unresolvedCount() > 0) {
      throw new SimViolation("I5 every message processed, dropped or lost", ledger.unresolvedCount()
          + " of " + ledger.sent() + " messages have no fate after the calm tail: "
          + describe(ledger.unresolved(5)));
    }
    // What entities cost by their own doing (stopping, failing) is not the moves'.
    boolean excused = ledger.reasons().keySet().stream().allMatch(r -> r.contains("buffer full")
        || r.contains("is full") || r.contains("ENTITY_") || r.contains("the entity failed"));
    if (plannedOnly && !excused) {
      throw new SimViolation("I6 planned moves lose nothing", ledger.lostCount() + " lost, " + ledger.droppedCount()
          + " dropped: " + ledger.reasons());
    }
    if (ledger.reasons().keySet().stream().anyMatch(r -> r.contains(SimLedger.Cause.DEAD_LETTER.name()))) {
      throw new SimViolation("I5 no message is a dead letter", ledger.reasons().toString());
    }
    for (SimEntityType type : types) {
      checkEntitiesAtEnd(type);
    }
  }

  /** Every type's region on every node that had one, type by type. */
  private List<SimRegionHost> regions() {
    List<SimRegionHost> all = new ArrayList<>();
    types.forEach(type -> all.addAll(type.regions.values()));
    return all;
  }

  /**
   * I11, once the cluster is calm: no entity runs twice; and with remember-entities, exactly the
   * remembered entities run: each started again wherever its shard went (a move, a node that
   * ended, an entity that stopped or failed by its own doing), none forgotten but the passivated.
   */
  private void checkEntitiesAtEnd(SimEntityType type) {
    Map<String, SimEntity> running = new TreeMap<>();
    type.live.forEach((node, live) -> {
      if (membership.alive(node)) {
        for (SimEntity e : live) {
          SimEntity other = running.put(e.id, e);
          if (other != null) {
            throw new SimViolation("I11 one incarnation of each entity at the end", e + " and " + other
                + " both run after the calm tail");
          }
        }
      }
    });
    if (!type.remembering()) {
      return;
    }
    Set<String> remembered = new TreeSet<>();
    type.rememberStore.all().values().forEach(remembered::addAll);
    Set<String> notRunning = new TreeSet<>(remembered);
    notRunning.removeAll(running.keySet());
    Set<String> notRemembered = new TreeSet<>(running.keySet());
    notRemembered.removeAll(remembered);
    if (!notRunning.isEmpty() || !notRemembered.isEmpty()) {
      StringBuilder where = new StringBuilder();
      for (String id : notRunning) {
        String shardId = type.extractor.shardId(id);
        where.append(id).append(" (shard ").append(shardId).append("; homes:");
        type.regions.forEach((n, r) -> {
          if (!r.isStopped() && membership.alive(n)) {
            where.append(" n").append(n).append("→").append(r.homeOf(shardId));
          }
        });
        where.append(") ");
      }
      throw new SimViolation("I11 the remembered entities run after the calm tail", "remembered but not running: "
          + notRunning + ", running but not remembered: " + notRemembered + "; " + where);
    }
  }

  private String describe(List<SimMsg> open) {
    StringBuilder b = new StringBuilder();
    for (SimMsg m : open) {
      SimEntityType type = typeOf(m.entityId());
      String shardId = type.extractor.shardId(m.entityId());
      b.append(m).append(" (").append(type.name).append(" shard ").append(shardId).append(", at n")
          .append(ledger.location(m)).append("; homes:");
      type.regions.forEach((n, r) -> {
        if (!r.isStopped() && membership.alive(n)) {
          b.append(" n").append(n).append("→").append(r.homeOf(shardId));
        }
      });
      b.append(") ");
    }
    return b.toString();
  }
}
