package dev.shardkit.sharding.internal.sim;

import dev.shardkit.sharding.LeastShardAllocationStrategy;
import dev.shardkit.sharding.internal.membership.ClusterChange;
import dev.shardkit.sharding.internal.coordinator.CoordinatorConfig;
import dev.shardkit.sharding.internal.coordinator.CoordinatorInput;
import dev.shardkit.sharding.internal.coordinator.CoordinatorMachine;
import dev.shardkit.sharding.internal.gate.GateProtocol.ConfirmMember;
import dev.shardkit.sharding.internal.gate.GateProtocol.MemberConfirmed;
import dev.shardkit.sharding.internal.util.ShardIdBounds;
import dev.shardkit.sharding.internal.wire.ShardingProtocol;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.BeginHandOff;
import dev.shardkit.sharding.internal.gate.SimGateHost;
import dev.shardkit.sharding.spi.CoordinatorState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.cluster.MemberStatus;

/**
 * A cluster of simulated nodes around the real {@link CoordinatorMachine}: the coordinator runs as
 * a singleton on the oldest node (taken over after its node is removed and the removal margin has
 * passed, handed over when its node leaves), and each node has a stub region
 * ({@link SimStubRegion}); membership, network and store are models ({@link SimMembership},
 * {@link SimNetwork}, {@link SimCoordinatorStore}); each node's delivery gate is kept by the real
 * gate machine ({@link SimGateHost}), whose keepers ask each other over the simulated network.
 * Everything runs on one simulated clock, in an order that the seed alone decides. One instance
 * runs one seed, on one thread.
 *
 * <p>Invariants checked as it runs: the store never gives a shard two homes (I1), the active
 * coordinator's stored state is the fold of what it stored since it loaded and agrees with the
 * store at its term (I1), a region acts only on homes and hand-offs its coordinator stored at the
 * term the region registered at (I9), and at most one live region runs a shard (I2, as far as
 * stub regions run shards). At the end, once the cluster has been calm long enough, every shard a
 * live region asked for has a home that is a live registered region, and every region's belief
 * agrees with the store (I10).
 */
class CoordinatorOnlySim implements SimMembership.Listener {

  static final String TYPE = "Sim";
  static final Comparator<ActorRef<Object>> BY_PATH = Comparator.comparing(r -> r.path().toString());
  static final long MS = 1_000_000L;
  static final Duration MARGIN = Duration.ofSeconds(4);
  /** The delivery gate's settings, shardkit's defaults ({@code shardkit.sharding.delivery-gate}). */
  static final Duration PAUSE_THRESHOLD = Duration.ofSeconds(1);
  static final Duration CONFIRM_INTERVAL = Duration.ofMillis(200);

  /** What a run of a seed came to. */
  record Result(SimScenario scenario, long steps, long hash, long simulatedMs, int superseded, SimViolation violation,
      String trace) {}

  final SimScenario scenario;
  final SimClock clock = new SimClock();
  final SimScheduler scheduler = new SimScheduler(clock);
  final SimRng rng;
  final SimTrace trace;
  final SimMembership membership;
  final SimNetwork network;
  /** The coordinator singleton of each entity type, by the type's index; the first type's is {@link #store}'s. */
  final List<Singleton> singletons = new ArrayList<>();
  /** The first entity type's coordinator store; an outage takes every type's store out (one database). */
  final SimCoordinatorStore store;
  private final Map<Integer, SimStubRegion> regions = new TreeMap<>();
  /** Each node's gate keeper, by node. */
  private final SimGateHost[] gates = new SimGateHost[SimNetwork.MAX_NODES];
  /** The node at each address, for the keepers' questions; looked up only. */
  private final Map<String, Integer> nodesByAddress = new HashMap<>();
  private final SimGateHost.World gateWorld = new GateWorld();
  private final Map<ActorRef<Object>, SimCoordinatorHost> hostsByRef = new HashMap<>();
  /** Where each shard runs; looked up only. */
  private final Map<String, SimStubRegion> runningShards = new HashMap<>();
  final long trafficEnd;
  final long end;
  private long burstUntil;
  private int burstNode = -1;

  /** The coordinator singleton of one entity type: its store and where its incarnations run. */
  final class Singleton {
    final int index;
    final String typeName;
    final SimCoordinatorStore store;
    private final CoordinatorConfig[] configs = new CoordinatorConfig[SimNetwork.MAX_NODES];
    /** The coordinators running, in the order they started. */
    final List<SimCoordinatorHost> running = new ArrayList<>();
    private int uids;
    private int lastHolder = -1;
    private boolean lastHandedOver;
    private final Set<Integer> startsPending = new TreeSet<>();

