package dev.shardkit.sharding.internal.region;

import dev.shardkit.sharding.internal.wire.ShardingProtocol.GetShardHome;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.GracefulShutdownReq;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.Register;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.RegisterProxy;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.ShardStopped;
import dev.shardkit.sharding.internal.wire.ShardingProtocol;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * A region's registration with its coordinator, and what it tells the coordinator. Until a
 * coordinator acknowledges it, the region registers through the coordinator's singleton proxy and
 * asks for no homes (an unregistered region would not be answered). Once one acknowledges, the
 * region speaks to that coordinator directly and watches it; when it is gone the region registers
 * again through the proxy. A proxy-only region registers as a proxy and never hosts, so it has
 * nothing to hand off. Which coordinator it acts on, and at which term, is its
 * {@link CoordinatorFence}'s to decide.
 *
 * <p>A component of the {@link RegionMachine}; not thread-safe. It sends and watches through the
 * functions it is given, which the machine turns into its effects.
 */
final class RegionRegistration {

  /** One per shard a new coordinator starts for its remembered entities, for typical shard counts. */
  static final int AHEAD_CAPACITY = 10_000;

  private final ActorRef<Object> self;
  private final ActorRef<Object> proxy;
  private final boolean proxyOnly;
  private final Supplier<Set<String>> hosted;
  private final BiConsumer<ActorRef<Object>, Object> send;
  private final Consumer<ActorRef<Object>> watch;
  private final Status status;
  /** The coordinator that acknowledged this region (null while registering), and its term. */
  private final CoordinatorFence<ActorRef<Object>> fence = new CoordinatorFence<>();
  /** Homes and hand-offs told at a term the region has not been acknowledged at yet. */
  private final AheadOfTerm<ShardingProtocol> ahead = new AheadOfTerm<>(AHEAD_CAPACITY);
  /** Asked to hand off every shard: asked again on every retry until the region stops. */
  private boolean leaving;
  /**
   * Acknowledged by its coordinator at its term, but not yet again since: the acknowledgement may
   * be the coordinator's announcement as it took over, which it sends to every node whether or
   * not the region there registered, and the registration the region then sent it directly may
   * have been lost (a full outbound queue drops it). Until a second acknowledgement shows that the
   * coordinator stored the registration, every retry registers again; a region the coordinator
   * does not know is left out of its hand-offs and keeps routing to a shard's old home.
   */
  private boolean unconfirmed;

  /**
   * @param proxy reaches whichever coordinator is current (the singleton proxy)
   * @param hosted the shards living here now, those being handed off included: a new coordinator
   *     learns of them on registration
   * @param send tells an actor a message
   * @param watch watches a coordinator that acknowledged, so that {@link #terminated} is called
   *     when it stops
   * @param status told with which coordinator, at which term, the region is registered, for the
   *     node's health checks ({@link RegionStatus})
   */
  RegionRegistration(ActorRef<Object> self, ActorRef<Object> proxy, boolean proxyOnly, Supplier<Set<String>> hosted,
      BiConsumer<ActorRef<Object>, Object> send, Consumer<ActorRef<Object>> watch, Status status) {
    this.self = self;
    this.proxy = proxy;
    this.proxyOnly = proxyOnly;
    this.hosted = hosted;
    this.send = send;
    this.watch = watch;
    this.status = status;
  }

  /** Where the registration is told to, for the node's health checks. */
  interface Status {
    /** A new coordinator, or a new term of the current one, acknowledged the region. */
    void registered(String coordinator, long term);

    /** The region's coordinator went away; it registers with the next one. */
    void registering();
  }

  /** Registers through the proxy. */
  void register() {
    registerWith(proxy);
  }

  /**
   * What an acknowledgement did.
   *
   * @param outcome {@link CoordinatorFence.Ack#NEW} if it came from a new coordinator (or a new
   *     term of the current one, which restarted): it is watched from now on, and registered with
   *     directly (a coordinator that just took over announces itself before the region registered
   *     with it, and the proxy may still point at the old one until its node has left the
   *     cluster); {@link CoordinatorFence.Ack#REFUSED} if it is older than the current one, which
   *     nothing changes
   * @param toldAhead the homes and hand-offs that coordinator told before it acknowledged, in the
   *     order they arrived: the region acts on them at once, before anything told after the
   *     acknowledgement (a hand-off it started since must not be undone by a home it told before)
   */
  record Acknowledged(CoordinatorFence.Ack outcome, List<ShardingProtocol> toldAhead) {}

