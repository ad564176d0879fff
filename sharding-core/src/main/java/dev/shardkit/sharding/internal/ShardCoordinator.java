package dev.shardkit.sharding.internal;

import dev.shardkit.sharding.RegionInfo;
import dev.shardkit.sharding.ShardAllocation;
import dev.shardkit.sharding.ShardAllocationStrategy;
import dev.shardkit.sharding.internal.ShardingProtocol.BeginHandOff;
import dev.shardkit.sharding.internal.ShardingProtocol.CurrentRegions;
import dev.shardkit.sharding.internal.ShardingProtocol.GracefulShutdownReq;
import dev.shardkit.sharding.internal.ShardingProtocol.ShardStopped;
import dev.shardkit.sharding.internal.ShardingProtocol.GetCurrentRegions;
import dev.shardkit.sharding.internal.ShardingProtocol.GetShardHome;
import dev.shardkit.sharding.internal.ShardingProtocol.Register;
import dev.shardkit.sharding.internal.ShardingProtocol.RegisterAck;
import dev.shardkit.sharding.internal.ShardingProtocol.RegisterProxy;
import dev.shardkit.sharding.internal.ShardingProtocol.ShardHome;
import dev.shardkit.sharding.spi.CoordinatorEvent;
import dev.shardkit.sharding.spi.CoordinatorEvent.ProxyRegistered;
import dev.shardkit.sharding.spi.CoordinatorEvent.ProxyTerminated;
import dev.shardkit.sharding.spi.CoordinatorEvent.RegionRegistered;
import dev.shardkit.sharding.spi.CoordinatorEvent.RegionTerminated;
import dev.shardkit.sharding.spi.CoordinatorEvent.ShardHomeAllocated;
import dev.shardkit.sharding.spi.CoordinatorEvent.ShardHomeDeallocated;
import dev.shardkit.sharding.spi.CoordinatorState;
import dev.shardkit.sharding.spi.CoordinatorStateStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.Optional;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import org.apache.pekko.actor.ActorIdentity;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.Identify;
import org.apache.pekko.actor.NoSerializationVerificationNeeded;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.StashBuffer;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.apache.pekko.cluster.Cluster;
import org.apache.pekko.cluster.Member;
import org.apache.pekko.cluster.MemberStatus;
import org.slf4j.Logger;

/**
 * The singleton that decides where shards live, one per entity type, on the oldest node of the
 * type's role. It keeps {@link CoordinatorState} in a {@link CoordinatorStateStore}: every change
 * is stored first, then applied, then announced, so a successor that loads the store never gives
 * a shard a second home.
 *
 * <p>States: <em>loading</em> (reading the store; requests wait in a bounded stash) and
 * <em>active</em>. While active it decides at once and stores in batches: the changes decided
 * while one write is in flight form the next write, and what announces a change waits until it
 * is stored.
 */
public final class ShardCoordinator {

  /** Sent by the singleton manager when the coordinator must hand over. Local only. */
  public enum Stop implements NoSerializationVerificationNeeded { INSTANCE }

  private record Loaded(CoordinatorState state) implements NoSerializationVerificationNeeded {}

  private record LoadFailed(Throwable cause) implements NoSerializationVerificationNeeded {}

  private enum RetryLoad implements NoSerializationVerificationNeeded { INSTANCE }

  /** Events written in one store call, and what waits for them to be durable. */
  private record Batch(List<CoordinatorEvent> events, CoordinatorState after, List<Runnable> afterwards) {}

  private record Stored(Batch batch) implements NoSerializationVerificationNeeded {}

  private record StoreFailed(Batch batch, Throwable cause) implements NoSerializationVerificationNeeded {}

  private record RetryStore(Batch batch) implements NoSerializationVerificationNeeded {}

  private enum SettleTimeout implements NoSerializationVerificationNeeded { INSTANCE }

  private record Terminated(ActorRef<Object> ref) implements NoSerializationVerificationNeeded {}

  /** The removal margin of a region whose node was removed has passed. */
  private record RemovalMarginPassed(ActorRef<Object> region) implements NoSerializationVerificationNeeded {}

  private enum RebalanceTick implements NoSerializationVerificationNeeded { INSTANCE }

  private record HandOffTimeout(String shardId) implements NoSerializationVerificationNeeded {}

  /** The remember-entities store's answer: shards that may have remembered entities. */
  private record RememberedShards(Set<String> shardIds) implements NoSerializationVerificationNeeded {}

  private record RememberedShardsFailed(Throwable cause) implements NoSerializationVerificationNeeded {}

  private enum ReadRememberedShards implements NoSerializationVerificationNeeded { INSTANCE }

  private static final Duration MIN_BACKOFF = Duration.ofMillis(100);
  private static final Duration STASH_FULL_WARNING_INTERVAL = Duration.ofSeconds(10);
  private static final Duration MAX_BACKOFF = Duration.ofSeconds(10);

  private final ActorContext<Object> context;
  private final TimerScheduler<Object> timers;
  private final StashBuffer<Object> stash;
  private final String typeName;
  private final ShardAllocationStrategy strategy;
  private final CoordinatorStateStore store;
  private final Logger log;
  private final Cluster cluster;
  private final Optional<String> role;
  private final Duration settleTimeout;
  /**
   * The state with every decision taken so far, stored or not: what new decisions build on. A
   * decision's effects (replies, announcements) wait until it is stored.
   */
  private CoordinatorState state = CoordinatorState.empty();
  /** The state as the store has confirmed it. */
  private CoordinatorState stored = CoordinatorState.empty();
  /** A write is in flight (or waiting to be retried). */
  private boolean writing;
  /** Decided while a write was in flight: stored together by the next write. */
  private final List<CoordinatorEvent> queuedEvents = new ArrayList<>();
  private final List<Runnable> queuedAfterwards = new ArrayList<>();
  private int failures;
  /** The protocol messages in the stash, so repeated requests are stashed once. */
  private final Set<Object> stashed = new HashSet<>();
  private long lastStashFullWarning = System.nanoTime() - STASH_FULL_WARNING_INTERVAL.toNanos();
  /** False until every hosting node's region has registered (or the settle timeout passed). */
  private boolean settled;
  /** Nodes that answered the announcement without a region of this type. */
  private final Set<Address> withoutRegion = new HashSet<>();
  /** Requests for homeless shards that arrived before the coordinator settled. */
  private final Set<GetShardHome> deferred = new LinkedHashSet<>();
  private final Duration rebalanceInterval;
  private final Duration handOffTimeout;
  /** A hand-off this coordinator started: the region the shard is leaving, and the move's id. */
  private record HandOffInProgress(ActorRef<Object> owner, int id) {}