    Singleton(int index, String typeName, SimCoordinatorStore store) {
      this.index = index;
      this.typeName = typeName;
      this.store = store;
    }
  }

  /** The name of the entity type with this index: the first is {@link #TYPE}. */
  static String typeName(int index) {
    return index == 0 ? TYPE : TYPE + (index + 1);
  }

  CoordinatorOnlySim(SimScenario scenario, boolean deepHash) {
    this(scenario, deepHash, 1);
  }

  /** @param types how many entity types the cluster runs, each with its coordinator singleton and store */
  CoordinatorOnlySim(SimScenario scenario, boolean deepHash, int types) {
    this.scenario = scenario;
    this.rng = new SimRng(scenario.seed());
    this.trace = new SimTrace(deepHash ? 20_000 : 2000, deepHash);
    this.membership = new SimMembership(scheduler, rng, MARGIN.toNanos());
    this.network = new SimNetwork(scheduler, rng, new SimNetwork.Reach() {
      @Override
      public boolean connected(int from, int to) {
        return membership.connected(from, to);
      }

      @Override
      public void whenRunning(int n, Runnable delivery) {
        membership.whenRunning(n, delivery);
      }
    });
    for (int t = 0; t < types; t++) {
      // The first type's store draws from the seed's own streams, as when there was one type.
      SimRng storeRng = t == 0 ? rng : new SimRng(scenario.seed() ^ (0x7e9eL * t));
      singletons.add(new Singleton(t, typeName(t), new SimCoordinatorStore(scheduler, storeRng,
          n -> membership.alive(n) && (scenario.storeOutsideCluster() || !membership.cutOff(n)
              && membership.status(n) != null && membership.status(n) != MemberStatus.down()), scenario.lostReplies(),
          (scenario.lastActionEndMs() + 15_000) * MS)));
    }
    this.store = singletons.get(0).store;
    membership.listener(this);
    long last = scenario.lastActionEndMs();
    this.trafficEnd = (last + 15_000) * MS;
    this.end = (last + 45_000) * MS;
  }

  static Result run(long seed, boolean deepHash) {
    return run(seed, Boolean.parseBoolean(System.getProperty("sim.zombies", "true")), deepHash);
  }

  static Result run(long seed, boolean zombies, boolean deepHash) {
    return new CoordinatorOnlySim(SimScenario.generate(seed, zombies), deepHash).run();
  }

  Result run() {
    try {
      for (int n : membership.form(scenario.nodes())) {
        addNode(n);
      }
      for (SimScenario.Action action : scenario.actions()) {
        scheduler.at(action.atMs() * MS, () -> act(action));
      }
      scheduler.after(20 * MS, this::singletonCheck);
      while (scheduler.step(end)) {
        // each step checks what it touched
      }
      checkAtEnd();
      return new Result(scenario, trace.steps(), trace.hash(), now() / MS, superseded, null, null);
    } catch (SimViolation v) {
      return new Result(scenario, trace.steps(), trace.hash(), now() / MS, superseded, v, trace.last(Integer.getInteger("sim.traceSteps", 120)));
    }
  }

  // ---- the scenario's actions

  private void act(SimScenario.Action action) {
    trace.step(now(), -1, "action", action, List.of());
    switch (action.kind()) {
      case JOIN -> {
        int n = membership.join();
        addNode(n);
      }
      case CRASH -> {
        int n = target(action.onCoordinator());
        if (n >= 0 && membership.noFailure() && membership.healthyMajorityAfter(1)) {
          faulted(Set.of(n));
          membership.crash(n);
        }
      }
      case PARTITION -> {
        int n = target(action.onCoordinator());
        if (n >= 0 && membership.noFailure() && membership.healthyMajorityAfter(action.size())) {
          Set<Integer> cut = new TreeSet<>();
          cut.add(n);
          for (int other : membership.healthyUp()) {
            if (cut.size() < action.size() && other != n) {
              cut.add(other);
            }
          }
          faulted(cut);
          membership.partition(cut, action.durationMs() * MS);
        }
      }
      case LEAVE -> {
        int n = target(action.onCoordinator());
        if (n >= 0 && membership.noFailure() && membership.healthyMajorityAfter(1)) {
          membership.leave(n);
        }
      }
      case FREEZE -> {
        int n = target(action.onCoordinator());
        if (n >= 0 && membership.noFailure() && membership.healthyMajorityAfter(1)) {
          faulted(Set.of(n));
          membership.freeze(n, action.durationMs() * MS);
        }
      }
      case STORE_OUTAGE -> singletons.forEach(s -> s.store.outage(action.durationMs() * MS));
      case BURST -> {
        List<Integer> up = membership.healthyUp();
        if (!up.isEmpty()) {
          burstNode = up.get(rng.stream("burst").nextInt(up.size()));
          burstUntil = now() + action.durationMs() * MS;
        }
      }
    }
  }

