package dev.shardkit.sharding.internal.sim;

import dev.shardkit.sharding.CoordinatorBacklog;
import dev.shardkit.sharding.internal.membership.ClusterChange;
import dev.shardkit.sharding.internal.coordinator.CoordinatorConfig;
import dev.shardkit.sharding.internal.coordinator.CoordinatorEffect;
import dev.shardkit.sharding.internal.coordinator.CoordinatorInput;
import dev.shardkit.sharding.internal.coordinator.CoordinatorMachine;
import dev.shardkit.sharding.internal.coordinator.CoordinatorNotice;
import dev.shardkit.sharding.internal.coordinator.CoordinatorPorts;
import dev.shardkit.sharding.internal.coordinator.CoordinatorTimer;
import dev.shardkit.sharding.internal.membership.MembersFold;
import dev.shardkit.sharding.internal.wire.ShardingProtocol;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.RegisterAck;
import dev.shardkit.sharding.spi.CoordinatorEvent;
import dev.shardkit.sharding.spi.CoordinatorState;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * One coordinator incarnation in the simulation: the real {@link CoordinatorMachine}, given its
 * inputs one at a time, and the simulation's {@link CoordinatorPorts}, which carry out its effects
 * with the simulation's network, timers and store, exactly as {@code ShardCoordinator} carries them
 * out with Pekko (each effect applies itself to the ports). It also keeps what the invariants
 * compare the machine with: the state it loaded, folded with the events of each write it was told
 * was stored.
 */
final class SimCoordinatorHost implements CoordinatorPorts {

  private final CoordinatorOnlySim sim;
  /** The singleton of the entity type this coordinator is an incarnation of. */
  final CoordinatorOnlySim.Singleton singleton;
  final int node;
  final ActorRef<Object> ref;
  final CoordinatorMachine machine;
  private final SimCoordinatorStore.Handle store;
  /** The generation of each timer running; a firing of another is not delivered (as a cancelled Pekko timer). */
  private final Map<CoordinatorTimer, Long> timers = new HashMap<>();
  /** The events of each write started, by write id; looked up only. */
  private final Map<Long, List<CoordinatorEvent>> writes = new HashMap<>();
  final Set<ActorRef<Object>> watched = new HashSet<>();
  private CoordinatorState folded;
  boolean stopped;
  long drops;

  SimCoordinatorHost(CoordinatorOnlySim sim, CoordinatorOnlySim.Singleton singleton, int node, ActorRef<Object> ref,
      CoordinatorConfig config, SimCoordinatorStore store, SimRng rng) {
    this.sim = sim;
    this.singleton = singleton;
    this.node = node;
    this.ref = ref;
    this.store = store.new Handle(node);
    SplittableRandom ids = rng.stream("handoff.ids");
    this.machine = new CoordinatorMachine(config, ref, 0, ids::nextInt, new MembersFold(SimRefs.address(node)));
  }

  /** Hands the machine one input and carries out its effects, then checks what it stored. */
  void handle(CoordinatorInput input) {
    if (stopped) {
      return;
    }
    CoordinatorState storedBefore = machine.phase() == CoordinatorMachine.Phase.LOADING ? null : machine.stored();
    List<CoordinatorEffect> effects;
    try {
      effects = List.copyOf(machine.handle(input, sim.now()));
    } catch (RuntimeException e) {
      sim.trace(node, "coordinator", input, List.of());
      throw new SimViolation("machine failure", "the coordinator machine threw on " + input + ": " + e);
    }
    sim.trace(node, "coordinator", input, effects);
    if (input instanceof CoordinatorInput.Loaded && machine.phase() != CoordinatorMachine.Phase.LOADING) {
      folded = ((CoordinatorInput.Loaded) input).loaded().state();
    }
    for (CoordinatorEffect effect : effects) {
      effect.applyTo(this);
    }
    if (input instanceof CoordinatorInput.Stored s && storedBefore != null && machine.stored() != storedBefore) {
      List<CoordinatorEvent> events = writes.get(s.writeId());
      for (CoordinatorEvent e : events) {
        folded = folded.applied(e);
      }
      if (!folded.equals(machine.stored())) {
        throw new SimViolation("I1 stored state is the fold of the events stored",
            "after write " + s.writeId() + " the machine holds " + machine.stored() + " but its loaded state and the "
                + "events it stored fold to " + folded);
      }
      sim.checkStoreAgrees(this);
    }
  }

  void start(ClusterChange.Members members) {
    handle(new CoordinatorInput.Membership(members));
    handle(new CoordinatorInput.Start());
  }

  /** Its node's process ended, or the singleton moved away: it hears nothing more. */
  void gone() {
    stopped = true;
  }

  // ---- the ports

  @Override
  public void send(ActorRef<Object> to, ShardingProtocol message) {
    sim.toRegion(node, to, message);
  }

  @Override
  public void announce(List<Address> nodes, RegisterAck hello) {
    for (Address address : nodes) {
      int to = sim.nodeOf(address);
      sim.toRegion(node, SimRefs.region(to, singleton.typeName), hello);
      sim.identify(node, to, this);
    }
  }

  @Override
  public void watch(ActorRef<Object> watchedRef) {
    watched.add(watchedRef);
    sim.watch(this, watchedRef);
  }

  @Override
  public void load(long attempt) {
    store.load(loaded -> sim.toCoordinatorHost(this, new CoordinatorInput.Loaded(attempt, loaded)),
        failure -> sim.toCoordinatorHost(this, new CoordinatorInput.LoadFailed(attempt, failure)));
  }

  @Override
  public void store(long writeId, List<CoordinatorEvent> events, CoordinatorState after) {
    writes.put(writeId, events);
    store.store(events, after, () -> sim.toCoordinatorHost(this, new CoordinatorInput.Stored(writeId)),
        failure -> sim.toCoordinatorHost(this, new CoordinatorInput.StoreFailed(writeId, failure)));
  }

  @Override
  public void readRememberedShards(long readId) {
    sim.readRememberedShards(this, readId);
  }

  @Override
  public void awaitGate() {
    sim.awaitGate(this);
  }

  @Override
  public void startTimer(CoordinatorTimer key, long generation, Duration delay) {
    timers.put(key, generation);
    sim.after(delay.toNanos(), () -> {
      Long current = timers.get(key);
      if (current != null && current == generation) {
        timers.remove(key);
        sim.toCoordinatorHost(this, new CoordinatorInput.TimerFired(key, generation));
      }
    });
  }

  @Override
  public void cancelTimer(CoordinatorTimer key) {
    timers.remove(key);
  }

  @Override
  public void cancelAllTimers() {
    timers.clear();
  }

  @Override
  public void replyBacklog(ActorRef<CoordinatorBacklog> to, CoordinatorBacklog backlog) {
    // Nobody in the simulation asks.
  }

  @Override
  public void drop(Object message, String reason) {
    drops++;
  }

  @Override
  public void report(CoordinatorNotice notice) {
    // The notice is in the trace, with the effects it came with; only its kind is counted.
    sim.noticed(notice);
  }

  @Override
  public void stopped() {
    stopped = true;
    sim.coordinatorStopped(this);
  }

  CoordinatorState folded() {
    return folded;
  }
}
