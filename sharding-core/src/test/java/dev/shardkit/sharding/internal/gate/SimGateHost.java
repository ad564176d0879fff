package dev.shardkit.sharding.internal.gate;

import dev.shardkit.sharding.internal.gate.GateProtocol.ConfirmMember;
import dev.shardkit.sharding.internal.gate.GateProtocol.MemberConfirmed;
import dev.shardkit.sharding.internal.membership.ClusterChange;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.cluster.UniqueAddress;

/**
 * One simulated node's gate keeper: the real {@link GateMachine}, fed as {@link GateKeeper} feeds
 * it (the node's membership folded by {@link GateMembership}, run by {@link GateDriver}), its
 * effects carried out on the node's simulated delivery gate, the simulated network, timers and
 * trace. The gate itself is a state (open, closed, down) and the time of the last pause, as
 * {@link DeliveryGate} keeps them; its lease is left out, as the simulation freezes a node by
 * running nothing on it and reports the pause at thaw ({@link #paused}), as the ticker would.
 * Public, and in this package, only because the gate's machine, inputs and ports are
 * package-private here; the simulation is in {@code internal.sim}.
 */
public final class SimGateHost implements GatePorts {

  /** What the simulation gives the keeper: its clock, network, timers, death watch and trace. */
  public interface World {
    long now();

    /** Sends {@code question} from node {@code node}'s keeper to the keeper at each of {@code members} (addresses). */
    void ask(int node, List<String> members, ConfirmMember question);

    /** Sends {@code answer} from node {@code node}'s keeper to the keeper {@code to}. */
    void answer(int node, ActorRef<Object> to, MemberConfirmed answer);

    /** Tells the subscribers on node {@code node} of the gate's change (a {@code GateKeeper.GateChanged}). */
    void notify(int node, List<ActorRef<Object>> subscribers, Object change);

    /** Node {@code node}'s keeper watches {@code ref}: {@code gone} runs once it has stopped. */
    void watch(int node, ActorRef<Object> ref, Runnable gone);

    /** Runs {@code action} on node {@code node} after {@code nanos}, once the node runs. */
    void after(int node, long nanos, Runnable action);

    void trace(int node, String what, Object input, List<?> effects);
  }

  /** The ticker's report reaches the keeper this long after the ticker closed the gate: a local message. */
  private static final long PAUSE_REPORT_NANOS = 10_000;

  private final World world;
  private final int node;
  private final long pauseThresholdNanos;
  private final GateMachine machine;
  private final GateMembership membership;
  /** The effects of the input being run, for the trace. */
  private final List<Object> effects = new ArrayList<>();
  /** Who waits for the gate to open, in the order they parked. */
  private final List<Runnable> parked = new ArrayList<>();
  private DeliveryGate.State state = DeliveryGate.State.OPEN;
  /** When the node was last found paused, as {@link DeliveryGate} keeps it; never, before the first pause. */
  private long lastPauseSeen = Long.MIN_VALUE;
  /** The retry timer's generation while it runs; -1 once cancelled. */
  private long retryGeneration = -1;
  private boolean stopped;

  /**
   * @param keeper this node's keeper, which the other keepers answer
   * @param self this node's address and incarnation
   */
  public SimGateHost(World world, int node, ActorRef<Object> keeper, UniqueAddress self, Duration retryInterval,
      Duration pauseThreshold) {
    this.world = world;
    this.node = node;
    this.pauseThresholdNanos = pauseThreshold.toNanos();
    this.machine = new GateMachine(keeper, self.address().toString(), self.longUid(), retryInterval, pauseThreshold);
    this.membership = new GateMembership(self);
  }

  // ---- what the keeper hears

  /** Node's view changed (its subscription's first snapshot too), as the keeper hears cluster events. */
  public void membership(ClusterChange change) {
    run(membership.apply(change, Departure.ShutdownReason.NONE));
  }

  /**
   * The node thaws after {@code nanos} of running nothing. A pause of at least the threshold is
   * the ticker's: it closes an open gate itself, at once, before anything else runs on the node,
   * and then tells the keeper, whose mailbox may hold what arrived during the pause.
   */
  public void paused(long nanos) {
    if (stopped || nanos < pauseThresholdNanos) {
      return;
    }
    lastPauseSeen = world.now();
    if (state == DeliveryGate.State.OPEN) {
      state = DeliveryGate.State.CLOSED;
    }
    world.after(node, PAUSE_REPORT_NANOS, () -> run(new GateInput.Paused(nanos)));
  }