  /** A crash, freeze or partition begins for {@code nodes}. */
  void faulted(Set<Integer> nodes) {}

  /** The coordinator's node, or another healthy Up one; -1 if there is none. */
  private int target(boolean coordinator) {
    List<Integer> up = membership.healthyUp();
    if (up.isEmpty()) {
      return -1;
    }
    List<SimCoordinatorHost> running = singletons.get(0).running;
    if (coordinator && !running.isEmpty() && up.contains(running.get(running.size() - 1).node)) {
      return running.get(running.size() - 1).node;
    }
    return up.get(rng.stream("target").nextInt(up.size()));
  }

  /** A node joined the cluster (or formed it): it gets its gate keeper, subscribed to its view, and its region. */
  private void addNode(int n) {
    SimGateHost gate = new SimGateHost(gateWorld, n, SimRefs.keeper(n), SimMembership.id(n), CONFIRM_INTERVAL,
        PAUSE_THRESHOLD);
    gates[n] = gate;
    nodesByAddress.put(SimRefs.address(n).toString(), n);
    gate.membership(membership.snapshot(n));
    addRegion(n);
  }

  /** A node joined the cluster (or formed it): it gets its region. */
  void addRegion(int n) {
    SimStubRegion region = new SimStubRegion(this, n, SimRefs.region(n, TYPE));
    regions.put(n, region);
    scheduler.after(rng.millis("region.phase", 0, 1000), () -> tick(region));
  }

  private void tick(SimStubRegion region) {
    if (region.stopped || !membership.alive(region.node)) {
      return;
    }
    region.tick();
    scheduler.after(1000 * MS, () -> membership.whenRunning(region.node, () -> tick(region)));
  }

  // ---- the singleton

  /** Where each entity type's coordinator runs: {@link #singletonCheck(Singleton)} for each. */
  private void singletonCheck() {
    for (Singleton singleton : singletons) {
      singletonCheck(singleton);
    }
  }

  /**
   * Where a type's coordinator runs: a coordinator whose node ended is gone; one whose node exits
   * hands over (it is told to stop); a node that sees itself as the oldest, and sees no coordinator
   * of the type running on a member, starts one, after the removal margin if the last one's node
   * was removed without leaving.
   */
  private void singletonCheck(Singleton s) {
    for (SimCoordinatorHost host : new ArrayList<>(s.running)) {
      if (host.stopped || !membership.alive(host.node)) {
        host.gone();
        s.running.remove(host);
        s.lastHolder = host.node;
        s.lastHandedOver = host.stopped && membership.alive(host.node);
        coordinatorGone(host);
      } else if (membership.statusIn(host.node, host.node) == MemberStatus.exiting()) {
        host.handle(new CoordinatorInput.Stop());
        if (host.stopped) {
          singletonCheck(s);
          return;
        }
      }
    }
    for (int c : new TreeSet<>(membership.alive())) {
      if (membership.oldestIn(c) != c || s.startsPending.contains(c) || !vacantFor(s, c)) {
        continue;
      }
      if (s.lastHolder >= 0 && !s.lastHandedOver && membership.statusIn(c, s.lastHolder) != null) {
        continue; // the last coordinator's node is not removed yet, as c sees it
      }
      boolean removedRunning = false;
      for (SimCoordinatorHost host : s.running) {
        removedRunning |= membership.removedIn(c, host.node);
      }
      // Taking over from a node that was removed without leaving waits the removal margin: that
      // node may still run until it has downed itself.
      long delay = !removedRunning && (s.lastHolder < 0 || s.lastHandedOver) ? 20 * MS : MARGIN.toNanos();
      s.startsPending.add(c);
      scheduler.after(delay, () -> {
        s.startsPending.remove(c);
        if (membership.alive(c) && membership.oldestIn(c) == c && vacantFor(s, c)) {
          startCoordinator(s, c);
        }
      });
    }
  }