  /** Shards being handed off. */
  private final Map<String, HandOffInProgress> handOffs = new HashMap<>();
  /** Ids of hand-offs given up: a late ShardStopped for one of them must not move the shard. */
  private final Set<Integer> givenUp = new LinkedHashSet<>();
  /** Regions that asked for the home of a shard while it was being handed off. */
  private final Map<String, Set<ActorRef<Object>>> waitingForHome = new HashMap<>();
  /** Regions handing off all their shards before they stop; they get no new shards. */
  private final Set<ActorRef<Object>> shuttingDown = new HashSet<>();
  private Duration idleRebalanceDelay;
  /** With remember-entities: reads the shards that may have remembered entities. */
  private final Optional<Supplier<CompletionStage<Set<String>>>> rememberedShards;
  /**
   * With remember-entities: shards that must get a home without waiting for a message, because
   * their remembered entities are to run. Placed once the coordinator has settled.
   */
  private final Set<String> toPlace = new LinkedHashSet<>();
  /** Shard ids {@code 0..knownShards-1} are placed up front; 0 when the ids are not known in advance. */
  private final int knownShards;
  /** Set once every known shard has a home (later moves keep it so). */
  private boolean allPlaced;
  /**
   * Shards placed up front that no region has asked for or heard of since: no region knows their
   * home and none has started them, so they can be placed again, without a hand-off, when a region
   * joins. Kept in memory only: a successor treats every shard as used, which is merely slower.
   */
  private final Set<String> untouched = new LinkedHashSet<>();
  /** How many regions took shards when the unused ones were last placed; -1 before that. */
  private int regionsAtLastSpread = -1;
  /** The downing provider's removal margin ({@link RemovalMargin}). */
  private final Duration removalMargin;
  /** Regions of removed nodes whose shards wait for the removal margin before they move. */
  private final Set<ActorRef<Object>> inRemovalMargin = new HashSet<>();

  private ShardCoordinator(ActorContext<Object> context, TimerScheduler<Object> timers, StashBuffer<Object> stash,
      String typeName, ShardAllocationStrategy strategy, CoordinatorStateStore store, Optional<String> role,
      Duration settleTimeout, Duration rebalanceInterval, Duration handOffTimeout,
      Optional<Supplier<CompletionStage<Set<String>>>> rememberedShards, int knownShards) {
    this.context = context;
    this.knownShards = knownShards;
    this.rememberedShards = rememberedShards;
    this.rebalanceInterval = rebalanceInterval;
    this.handOffTimeout = handOffTimeout;
    this.idleRebalanceDelay = rebalanceInterval;
    this.role = role;
    this.settleTimeout = settleTimeout;
    this.timers = timers;
    this.stash = stash;
    this.typeName = typeName;
    this.strategy = strategy;
    this.store = store;
    this.log = context.getLog();
    this.cluster = Cluster.get(Adapter.toClassic(context.getSystem()));
    this.removalMargin = Duration.ofNanos(cluster.downingProvider().downRemovalMargin().toNanos());
  }

  /**
   * @param role the role of the nodes whose regions host shards, if any
   * @param settleTimeout the longest a new coordinator waits for the regions of hosting nodes (Up,
   *     or still leaving) to register before it allocates homeless shards
   * @param rebalanceInterval how often rebalance rounds run
   * @param handOffTimeout how long a hand-off may take before it is given up
   * @param rememberedShards with remember-entities, reads the shards that may have remembered
   *     entities; such shards, and those of regions that are gone, are placed without waiting for
   *     a message
   * @param knownShards with n &gt; 0, the shard ids are {@code 0..n-1} and all are placed, in one
   *     write, once the coordinator has settled; 0 places each shard when it is first asked for
   */
  public static Behavior<Object> create(String typeName, ShardAllocationStrategy strategy, CoordinatorStateStore store,
      int stashCapacity, Optional<String> role, Duration settleTimeout, Duration rebalanceInterval,
      Duration handOffTimeout, Optional<Supplier<CompletionStage<Set<String>>>> rememberedShards, int knownShards) {
    return Behaviors.setup(ctx -> Behaviors.withTimers(timers -> Behaviors.withStash(stashCapacity, stash -> {
      ShardCoordinator coordinator = new ShardCoordinator(ctx, timers, stash, typeName, strategy, store, role,
          settleTimeout, rebalanceInterval, handOffTimeout, rememberedShards, knownShards);
      ctx.getLog().info("Coordinator of entity type [{}] started on {}; state store: {}; allocation: {}", typeName,
          coordinator.cluster.selfAddress(), store.describe(), strategy);
      // The store is closed however the coordinator stops, so its successor is the only writer.
      return Behaviors.intercept(() -> new CloseStoreOnStop(store), coordinator.loading());
    })));
  }

  private static final class CloseStoreOnStop extends org.apache.pekko.actor.typed.BehaviorInterceptor<Object, Object> {
    private final CoordinatorStateStore store;

    CloseStoreOnStop(CoordinatorStateStore store) {
      super(Object.class);
      this.store = store;
    }

    @Override
    public Behavior<Object> aroundReceive(org.apache.pekko.actor.typed.TypedActorContext<Object> ctx, Object msg,
        ReceiveTarget<Object> target) {
      return target.apply(ctx, msg);
    }