  /** Another node's keeper asks whether this node still counts it as a member. */
  public void asked(ConfirmMember question) {
    run(new GateInput.ConfirmAsked(question, isOpen()));
  }

  /** Another node's keeper confirmed this node. */
  public void confirmed(MemberConfirmed answer) {
    run(new GateInput.Confirmed(answer));
  }

  /** The region (or another actor on the node) wants to hear of the gate's changes. */
  public void subscribe(ActorRef<Object> subscriber) {
    run(new GateInput.Subscribe(subscriber));
  }

  /** The node's process ended: nothing of the keeper runs any more, and nobody waits for its gate. */
  public void stop() {
    stopped = true;
    parked.clear();
  }

  // ---- the gate, as the node's shards, entities and coordinator read it

  public boolean isOpen() {
    return state == DeliveryGate.State.OPEN;
  }

  public boolean isDown() {
    return state == DeliveryGate.State.DOWN;
  }

  /** Runs {@code woken} on the node once the gate is open (soon, if it is open now); never once it is down. */
  public void whenOpen(Runnable woken) {
    if (isOpen()) {
      wake(woken);
    } else if (state == DeliveryGate.State.CLOSED && !stopped) {
      parked.add(woken);
    }
  }

  /**
   * Runs {@code woken} when the node next runs, if the gate is still open then: a frozen node's
   * gate closes at thaw, before what was scheduled for it runs (as an open gate's lease has
   * expired for whoever reads it after a pause).
   */
  private void wake(Runnable woken) {
    world.after(node, 0, () -> {
      if (isOpen()) {
        woken.run();
      } else {
        whenOpen(woken);
      }
    });
  }

  /** The round the keeper asks in, for the trace. */
  public long round() {
    return machine.round();
  }

  private void run(GateInput input) {
    if (stopped) {
      return;
    }
    effects.clear();
    GateDriver.run(machine, input, world.now(), this);
    world.trace(node, "gate", input, List.copyOf(effects));
  }

  // ---- the ports

  @Override
  public void closeGate() {
    effects.add("CloseGate");
    if (state == DeliveryGate.State.OPEN) {
      state = DeliveryGate.State.CLOSED;
    }
  }

  @Override
  public boolean tryOpenGate(long confirmedSince) {
    // As DeliveryGate.open: only a closed gate, and not if the node was paused since the round began.
    // The simulated clock starts at 0 and never wraps: times compare directly.
    boolean opens = state == DeliveryGate.State.CLOSED && lastPauseSeen < confirmedSince;
    effects.add(opens ? "OpenGate" : "OpenGate refused");
    if (opens) {
      state = DeliveryGate.State.OPEN;
      for (Runnable woken : parked) {
        wake(woken);
      }
      parked.clear();
    }
    return opens;
  }

  @Override
  public void downGate() {
    effects.add("DownGate");
    state = DeliveryGate.State.DOWN;
    parked.clear();
  }

  @Override
  public void ask(List<String> members, ConfirmMember question) {
    effects.add(new GateEffect.Ask(members, question));
    world.ask(node, members, question);
  }

  @Override
  public void answer(ActorRef<Object> to, MemberConfirmed answer) {
    effects.add(new GateEffect.Answer(to, answer));
    world.answer(node, to, answer);
  }

  @Override
  public void notify(List<ActorRef<Object>> subscribers, GateKeeper.GateChanged change) {
    effects.add(change);
    world.notify(node, subscribers, change);
  }

  @Override
  public void watch(ActorRef<Object> subscriber) {
    world.watch(node, subscriber, () -> run(new GateInput.SubscriberGone(subscriber)));
  }

  @Override
  public void startRetry(long generation, Duration interval) {
    retryGeneration = generation;
    retry(generation, interval.toNanos());
  }

  /** A timer with a fixed delay, as Pekko's: restarting or cancelling it discards what it would still fire. */
  private void retry(long generation, long intervalNanos) {
    world.after(node, intervalNanos, () -> {
      if (!stopped && retryGeneration == generation) {
        run(new GateInput.RetryFired(generation));
        retry(generation, intervalNanos);
      }
    });
  }

  @Override
  public void cancelRetry() {
    retryGeneration = -1;
  }

  @Override
  public void report(GateNotice notice) {
    effects.add(notice);
  }
}