  /** A coordinator ended: the regions watching it hear so. */
  void coordinatorGone(SimCoordinatorHost host) {
    regions.values().forEach(r -> {
      if (r.node != host.node) {
        network.send(host.node, r.node, () -> r.coordinatorTerminated(host.ref));
      }
    });
  }

  /** Whether node {@code c} sees no coordinator of the type running on a member. */
  private boolean vacantFor(Singleton s, int c) {
    for (SimCoordinatorHost host : s.running) {
      if (host.node == c || membership.statusIn(c, host.node) != null) {
        return false;
      }
    }
    return true;
  }

  private void startCoordinator(Singleton s, int n) {
    ActorRef<Object> ref = SimRefs.coordinator(n, s.typeName, ++s.uids);
    SimCoordinatorHost host = new SimCoordinatorHost(this, s, n, ref, config(s, n), s.store, rng);
    hostsByRef.put(ref, host);
    s.running.add(host);
    host.start(membership.snapshot(n));
  }

  private CoordinatorConfig config(Singleton s, int n) {
    if (s.configs[n] == null) {
      int known = scenario.knownShards();
      s.configs[n] = new CoordinatorConfig(s.typeName, Optional.empty(),
          new LeastShardAllocationStrategy(scenario.rebalanceThreshold(), 20, 0.1), known,
          new ShardIdBounds(s.typeName, known, 1000, null), remembersEntities(s.index), scenario.tellsHomes(),
          Duration.ofSeconds(2), Duration.ofMillis(scenario.rebalanceIntervalMs()), Duration.ofSeconds(5), MARGIN, 1000,
          100, SimRefs.address(n), "simulated store");
    }
    return s.configs[n];
  }

  /** Whether the type with this index remembers its entities: not with stub regions, which run no shards. */
  boolean remembersEntities(int type) {
    return false;
  }

  /** The coordinator reads which shards have remembered entities: none, with stub regions. */
  void readRememberedShards(SimCoordinatorHost host, long readId) {
    after(MS, () -> toCoordinatorHost(host, new CoordinatorInput.RememberedShardsRead(readId, Set.of())));
  }

  void coordinatorStopped(SimCoordinatorHost host) {
    scheduler.after(MS, this::singletonCheck);
  }

  // ---- membership heard

  @Override
  public void changed(int node, ClusterChange change) {
    trace.step(now(), node, "membership", change, List.of());
    if (membership.alive(node)) {
      gates[node].membership(change);
    }
    for (SimCoordinatorHost host : running()) {
      if (host.node == node && !host.stopped) {
        host.handle(new CoordinatorInput.Membership(change));
      }
    }
    if (change instanceof ClusterChange.MemberChanged changed && changed.node().status() == MemberStatus.removed()) {
      int gone = nodeOf(changed.node().id().address());
      SimStubRegion region = regions.get(node);
      if (region != null) {
        region.nodeRemoved(gone);
      }
      for (SimCoordinatorHost host : running()) {
        if (host.node == node) {
          Set<ActorRef<Object>> watched = new TreeSet<>(BY_PATH);
          watched.addAll(host.watched);
          for (ActorRef<Object> watchedRef : watched) {
            if (nodeOf(watchedRef) == gone) {
              scheduler.after(rng.millis("terminated", 0, 3), () -> toCoordinatorHost(host,
                  new CoordinatorInput.Terminated(watchedRef)));
            }
          }
        }
      }
    }
    singletonCheck();
  }

  @Override
  public void ended(int node) {
    trace.step(now(), node, "node ended", null, List.of());
    gates[node].stop();
    SimStubRegion region = regions.get(node);
    if (region != null) {
      region.died();
    }
    singletonCheck();
  }

  @Override
  public void thawed(int node, long nanos) {
    gates[node].paused(nanos);
  }

  @Override
  public void leaving(int node) {
    SimStubRegion region = regions.get(node);
    if (region != null) {
      region.shutDown();
    }
  }

  // ---- what the regions and coordinators send

  /** Every coordinator running, of every type, in the order the types and their incarnations started. */
  List<SimCoordinatorHost> running() {
    List<SimCoordinatorHost> all = new ArrayList<>();
    singletons.forEach(s -> all.addAll(s.running));
    return all;
  }