    @Override
    public Behavior<Object> aroundSignal(org.apache.pekko.actor.typed.TypedActorContext<Object> ctx,
        org.apache.pekko.actor.typed.Signal signal, SignalTarget<Object> target) {
      if (signal instanceof org.apache.pekko.actor.typed.PostStop) {
        store.close();
      }
      return target.apply(ctx, signal);
    }
  }

  // ---- states

  private Behavior<Object> loading() {
    context.pipeToSelf(store.load(), (loaded, error) -> error == null ? new Loaded(loaded) : new LoadFailed(error));
    return Behaviors.receive(Object.class)
        .onMessage(Loaded.class, l -> {
          failures = 0;
          state = l.state();
          stored = state;
          // Regions and proxies on nodes that have left the cluster are gone for good: forgetting
          // them before serving means no request is ever answered with a dead home. The others are
          // watched; those on nodes that are down are reported terminated when they are removed.
          List<CoordinatorEvent> gone = new ArrayList<>();
          Set<Address> members = new HashSet<>();
          cluster.state().getMembers().forEach(m -> {
            if (m.status() != MemberStatus.removed()) {
              members.add(m.address());
            }
          });
          state.regions().keySet().forEach(r -> {
            if (members.contains(addressOf(r))) {
              watch(r);
            } else {
              gone.add(new RegionTerminated(r));
            }
          });
          state.proxies().forEach(p -> {
            if (members.contains(addressOf(p))) {
              watch(p);
            } else {
              gone.add(new ProxyTerminated(p));
            }
          });
          log.info("Coordinator of [{}] loaded {}; forgetting {} region(s)/proxies on nodes that left the cluster", typeName, state,
              gone.size());
          if (rememberedShards.isPresent()) {
            gone.forEach(g -> {
              if (g instanceof RegionTerminated r) {
                toPlace.addAll(state.regions().get(r.region()));
              }
            });
            readRememberedShards();
          }
          persist(gone, () -> {
            if (!checkSettled()) {
              announceSelf();
              timers.startSingleTimer(SettleTimeout.INSTANCE, settleTimeout);
            }
          });
          return unstashAllTo(active());
        })
        .onMessage(LoadFailed.class, f -> {
          Duration backoff = nextBackoff();
          log.warn("Coordinator of [{}] could not load its state ({}); retrying in {} ms", typeName, f.cause(),
              backoff.toMillis());
          timers.startSingleTimer(RetryLoad.INSTANCE, backoff);
          return Behaviors.same();
        })
        .onMessageEquals(RetryLoad.INSTANCE, this::loading)
        .onMessageEquals(Stop.INSTANCE, Behaviors::stopped)
        .onAnyMessage(this::stashOrDrop)
        .build();
  }

  private Behavior<Object> active() {
    return Behaviors.receive(Object.class)
        .onMessage(Register.class, r -> onRegister(r.region(), r.hostedShards(), false))
        .onMessage(RegisterProxy.class, r -> onRegister(r.proxy(), Set.of(), true))
        .onMessage(GetShardHome.class, this::onGetShardHome)
        .onMessage(Terminated.class, this::onTerminated)
        .onMessage(ActorIdentity.class, this::onActorIdentity)
        .onMessage(RemovalMarginPassed.class, m -> {
          inRemovalMargin.remove(m.region());
          return regionGone(m.region());
        })
        .onMessageEquals(SettleTimeout.INSTANCE, () -> {
          if (!settled) {
            log.info("Coordinator of [{}]: not every hosting node's region registered within {} ms; allocating anyway",
                typeName, settleTimeout.toMillis());
            settle();
          }
          return Behaviors.same();
        })
        .onMessageEquals(RebalanceTick.INSTANCE, this::onRebalanceTick)
        .onMessage(HandOffTimeout.class, this::onHandOffTimeout)
        .onMessage(ShardStopped.class, this::onShardStopped)
        .onMessage(GracefulShutdownReq.class, this::onGracefulShutdownReq)
        .onMessage(RememberedShards.class, r -> {
          toPlace.addAll(r.shardIds());
          log.info("Coordinator of [{}]: {} shard(s) may have remembered entities; placing those without a home",
              typeName, r.shardIds().size());
          return placeRemembered();
        })
        .onMessage(RememberedShardsFailed.class, f -> {
          Duration backoff = nextBackoff();
          log.warn("Coordinator of [{}] could not read which shards have remembered entities ({}); retrying in {} ms",
              typeName, f.cause(), backoff.toMillis());
          timers.startSingleTimer(ReadRememberedShards.INSTANCE, backoff);
          return Behaviors.same();
        })
        .onMessageEquals(ReadRememberedShards.INSTANCE, () -> {
          readRememberedShards();
          return Behaviors.same();
        })
        .onMessage(GetCurrentRegions.class, g -> {
          g.replyTo().tell(new CurrentRegions(Set.copyOf(stored.regions().keySet())));
          return Behaviors.same();
        })
        .onMessage(Stored.class, this::onStored)
        .onMessage(StoreFailed.class, this::onStoreFailed)
        .onMessage(RetryStore.class, r -> {
          write(withQueued(r.batch()));
          return Behaviors.same();
        })
        .onMessageEquals(Stop.INSTANCE, Behaviors::stopped)
        .onAnyMessage(m -> {
          log.debug("Coordinator of [{}] ignores unexpected {}", typeName, m);
          return Behaviors.same();
        })
        .build();
  }

  /**
   * Decides {@code events} now (later decisions build on them) and stores them; {@code afterwards}
   * (the replies and announcements that make them known) runs once they are durable. Events
   * decided while a write is in flight go into the next write together, so a burst of new shards
   * or hand-offs costs a few writes, not one each; nothing waits in a stash meanwhile.
   */
  private Behavior<Object> persist(List<CoordinatorEvent> events, Runnable afterwards) {
    for (CoordinatorEvent event : events) {
      state = state.applied(event);
    }
    queuedEvents.addAll(events);
    queuedAfterwards.add(afterwards);
    flush();
    return Behaviors.same();
  }