  /** A coordinator acknowledged this region's registration at {@code term}. */
  Acknowledged acknowledged(ActorRef<Object> by, long term) {
    CoordinatorFence.Ack ack = fence.acknowledged(by, term);
    if (ack != CoordinatorFence.Ack.NEW) {
      if (ack == CoordinatorFence.Ack.SAME) {
        unconfirmed = false;
      }
      return new Acknowledged(ack, List.of());
    }
    status.registered(by.path().toString(), term);
    watch.accept(by);
    registerWith(by);
    unconfirmed = true;
    return new Acknowledged(ack, ahead.acknowledgedAt(term));
  }

  /** Whether the region acts on a home or hand-off its coordinator sent at {@code term}. */
  boolean actsOn(long term) {
    return fence.actsOn(term);
  }

  /** The current coordinator's term; -1 before the first acknowledgement. */
  long term() {
    return fence.term();
  }

  /**
   * A home, hand-off or acknowledgement at {@code term} was refused.
   *
   * @return whether to log it: the first refusal at each term is logged. A term above the current
   *     one names a coordinator this region has not registered with (its announcement was lost,
   *     or overtaken): the region registers through the proxy once for it, rather than waiting
   *     for its own coordinator to be seen gone, and holds a home or hand-off at that term
   *     ({@link AheadOfTerm}) until that coordinator acknowledges it
   */
  boolean refusedAt(ShardingProtocol message, long term) {
    boolean ahead = term > fence.term();
    if (ahead && !(message instanceof ShardingProtocol.RegisterAck)) {
      this.ahead.hold(term, message);
    }
    boolean first = fence.firstRefusalAt(term);
    if (first && ahead) {
      register();
    }
    return first;
  }

  /**
   * A watched coordinator terminated.
   *
   * @return true if it was this region's: the region registers again through the proxy
   */
  boolean terminated(ActorRef<Object> gone) {
    if (!gone.equals(fence.coordinator())) {
      return false;
    }
    fence.lost();
    status.registering();
    register();
    return true;
  }

  /** True once a coordinator acknowledged, until it terminates. */
  boolean registered() {
    return fence.coordinator() != null;
  }

  /** The coordinator this region is registered with; null while registering. */
  ActorRef<Object> coordinator() {
    return fence.coordinator();
  }

  /** Asks the coordinator where the shard lives; not while registering (the ack asks again). */
  void askHome(String shardId) {
    if (registered()) {
      send.accept(coordinator(), new GetShardHome(shardId, self));
    }
  }

  /**
   * The retry interval passed. Registering, it registers again; registered, it registers with its
   * coordinator again until that acknowledged twice (see {@link #unconfirmed}), asks again where
   * the shards {@code awaitingHome} live and, once asked to hand off every shard, asks that again
   * (a request or its answer may have been lost with a coordinator that was taking over).
   */
  void retry(Supplier<? extends Collection<String>> awaitingHome) {
    if (!registered()) {
      register();
      return;
    }
    if (unconfirmed) {
      registerWith(coordinator());
    }
    awaitingHome.get().forEach(this::askHome);
    if (leaving) {
      askToHandOffAll();
    }
  }

  /**
   * Asks the coordinator (or, while registering, the proxy) to hand off every shard hosted here,
   * and again on every {@link #retry}.
   */
  void askToHandOffAll() {
    leaving = true;
    if (!proxyOnly) {
      send.accept(coordinatorOrProxy(), new GracefulShutdownReq(self));
    }
  }

  /** Confirms to the coordinator that a shard it named home here with {@code confirmStart} runs here. */
  void shardStarted(String shardId) {
    if (registered()) {
      send.accept(coordinator(), new ShardingProtocol.ShardStarted(shardId, self));
    }
  }

  /** Tells the coordinator (or, while registering, the proxy) that a shard's hand-off completed. */
  void shardStopped(String shardId, int handOffId) {
    send.accept(coordinatorOrProxy(), new ShardStopped(shardId, self, handOffId));
  }

  /** Tells the coordinator that hand-off {@code handOffId} (one if unstarted) does not move the shard: it runs here. */
  void handOffDeclined(String shardId, int handOffId) {
    send.accept(coordinatorOrProxy(), new ShardingProtocol.HandOffDeclined(shardId, self, handOffId));
  }

  private ActorRef<Object> coordinatorOrProxy() {
    return registered() ? coordinator() : proxy;
  }

  private void registerWith(ActorRef<Object> target) {
    send.accept(target, proxyOnly ? new RegisterProxy(self) : new Register(self, hosted.get()));
  }
}