  /**
   * Through the singleton proxy of {@code from} for the type of {@code singleton}: to that type's
   * coordinator on the oldest node as it sees it.
   */
  void viaProxy(Singleton singleton, int from, ShardingProtocol message) {
    int oldest = membership.oldestIn(from);
    if (oldest < 0) {
      return;
    }
    network.send(from, oldest, () -> {
      for (SimCoordinatorHost host : new ArrayList<>(singleton.running)) {
        if (host.node == oldest && !host.stopped) {
          host.handle(new CoordinatorInput.Protocol(message));
        }
      }
    });
  }

  void toCoordinator(int from, ActorRef<Object> coordinator, ShardingProtocol message) {
    SimCoordinatorHost host = hostsByRef.get(coordinator);
    if (host != null) {
      network.send(from, host.node, () -> host.handle(new CoordinatorInput.Protocol(message)));
    }
  }

  void toRegion(int from, ActorRef<Object> to, Object message) {
    int n = nodeOf(to);
    SimStubRegion region = regions.get(n);
    if (region == null || !region.ref.equals(to)) {
      return;
    }
    network.send(from, n, () -> {
      if (message instanceof SimStubRegion.SimTraffic t) {
        region.traffic(t.shardId());
      } else {
        trace.step(now(), n, "region", message, List.of());
        region.receive((ShardingProtocol) message);
      }
    });
  }

  /**
   * A coordinator waits for its node's delivery gate: told {@code GateOpened} once it is open (its
   * keeper confirmed the node a member again), never if it closed for good (the node is out).
   */
  void awaitGate(SimCoordinatorHost host) {
    whenGateOpen(host.node, () -> {
      if (!host.stopped) {
        host.handle(new CoordinatorInput.GateOpened());
      }
    });
  }

  // ---- the delivery gates

  /** Whether node {@code node}'s delivery gate is open, as its keeper left it. */
  public boolean gateOpen(int node) {
    return gates[node].isOpen();
  }

  /** Whether node {@code node}'s delivery gate is closed for good: the node is out of the cluster. */
  boolean gateDown(int node) {
    return gates[node].isDown();
  }

  /** Runs {@code action} on {@code node} once its delivery gate is open (soon if it is); never if it is down. */
  void whenGateOpen(int node, Runnable action) {
    gates[node].whenOpen(action);
  }

  /** {@code subscriber} (a region) subscribes to the gate keeper of its node. */
  void gateSubscribe(int node, ActorRef<Object> subscriber) {
    gates[node].subscribe(subscriber);
  }

  /** The keeper of {@code node} tells its subscribers of the gate's change; only the regions subscribe. */
  void gateChanged(int node, List<ActorRef<Object>> subscribers, Object change) {}

  /** The keeper of {@code node} watches a subscriber; only the regions subscribe. */
  void gateWatch(int node, ActorRef<Object> subscriber, Runnable gone) {}

  /** The keepers' world: the simulation's clock, network and trace. */
  private final class GateWorld implements SimGateHost.World {
    @Override
    public long now() {
      return CoordinatorOnlySim.this.now();
    }

    @Override
    public void ask(int node, List<String> members, ConfirmMember question) {
      for (String address : members) {
        int to = nodesByAddress.get(address);
        network.send(node, to, () -> gates[to].asked(question));
      }
    }

    @Override
    public void answer(int node, ActorRef<Object> to, MemberConfirmed answer) {
      int n = nodeOf(to);
      network.send(node, n, () -> gates[n].confirmed(answer));
    }

    @Override
    public void notify(int node, List<ActorRef<Object>> subscribers, Object change) {
      gateChanged(node, subscribers, change);
    }

    @Override
    public void watch(int node, ActorRef<Object> ref, Runnable gone) {
      gateWatch(node, ref, gone);
    }

    @Override
    public void after(int node, long nanos, Runnable action) {
      CoordinatorOnlySim.this.after(node, nanos, action);
    }

    @Override
    public void trace(int node, String what, Object input, List<?> effects) {
      CoordinatorOnlySim.this.trace(node, what, input, effects);
    }
  }

  /** A store answer or a timer, on the coordinator's own node. */
  void toCoordinatorHost(SimCoordinatorHost host, CoordinatorInput input) {
    membership.whenRunning(host.node, () -> {
      if (!host.stopped && membership.alive(host.node)) {
        host.handle(input);
      }
    });
  }