  private Behavior<Object> persist(CoordinatorEvent event, Runnable afterwards) {
    return persist(List.of(event), afterwards);
  }

  /** Runs {@code action} once everything decided so far is stored: at once if it is. */
  private void afterDurable(Runnable action) {
    persist(List.of(), action);
  }

  private void flush() {
    if (writing) {
      return;
    }
    if (queuedEvents.isEmpty()) {
      List<Runnable> ready = List.copyOf(queuedAfterwards);
      queuedAfterwards.clear();
      ready.forEach(Runnable::run);
      return;
    }
    Batch batch = new Batch(List.copyOf(queuedEvents), state, List.copyOf(queuedAfterwards));
    queuedEvents.clear();
    queuedAfterwards.clear();
    write(batch);
  }

  private void write(Batch batch) {
    writing = true;
    context.pipeToSelf(store.store(batch.events(), batch.after()),
        (ok, error) -> error == null ? new Stored(batch) : new StoreFailed(batch, error));
  }

  /** A failed batch is retried together with what was decided meanwhile. */
  private Batch withQueued(Batch failed) {
    if (queuedEvents.isEmpty()) {
      return failed;
    }
    List<CoordinatorEvent> events = new ArrayList<>(failed.events());
    events.addAll(queuedEvents);
    List<Runnable> afterwards = new ArrayList<>(failed.afterwards());
    afterwards.addAll(queuedAfterwards);
    queuedEvents.clear();
    queuedAfterwards.clear();
    return new Batch(events, state, afterwards);
  }

  private Behavior<Object> onStored(Stored s) {
    failures = 0;
    writing = false;
    stored = s.batch().after();
    s.batch().afterwards().forEach(Runnable::run);
    flush();
    return Behaviors.same();
  }

  private Behavior<Object> onStoreFailed(StoreFailed f) {
    Duration backoff = nextBackoff();
    List<CoordinatorEvent> events = f.batch().events();
    log.warn("Coordinator of [{}] could not store {} ({}); retrying in {} ms; known shards keep working", typeName,
        events.size() == 1 ? events.get(0) : events.size() + " changes (" + events.get(0) + ", ...)", f.cause(),
        backoff.toMillis());
    timers.startSingleTimer(new RetryStore(f.batch()), backoff);
    return Behaviors.same();
  }

  /** The shard's home if it is stored and no undecided change to it is pending; else null. */
  private ActorRef<Object> settledHome(String shardId) {
    ActorRef<Object> home = stored.shards().get(shardId);
    return home != null && home.equals(state.shards().get(shardId)) ? home : null;
  }

  private Behavior<Object> stashOrDrop(Object message) {
    // Regions repeat registrations and home requests every retry interval while the store is
    // slow or down: one copy of each is enough, and a dropped one is asked again.
    if (message instanceof ShardingProtocol && !stashed.add(message)) {
      return Behaviors.same();
    }
    if (stash.isFull()) {
      long now = System.nanoTime();
      if (now - lastStashFullWarning > STASH_FULL_WARNING_INTERVAL.toNanos()) {
        lastStashFullWarning = now;
        log.warn("Coordinator of [{}] is busy (loading its state) and its stash of {} is full; dropping "
            + "requests until it catches up (regions ask again)", typeName, stash.capacity());
      }
      stashed.remove(message);
    } else {
      stash.stash(message);
    }
    return Behaviors.same();
  }

  private Behavior<Object> unstashAllTo(Behavior<Object> next) {
    stashed.clear();
    return stash.unstashAll(next);
  }

  private Duration nextBackoff() {
    failures++;
    long millis = Math.min(MAX_BACKOFF.toMillis(), MIN_BACKOFF.toMillis() << Math.min(failures - 1, 16));
    return Duration.ofMillis(millis);
  }

  // ---- handlers

  private Behavior<Object> onRegister(ActorRef<Object> region, Set<String> hostedShards, boolean proxy) {
    Runnable ack = () -> {
      region.tell(new RegisterAck(context.getSelf()));
      if (!settled) {
        checkSettled();
      }
    };
    if (proxy && state.regions().containsKey(region)) {
      log.warn("Coordinator of [{}]: {} registered as a region before; ignoring its proxy registration", typeName,
          region);
      return Behaviors.same();
    }
    List<CoordinatorEvent> events = new ArrayList<>();
    boolean known = proxy ? state.proxies().contains(region) : state.regions().containsKey(region);
    if (!known) {
      watch(region);
      log.info("Coordinator of [{}]: {} {} registered", typeName, proxy ? "proxy" : "region", region.path());
      events.add(proxy ? new ProxyRegistered(region) : new RegionRegistered(region));
      if (!proxy && settled) {
        // A new region usually means shards should move to it: no idle back-off.
        idleRebalanceDelay = rebalanceInterval;
        scheduleRebalance(rebalanceInterval);
      }
    }
    // A region reports the shards it already hosts, so a coordinator that started without their
    // homes (in-memory state) learns them instead of placing them a second time.
    for (String shard : hostedShards) {
      ActorRef<Object> home = state.shards().get(shard);
      if (home == null) {
        events.add(new ShardHomeAllocated(shard, region));
      } else if (!home.equals(region)) {
        log.error("Coordinator of [{}]: region {} reports hosting shard [{}], whose home is {}; keeping {}", typeName,
            region.path(), shard, home.path(), home.path());
      }
    }
    persist(events, ack);
    placeAll();
    if (!known && !proxy) {
      spreadUntouched();
    }
    return placeRemembered();
  }

  /**
   * Whether every registered region is on a member that is Up: a region on a member still joining
   * takes no shards yet, and placing everything without it would leave it to rebalancing to move
   * shards that may be in use by then.
   */
  private boolean everyRegionUp() {
    Set<Address> up = new HashSet<>();
    cluster.state().getMembers().forEach(m -> {
      if (m.status() == MemberStatus.up() || m.status() == MemberStatus.weaklyUp()) {
        up.add(m.address());
      }
    });
    // With no member Up at all (a coordinator outside a formed cluster), regions are taken as
    // they are, as regionInfos does.
    for (ActorRef<Object> region : state.regions().keySet()) {
      if (!up.isEmpty() && !shuttingDown.contains(region) && !up.contains(addressOf(region))) {
        return false;
      }
    }
    return !state.regions().isEmpty();
  }

  /**
   * Places the shards placed up front and not used since again, over every region including one
   * that just joined, in one write: they move without a hand-off, so a region that joins gets its
   * share of the unused shards at once, and rebalancing is left with the shards in use.
   */
  private boolean spreadUntouched() {
    if (untouched.isEmpty() || !settled) {
      return false;
    }
    regionsAtLastSpread = regionInfos(state).size();
    CoordinatorState view = state;
    List<String> movable = new ArrayList<>();
    for (String shardId : untouched) {
      if (view.shards().containsKey(shardId) && !handOffs.containsKey(shardId)) {
        view = view.applied(new ShardHomeDeallocated(shardId));
        movable.add(shardId);
      }
    }
    List<CoordinatorEvent> events = new ArrayList<>();
    for (String shardId : movable) {
      ActorRef<Object> home = chooseHome(view, shardId, context.getSelf(), null);
      if (home == null) {
        return false;
      }
      view = view.applied(new ShardHomeAllocated(shardId, home));
      if (!home.equals(state.shards().get(shardId))) {
        events.add(new ShardHomeDeallocated(shardId));
        events.add(new ShardHomeAllocated(shardId, home));
      }
    }
    if (!events.isEmpty()) {
      log.info("Coordinator of [{}]: moving {} shard(s) placed up front and not used yet, without hand-offs, so "
          + "that every region has its share", typeName, events.size() / 2);
      persist(events, () -> { });
    }
    return !events.isEmpty();
  }

  /**
   * Tells the region on every node that may host shards (of the role) that this coordinator took
   * over, so each registers now instead of when it notices its old coordinator is gone, which can
   * take until that node is removed from the cluster. A region answers with a registration; the
   * {@link Identify} beside it finds the nodes that have no region (any more), which have nothing
   * to report.
   */
  private void announceSelf() {
    RegisterAck hello = new RegisterAck(context.getSelf());
    org.apache.pekko.actor.ActorRef self = Adapter.toClassic(context.getSelf());
    for (Member m : membersThatMayHostShards()) {
      var region = Adapter.toClassic(context).actorSelection(new org.apache.pekko.actor.RootActorPath(m.address(), "/")
          .$div("system").$div(ShardRegion.actorName(typeName)));
      region.tell(hello, org.apache.pekko.actor.ActorRef.noSender());
      region.tell(new Identify(m.address()), self);
    }
  }

  /**
   * The members whose regions may host this type's shards, with the role: Up (or weakly Up), and
   * also leaving or exiting, because a leaving node's region still hosts its shards until it has
   * handed them off, and a coordinator that moved meanwhile must learn of them before it places
   * shards.
   */
  private List<Member> membersThatMayHostShards() {
    List<Member> members = new ArrayList<>();
    for (Member m : cluster.state().getMembers()) {
      MemberStatus status = m.status();
      boolean hosting = status == MemberStatus.up() || status == MemberStatus.weaklyUp()
          || status == MemberStatus.leaving() || status == MemberStatus.exiting();
      if (hosting && role.map(m::hasRole).orElse(true)) {
        members.add(m);
      }
    }
    return members;
  }

  /** A member answered that it has no region of this type: it hosts nothing to report. */
  private Behavior<Object> onActorIdentity(ActorIdentity identity) {
    if (identity.correlationId() instanceof Address address && identity.getActorRef().isEmpty()) {
      withoutRegion.add(address);
      if (!settled) {
        checkSettled();
      }
    }
    return Behaviors.same();
  }

  /**
   * Settles once every node that may host shards (of the role) has registered its region or said
   * it has none: only then can no region report a shard this coordinator would place again.
   */
  private boolean checkSettled() {
    Set<Address> known = new HashSet<>(withoutRegion);
    state.regions().keySet().forEach(r -> known.add(addressOf(r)));
    if (!membersThatMayHostShards().stream().allMatch(m -> known.contains(m.address()))) {
      return false;
    }
    settle();
    return true;
  }

  private void settle() {
    settled = true;
    scheduleRebalance(rebalanceInterval);
    timers.cancel(SettleTimeout.INSTANCE);
    deferred.forEach(context.getSelf()::tell);
    deferred.clear();
    placeRemembered();
    placeAll();
  }

  /**
   * Gives every known shard without a home one, in one write, spread by the strategy over the
   * regions present; nothing is announced (a shard starts with its first message, whose region
   * then finds the home without a write). Shards that find no region wait for the next
   * registration.
   */
  private void placeAll() {
    if (allPlaced || knownShards == 0 || !settled || !everyRegionUp()) {
      return;
    }
    List<CoordinatorEvent> events = new ArrayList<>();
    CoordinatorState view = state;
    for (int i = 0; i < knownShards; i++) {
      String shardId = Integer.toString(i);
      if (view.shards().containsKey(shardId) || handOffs.containsKey(shardId)) {
        continue;
      }
      ActorRef<Object> home = chooseHome(view, shardId, context.getSelf(), null);
      if (home == null) {
        return;
      }
      ShardHomeAllocated allocated = new ShardHomeAllocated(shardId, home);
      view = view.applied(allocated);
      events.add(allocated);
      untouched.add(shardId);
    }
    allPlaced = true;
    regionsAtLastSpread = regionInfos(state).size();
    if (!events.isEmpty()) {
      log.info("Coordinator of [{}]: placing {} shard(s) up front, in one write", typeName, events.size());
      persist(events, () -> { });
    }
  }