  /** The announcement's {@code Identify}: node {@code to} answers whether it has a region. */
  void identify(int from, int to, SimCoordinatorHost host) {
    network.send(from, to, () -> {
      SimStubRegion region = regions.get(to);
      boolean has = region != null && !region.stopped;
      network.send(to, from, () -> toCoordinatorHost(host,
          new CoordinatorInput.NodeIdentified(SimRefs.address(to), has)));
    });
  }

  /** Death watch: a region that stopped, or whose node the watcher does not see as a member, is terminated. */
  void watch(SimCoordinatorHost host, ActorRef<Object> ref) {
    int n = nodeOf(ref);
    SimStubRegion region = regions.get(n);
    // A node not yet seen joining is watched as any remote node is; one seen removed is gone.
    boolean gone = membership.removedIn(host.node, n) || region == null || !region.ref.equals(ref)
        || (region.stopped && membership.alive(n));
    if (gone) {
      scheduler.after(rng.millis("terminated", 0, 3), () -> toCoordinatorHost(host,
          new CoordinatorInput.Terminated(ref)));
    }
  }

  /** Remote death watch of a region on a node the watcher never saw: Terminated after 10 s if it is gone. */
  void watchUnknown(SimStubRegion watcher, ActorRef<Object> ref) {
    scheduler.after(10_000 * MS, () -> {
      SimStubRegion region = regions.get(nodeOf(ref));
      if (region == null || region.stopped || !membership.alive(region.node)) {
        watcher.regionTerminated(ref);
      }
    });
  }

  void regionStopped(SimStubRegion region) {
    trace.step(now(), region.node, "region stopped", region.ref, List.of());
    for (SimCoordinatorHost host : running()) {
      if (host.watched.contains(region.ref)) {
        network.send(region.node, host.node, () -> toCoordinatorHost(host,
            new CoordinatorInput.Terminated(region.ref)));
      }
    }
    for (SimStubRegion other : regions.values()) {
      if (other != region && !other.stopped) {
        network.send(region.node, other.node, () -> other.regionTerminated(region.ref));
      }
    }
    membership.exitReady(region.node);
  }

  // ---- traffic

  boolean trafficOn() {
    return now() < trafficEnd;
  }

  /** The shard that a message from node {@code n} goes to now, if one does. */
  String trafficShard(int n) {
    boolean burst = n == burstNode && now() < burstUntil;
    if (!burst && !rng.chance("traffic", scenario.trafficRate())) {
      return null;
    }
    return Integer.toString(rng.stream("traffic.shard").nextInt(scenario.askedShards()));
  }

  // ---- invariants

  void started(SimStubRegion region, String shardId) {
    trace.step(now(), region.node, "shard started", shardId, List.of());
    // A node that was paused, or that the cluster has downed, may still run the shard until it
    // notices: its entities are stopped by the delivery gate, which the stub regions do not consult.
    if (!inCluster(region.node)) {
      return;
    }
    SimStubRegion other = runningShards.get(shardId);
    if (other != null && other != region && !other.stopped && inCluster(other.node)) {
      throw new SimViolation("I2 one running copy of a shard",
          "shard " + shardId + " started in " + region.ref + " while it runs in " + other.ref);
    }
    runningShards.put(shardId, region);
  }

  /** Alive, running, and neither downed nor removed. */
  private boolean inCluster(int n) {
    MemberStatus status = membership.status(n);
    return membership.alive(n) && membership.thawAt(n) < 0 && status != null && status != MemberStatus.down();
  }

  void stoppedShard(SimStubRegion region, String shardId) {
    if (runningShards.get(shardId) == region) {
      runningShards.remove(shardId);
    }
  }

  void actsOnHome(SimStubRegion region, long term, String shardId, ActorRef<Object> home) {
    if (!store.stored(term, shardId, home)) {
      throw new SimViolation("I9 a region acts only on what its coordinator stored at its term",
          region.ref + " acts on home " + home + " of shard " + shardId + " at term " + term
              + ", which no coordinator stored at that term");
    }
  }

  void actsOnHandOff(SimStubRegion region, BeginHandOff begin) {
    if (!store.stored(begin.term(), begin.shardId(), begin.owner())) {
      throw new SimViolation("I9 a region acts only on what its coordinator stored at its term",
          region.ref + " acts on " + begin + " whose owner was never the stored home at that term");
    }
  }