  // ---- remember-entities

  private void readRememberedShards() {
    CompletionStage<Set<String>> read;
    try {
      read = rememberedShards.orElseThrow().get();
    } catch (RuntimeException e) {
      read = java.util.concurrent.CompletableFuture.failedFuture(e);
    }
    context.pipeToSelf(read, (ids, error) -> error == null ? new RememberedShards(ids)
        : new RememberedShardsFailed(error));
  }

  /**
   * Gives a home to every shard that must run for its remembered entities and has none, in one
   * write; the homes hear of it and start the shards, which start their entities. Shards that find
   * no region yet wait for the next registration.
   */
  private Behavior<Object> placeRemembered() {
    if (!settled || toPlace.isEmpty()) {
      return Behaviors.same();
    }
    List<CoordinatorEvent> events = new ArrayList<>();
    List<ShardHome> homes = new ArrayList<>();
    CoordinatorState view = state;
    for (java.util.Iterator<String> it = toPlace.iterator(); it.hasNext(); ) {
      String shardId = it.next();
      ActorRef<Object> placed = view.shards().get(shardId);
      if (placed != null) {
        // Placed already (perhaps up front, never started): its home starts it if it has not.
        it.remove();
        untouched.remove(shardId);
        ShardHome home = new ShardHome(shardId, placed);
        afterDurable(() -> placed.tell(home));
        continue;
      }
      if (handOffs.containsKey(shardId)) {
        continue; // Placed when the hand-off ends (or, if it is abandoned, after that).
      }
      ActorRef<Object> home = chooseHome(view, shardId, context.getSelf(), null);
      if (home == null) {
        break;
      }
      it.remove();
      ShardHomeAllocated allocated = new ShardHomeAllocated(shardId, home);
      view = view.applied(allocated);
      events.add(allocated);
      homes.add(new ShardHome(shardId, home));
    }
    if (events.isEmpty()) {
      return Behaviors.same();
    }
    log.info("Coordinator of [{}]: placing {} shard(s) with remembered entities", typeName, events.size());
    return persist(events, () -> homes.forEach(this::announce));
  }

  private Behavior<Object> onGetShardHome(GetShardHome get) {
    // The first request once every region is Up places all shards, this one included; and if a
    // region has come Up since the unused shards were placed, they are placed again first, so that
    // a shard starts where it will stay.
    placeAll();
    if (untouched.contains(get.shardId()) && regionInfos(state).size() != regionsAtLastSpread) {
      spreadUntouched();
    }
    untouched.remove(get.shardId());
    if (handOffs.containsKey(get.shardId())) {
      // Answered once the shard has stopped at its old home and has a new one.
      waitingForHome.computeIfAbsent(get.shardId(), k -> new HashSet<>()).add(get.region());
      return Behaviors.same();
    }
    ActorRef<Object> home = state.shards().get(get.shardId());
    if (home != null) {
      afterDurable(() -> get.region().tell(new ShardHome(get.shardId(), home)));
      return Behaviors.same();
    }
    if (!settled) {
      if (deferred.size() < stash.capacity()) {
        deferred.add(get);
      }
      return Behaviors.same();
    }
    ActorRef<Object> chosen = chooseHome(state, get.shardId(), get.region(), null);
    if (chosen == null) {
      // The region asks again on its retry tick.
      return Behaviors.same();
    }
    return persist(new ShardHomeAllocated(get.shardId(), chosen), () -> {
      ShardHome answer = new ShardHome(get.shardId(), chosen);
      // The new home hears it too, so it starts the shard before the first forwarded message.
      if (!chosen.equals(get.region())) {
        chosen.tell(answer);
      }
      get.region().tell(answer);
    });
  }

  /**
   * Asks the strategy for a home among the regions that take new shards, or null (logged) if
   * there is none or the strategy fails.
   *
   * @param leaving a region the shard is just leaving, not offered unless it is the only one
   *     (else a tie could send a rebalanced shard straight back)
   */
  private ActorRef<Object> chooseHome(CoordinatorState view, String shardId, ActorRef<Object> requester,
      ActorRef<Object> leaving) {
    Map<ActorRef<Object>, RegionInfo> infos = regionInfos(view);
    if (leaving != null && infos.size() > 1) {
      infos.remove(leaving);
    }
    if (infos.isEmpty()) {
      return null;
    }
    try {
      // A requester that takes no shards (a proxy, a region shutting down) is known by address only.
      RegionInfo requesterInfo = infos.getOrDefault(requester,
          new RegionInfo(addressOf(requester), Set.of(), Integer.MAX_VALUE));
      RegionInfo choice = strategy.allocateShard(requesterInfo, shardId, allocation(view, infos));
      ActorRef<Object> chosen = infos.entrySet().stream().filter(e -> e.getValue().equals(choice))
          .map(Map.Entry::getKey).findFirst().orElse(null);
      if (chosen == null) {
        log.error("Coordinator of [{}]: allocation strategy {} chose {} for shard [{}], which is not a registered "
            + "region taking shards; the shard stays unallocated", typeName, strategy, choice, shardId);
      }
      return chosen;
    } catch (RuntimeException e) {
      log.error("Coordinator of [{}]: allocation strategy {} failed for shard [{}]; the shard stays unallocated",
          typeName, strategy, shardId, e);
      return null;
    }
  }

  // ---- rebalancing and hand-off

  private void scheduleRebalance(Duration delay) {
    timers.startSingleTimer(RebalanceTick.INSTANCE, delay);
  }

  private Behavior<Object> onRebalanceTick() {
    if (!settled || !handOffs.isEmpty()) {
      // The round in progress schedules the next one when it ends.
      return Behaviors.same();
    }
    placeAll();
    if (writing || !queuedEvents.isEmpty()) {
      // Plan moves on stored homes only: look again once the writes in flight are done.
      scheduleRebalance(Duration.ofMillis(100));
      return Behaviors.same();
    }
    Set<String> moves;
    try {
      Map<ActorRef<Object>, RegionInfo> infos = regionInfos(state);
      moves = infos.size() < 2 ? Set.of() : strategy.rebalance(allocation(state, infos), Set.of());
    } catch (RuntimeException e) {
      log.error("Coordinator of [{}]: allocation strategy {} failed to plan a rebalance", typeName, strategy, e);
      moves = Set.of();
    }
    List<String> valid = moves.stream().filter(state.shards()::containsKey).toList();
    if (valid.isEmpty()) {
      idleRebalanceDelay = min(idleRebalanceDelay.multipliedBy(2), rebalanceInterval.multipliedBy(8));
      scheduleRebalance(idleRebalanceDelay);
      return Behaviors.same();
    }
    idleRebalanceDelay = rebalanceInterval;
    if (spreadUntouched()) {
      // Unused shards moved without hand-offs; the next round sees whether used ones must move.
      scheduleRebalance(rebalanceInterval);
      return Behaviors.same();
    }
    log.info("Coordinator of [{}]: rebalancing {} shard(s): {}", typeName, valid.size(), valid);
    valid.forEach(this::startHandOff);
    return Behaviors.same();
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }

  /** Tells every region and proxy that the shard is leaving its home; the owner drives the rest. */
  private void startHandOff(String shardId) {
    // A shard whose home is still being stored is left for the next round (or the region's next
    // shutdown request): the regions may not know that home yet.
    ActorRef<Object> owner = settledHome(shardId);
    if (owner == null || handOffs.containsKey(shardId)) {
      return;
    }
    untouched.remove(shardId);
    int id = java.util.concurrent.ThreadLocalRandom.current().nextInt();
    handOffs.put(shardId, new HandOffInProgress(owner, id));
    Set<ActorRef<Object>> everyone = new HashSet<>(state.regions().keySet());
    everyone.addAll(state.proxies());
    BeginHandOff begin = new BeginHandOff(shardId, owner, everyone, id);
    everyone.forEach(r -> r.tell(begin));
    timers.startSingleTimer(new HandOffTimeout(shardId), handOffTimeout);
  }

  private Behavior<Object> onShardStopped(ShardStopped stopped) {
    String shardId = stopped.shardId();
    // A hand-off this coordinator did not start (its predecessor did) still completes here, as
    // long as the shard's recorded home is the region reporting it.
    boolean ours = new HandOffInProgress(stopped.region(), stopped.handOffId()).equals(handOffs.get(shardId));
    boolean inherited = !handOffs.containsKey(shardId) && !givenUp.contains(stopped.handOffId())
        && stopped.region().equals(state.shards().get(shardId));
    if (!ours && !inherited) {
      log.debug("Coordinator of [{}]: ignoring {}, the hand-off in progress is {}", typeName, stopped,
          handOffs.get(shardId));
      return Behaviors.same();
    }
    timers.cancel(new HandOffTimeout(shardId));
    List<CoordinatorEvent> events = new ArrayList<>();
    CoordinatorState after = state;
    if (stopped.region().equals(state.shards().get(shardId))) {
      events.add(new ShardHomeDeallocated(shardId));
      after = state.applied(events.get(0));
    }
    // Placed again at once, so the shard does not wait for its next message to find a home, and
    // the regions holding its messages hear where to send them.
    Set<ActorRef<Object>> waiting = waitingForHome.getOrDefault(shardId, Set.of());
    ActorRef<Object> next = chooseHome(after, shardId,
        waiting.isEmpty() ? stopped.region() : waiting.iterator().next(), stopped.region());
    if (next != null) {
      events.add(new ShardHomeAllocated(shardId, next));
    }
    log.debug("Coordinator of [{}]: shard [{}] stopped at {}; next home {}", typeName, shardId,
        stopped.region().path(), next == null ? "none yet" : next.path());
    return persist(events, () -> {
      handOffs.remove(shardId);
      if (next != null) {
        waitingForHome.remove(shardId);
        announce(new ShardHome(shardId, next));
      } else {
        askAgainForHome(shardId);
      }
      roundEnded();
    });
  }

  private Behavior<Object> onHandOffTimeout(HandOffTimeout timeout) {
    String shardId = timeout.shardId();
    HandOffInProgress gaveUp = handOffs.remove(shardId);
    if (gaveUp == null) {
      return Behaviors.same();
    }
    givenUp.add(gaveUp.id());
    if (givenUp.size() > 1024) {
      // Only late answers matter, and they come within seconds: the oldest ids can go.
      givenUp.remove(givenUp.iterator().next());
    }
    ActorRef<Object> owner = gaveUp.owner();
    log.warn("Coordinator of [{}]: the hand-off of shard [{}] from {} did not finish within {} ms (a region did "
        + "not answer, or entities did not stop); the shard stays where it is", typeName, shardId, owner.path(),
        handOffTimeout.toMillis());
    waitingForHome.remove(shardId);
    if (owner.equals(state.shards().get(shardId))) {
      announce(new ShardHome(shardId, owner));
    }
    roundEnded();
    return Behaviors.same();
  }

  /** The requests that waited for a hand-off to end are handled as if they came now. */
  private void askAgainForHome(String shardId) {
    Set<ActorRef<Object>> asked = waitingForHome.remove(shardId);
    if (asked != null) {
      asked.forEach(r -> context.getSelf().tell(new GetShardHome(shardId, r)));
    }
  }

  /** Every region and proxy hears a shard's home: they all stopped routing to it for the move. */
  private void announce(ShardHome home) {
    state.regions().keySet().forEach(r -> r.tell(home));
    state.proxies().forEach(p -> p.tell(home));
  }

  /** When the last move of a round has ended, the next round starts at once. */
  private void roundEnded() {
    if (handOffs.isEmpty()) {
      scheduleRebalance(Duration.ZERO);
    }
  }