  void checkStoreAgrees(SimCoordinatorHost host) {
    SimCoordinatorStore store = host.singleton.store;
    if (store.term() == host.machine.term() && !store.state().equals(host.machine.stored())) {
      throw new SimViolation("I1 the store holds what the active coordinator stored",
          "the store of " + host.singleton.typeName + " at term " + store.term() + " holds " + store.state()
              + " but the coordinator has " + host.machine.stored());
    }
  }

  /** I10: the cluster has been calm: every asked shard has a live registered home that every asker knows. */
  /** What is checked once the run has ended: {@link #checkLiveness}. */
  void checkAtEnd() {
    checkLiveness();
  }

  private void checkLiveness() {
    if (!membership.calm()) {
      return; // the scenario ended unsettled (a node still leaving): nothing is promised yet
    }
    for (Singleton s : singletons) {
      SimCoordinatorHost active = null;
      for (SimCoordinatorHost host : s.running) {
        if (!host.stopped && membership.alive(host.node)) {
          active = host;
        }
      }
      if (active == null || active.machine.phase() != CoordinatorMachine.Phase.ACTIVE) {
        throw new SimViolation("I10 liveness", "no active coordinator of " + s.typeName + " at the end: "
            + (active == null ? "none runs" : "phase " + active.machine.phase()));
      }
    }
    CoordinatorState state = store.state();
    for (SimStubRegion region : regions.values()) {
      if (region.stopped || !membership.alive(region.node)) {
        continue;
      }
      if (!region.registered()) {
        throw new SimViolation("I10 liveness", region.ref + " is not registered at the end");
      }
      for (String shardId : region.wanted) {
        ActorRef<Object> home = state.shards().get(shardId);
        if (home == null) {
          throw new SimViolation("I10 liveness", "shard " + shardId + " asked for by " + region.ref
              + " has no home in the store at the end");
        }
        SimStubRegion homeRegion = regions.get(nodeOf(home));
        if (homeRegion == null || homeRegion.stopped || !membership.alive(homeRegion.node)
            || membership.status(homeRegion.node) != MemberStatus.up() || !state.regions().containsKey(home)) {
          throw new SimViolation("I10 liveness", "shard " + shardId + " is homed at " + home
              + ", which is not a live registered region at the end");
        }
        if (!home.equals(region.belief(shardId))) {
          throw new SimViolation("I10 liveness", region.ref + " believes shard " + shardId + " is at "
              + region.belief(shardId) + " but the store says " + home);
        }
      }
    }
  }

  // ---- what the seeds exercised

  /** How often each kind of coordinator notice was reported, over every seed run in this JVM. */
  private static final Map<String, java.util.concurrent.atomic.LongAdder> NOTICES =
      new java.util.concurrent.ConcurrentHashMap<>();

  private int superseded;

  void noticed(Object notice) {
    if (notice instanceof dev.shardkit.sharding.internal.coordinator.CoordinatorNotice.Superseded) {
      superseded++;
    }
    NOTICES.computeIfAbsent(notice.getClass().getSimpleName(), k -> new java.util.concurrent.atomic.LongAdder())
        .increment();
  }

  /** The notices' counts, by kind, sorted by name. */
  static String noticeCounts() {
    StringBuilder b = new StringBuilder();
    new TreeMap<>(NOTICES).forEach((kind, count) -> b.append(kind).append('=').append(count.sum()).append(' '));
    return b.toString().trim();
  }

  // ---- helpers

  long now() {
    return clock.now();
  }

  void after(long nanos, Runnable action) {
    scheduler.after(nanos, action);
  }

  /** Runs {@code action} on node {@code node} after {@code nanos}, once the node runs, if it is still alive. */
  public void after(int node, long nanos, Runnable action) {
    scheduler.after(nanos, () -> membership.whenRunning(node, () -> {
      if (membership.alive(node)) {
        action.run();
      }
    }));
  }

  void trace(int node, String what, Object input, List<?> effects) {
    trace.step(now(), node, what, input, effects);
  }

  int nodeOf(ActorRef<?> ref) {
    return nodeOf(ref.path().address());
  }

  int nodeOf(Address address) {
    return address.port().isDefined() ? (Integer) address.port().get() - 27000 : -1;
  }

  /** Whether node {@code viewer} sees the node of {@code region} as a member. */
  boolean memberIn(int viewer, ActorRef<Object> region) {
    return membership.statusIn(viewer, nodeOf(region)) != null;
  }
}