  private Behavior<Object> onGracefulShutdownReq(GracefulShutdownReq request) {
    ActorRef<Object> region = request.region();
    List<String> shards = state.regions().get(region);
    if (shards == null) {
      return Behaviors.same();
    }
    if (shuttingDown.add(region)) {
      log.info("Coordinator of [{}]: region {} is shutting down; handing off its {} shard(s)", typeName,
          region.path(), shards.size());
    }
    shards.forEach(this::startHandOff);
    return Behaviors.same();
  }

  private Behavior<Object> onTerminated(Terminated t) {
    List<String> hosted = state.regions().get(t.ref());
    if (hosted != null && !inRemovalMargin.contains(t.ref())) {
      Duration wait = RemovalMargin.before(removalMargin, isMemberNotDown(addressOf(t.ref())), hosted.size());
      if (!wait.isZero()) {
        inRemovalMargin.add(t.ref());
        log.info("Coordinator of [{}]: region {} is gone with {} shard(s): its node was removed from the cluster; "
            + "they get new homes in {} ms (the removal margin), when that node has surely stopped them", typeName,
            t.ref().path(), hosted.size(), wait.toMillis());
        timers.startSingleTimer(new RemovalMarginPassed(t.ref()), wait);
        return Behaviors.same();
      }
    }
    return inRemovalMargin.contains(t.ref()) ? Behaviors.same() : regionGone(t.ref());
  }

  private boolean isMemberNotDown(Address address) {
    for (Member m : cluster.state().getMembers()) {
      if (m.address().equals(address)) {
        return m.status() != MemberStatus.down() && m.status() != MemberStatus.removed();
      }
    }
    return false;
  }

  /** The region and its shards are gone: they get new homes. */
  private Behavior<Object> regionGone(ActorRef<Object> region) {
    Terminated t = new Terminated(region);
    if (state.regions().containsKey(t.ref())) {
      log.info("Coordinator of [{}]: region {} is gone with {} shard(s)", typeName, t.ref().path(),
          state.regions().get(t.ref()).size());
      shuttingDown.remove(t.ref());
      List<String> abandoned = handOffs.entrySet().stream().filter(e -> e.getValue().owner().equals(t.ref()))
          .map(Map.Entry::getKey).toList();
      if (rememberedShards.isPresent()) {
        // Their remembered entities must run again without waiting for a message.
        toPlace.addAll(state.regions().get(t.ref()));
      }
      persist(new RegionTerminated(t.ref()), () -> {
        // Hand-offs from the dead region are over: its shards have no home and get one on demand.
        for (String shardId : abandoned) {
          handOffs.remove(shardId);
          timers.cancel(new HandOffTimeout(shardId));
          askAgainForHome(shardId);
        }
        if (!abandoned.isEmpty()) {
          roundEnded();
          placeRemembered();
        }
        if (!settled) {
          checkSettled();
        }
      });
      Behavior<Object> next = placeRemembered();
      // The dead region's shards get new homes now, not when their next message needs one.
      allPlaced = false;
      placeAll();
      return next;
    }
    if (state.proxies().contains(t.ref())) {
      return persist(new ProxyTerminated(t.ref()), () -> { });
    }
    return Behaviors.same();
  }

  private void watch(ActorRef<Object> ref) {
    context.watchWith(ref, new Terminated(ref));
  }

  // ---- allocation view

  /** The regions that take shards (registered, not shutting down), with what the strategy sees. */
  private Map<ActorRef<Object>, RegionInfo> regionInfos(CoordinatorState view) {
    List<Member> byAge = new ArrayList<>();
    cluster.state().getMembers().forEach(m -> {
      if (m.status() == MemberStatus.up() || m.status() == MemberStatus.weaklyUp() || m.status() == MemberStatus.leaving()) {
        byAge.add(m);
      }
    });
    byAge.sort(Member.ageOrdering()::compare);
    Map<Address, Member> members = new HashMap<>();
    Map<Address, Integer> ranks = new HashMap<>();
    for (int i = 0; i < byAge.size(); i++) {
      members.put(byAge.get(i).address(), byAge.get(i));
      ranks.put(byAge.get(i).address(), i);
    }
    Map<ActorRef<Object>, RegionInfo> infos = new LinkedHashMap<>();
    Map<ActorRef<Object>, RegionInfo> leaving = new LinkedHashMap<>();
    for (ActorRef<Object> region : view.regions().keySet()) {
      if (!shuttingDown.contains(region)) {
        Member member = members.get(addressOf(region));
        boolean up = member != null
            && (member.status() == MemberStatus.up() || member.status() == MemberStatus.weaklyUp());
        // A region whose node is leaving, or already gone but not yet reported terminated (a
        // coordinator that just loaded its state), would take a shard only to lose it.
        (up ? infos : leaving).put(region, info(region, members, ranks));
      }
    }
    return infos.isEmpty() ? leaving : infos;
  }

  private RegionInfo info(ActorRef<Object> region, Map<Address, Member> members, Map<Address, Integer> ranks) {
    Address address = addressOf(region);
    Member member = members.get(address);
    Set<String> roles = member == null ? Set.of() : scala.jdk.javaapi.CollectionConverters.asJava(member.roles());
    return new RegionInfo(address, roles, ranks.getOrDefault(address, Integer.MAX_VALUE));
  }

  private Address addressOf(ActorRef<Object> ref) {
    Address address = ref.path().address();
    return address.hasGlobalScope() ? address : cluster.selfAddress();
  }

  private static ShardAllocation allocation(CoordinatorState view, Map<ActorRef<Object>, RegionInfo> infos) {
    Map<RegionInfo, List<String>> shardsByRegion = new HashMap<>();
    infos.forEach((region, info) -> shardsByRegion.put(info, view.regions().get(region)));
    return ShardAllocation.of(shardsByRegion);
  }
}
