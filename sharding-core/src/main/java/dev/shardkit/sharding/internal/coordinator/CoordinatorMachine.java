package dev.shardkit.sharding.internal.coordinator;

import dev.shardkit.sharding.internal.InternalApi;
import dev.shardkit.sharding.internal.coordinator.CoordinatorInput.GetBacklog;
import dev.shardkit.sharding.internal.coordinator.CoordinatorInput.LoadFailed;
import dev.shardkit.sharding.internal.coordinator.CoordinatorInput.Loaded;
import dev.shardkit.sharding.internal.coordinator.CoordinatorInput.Membership;
import dev.shardkit.sharding.internal.coordinator.CoordinatorInput.NodeIdentified;
import dev.shardkit.sharding.internal.coordinator.CoordinatorInput.Protocol;
import dev.shardkit.sharding.internal.coordinator.CoordinatorInput.RememberedShardsFailed;
import dev.shardkit.sharding.internal.coordinator.CoordinatorInput.RememberedShardsRead;
import dev.shardkit.sharding.internal.coordinator.CoordinatorInput.Start;
import dev.shardkit.sharding.internal.coordinator.CoordinatorInput.Stop;
import dev.shardkit.sharding.internal.coordinator.CoordinatorInput.StoreFailed;
import dev.shardkit.sharding.internal.coordinator.CoordinatorInput.Stored;
import dev.shardkit.sharding.internal.coordinator.CoordinatorInput.Terminated;
import dev.shardkit.sharding.internal.coordinator.CoordinatorInput.TimerFired;
import dev.shardkit.sharding.internal.machine.Backoff;
import dev.shardkit.sharding.internal.machine.Machine;
import dev.shardkit.sharding.internal.membership.ClusterChange;
import dev.shardkit.sharding.internal.membership.MemberSnapshot;
import dev.shardkit.sharding.internal.membership.MembersFold;
import dev.shardkit.sharding.internal.util.ShardIdBounds;
import dev.shardkit.sharding.internal.wire.ShardHomesChunks;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.CurrentRegions;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.GetCurrentRegions;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.GetShardHome;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.GracefulShutdownReq;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.HandOffDeclined;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.Register;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.RegisterAck;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.RegisterProxy;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.ShardHome;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.ShardHomes;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.ShardStarted;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.ShardStopped;
import dev.shardkit.sharding.internal.wire.ShardingProtocol;
import dev.shardkit.sharding.spi.CoordinatorEvent.ProxyTerminated;
import dev.shardkit.sharding.spi.CoordinatorEvent.RegionTerminated;
import dev.shardkit.sharding.spi.CoordinatorEvent.ShardHomeAllocated;
import dev.shardkit.sharding.spi.CoordinatorEvent;
import dev.shardkit.sharding.spi.CoordinatorState;
import dev.shardkit.sharding.spi.LoadedCoordinatorState;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.IntSupplier;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.cluster.MemberStatus;

/**
 * The coordinator's decisions, one entity type, as a deterministic machine: where shards live and
 * when they move. It loads its state from the store (retrying with back-off; requests wait in a
 * bounded stash, each once), forgets the regions of nodes that left, announces itself to every
 * node that may host shards, and settles (until each has registered its region or said it has
 * none, or the settle timeout: shards with a home are answered, requests for homeless ones wait,
 * nothing is placed); then it places shards (up front, on request, for remembered entities, after
 * a hand-off), acknowledges registrations and tells regions homes, rebalances in rounds, hands
 * shards off (rounds, graceful shutdowns, told shards offered to regions that joined), waits out
 * the removal margin of regions whose node was removed, and answers during store outages within
 * bounded queues. Every change is decided, stored, then announced: nothing it says is unknown to
 * the store, so a successor that loads it never gives a shard a second home. A write refused as
 * superseded makes it drop what it holds and load again, at a new term.
 *
 * <p>It reads membership only from {@link MembersFold} (given {@link Membership} inputs), time
 * only as given, and hand-off ids from the source it was given. Answers from its stores carry the
 * ids of the calls they answer; ids start from its incarnation, so an answer to an earlier
 * incarnation's call is never taken for one of its own. Not thread-safe.
 */
@InternalApi
public final class CoordinatorMachine implements Machine<CoordinatorInput, CoordinatorEffect> {

  /** Where the coordinator is in its life. */
  public enum Phase {
    /** Reading its state from the store; requests wait. */
    LOADING,
    /** Loaded; waiting for every hosting node's region before it places shards. */
    SETTLING,
    /** Places shards and rebalances. */
    ACTIVE,
    /** Done for good. */
    STOPPED
  }

  private final CoordinatorConfig config;
  private final ActorRef<Object> self;
  private final IntSupplier handOffIds;
  private final MembersFold members;
  private final CoordinatorEffects out = new CoordinatorEffects();
  /** Homes of shards with remembered entities their regions have not confirmed; replaced at every start-over. */
  private StartConfirmations startConfirmations;
  /** Inputs that follow from the one being handled, handled right after it, in order. */
  private final ArrayDeque<CoordinatorInput> followUps = new ArrayDeque<>();
  private final Backoff.Retries loadRetries = CoordinatorStore.BACKOFF.retries();
  private long lastId;

  private Phase phase = Phase.LOADING;
  /** The load in progress; 0 if none is. */
  private long loadAttempt;
  /**
   * Set while a load waits for this node's delivery gate to open: a load raises the store's term,
   * so a coordinator that thawed after its node was removed must not load (which would take the
   * store from its successor) and then write what its stale view of the cluster says.
   */
  private boolean awaitingGate;
  /** A loaded state that waits for the membership to be known. */
  private LoadedCoordinatorState loadedEarly;
  /** What arrived while loading, in order; each protocol message once ({@link #stashed}). */
  private final List<CoordinatorInput> stash = new ArrayList<>();
  private final Set<Object> stashed = new HashSet<>();

  // What one load builds on; a reload starts them over.
  private Placement placement;
  private HandOffTracker handOffs;
  private RebalanceRounds rounds;
  private CoordinatorAnswers answers;
  /** Regions of removed nodes whose shards wait for the removal margin before they move. */
  private Set<ActorRef<Object>> inRemovalMargin;
  /**
   * Regions and proxies this incarnation told every stored home when it acknowledged their first
   * registration. One that registers again (a region's registrations wait in its singleton proxy
   * until this coordinator is found, and arrive together) keeps what it was told, and later homes
   * placed up front reach it by the broadcast to every stored region: telling it again would
   * send the whole placement (hundreds of KiB at 100 000 shards) once more per registration.
   */
  private Set<ActorRef<Object>> toldOnRegistration;
  // Set once the state is loaded.
  private long term;
  /** The time of the input being handled, in nanoseconds: store writes are timed with it. */
  private long now;
  private CoordinatorStore store;
  private CoordinatorHandOffs handOffDriver;
  private Settling settling;

  /**
   * @param self the coordinator's reference, on what it tells regions
   * @param incarnation how many incarnations of this coordinator's actor came before (a failure
   *     starts a new one)
   * @param handOffIds the source of hand-off ids
   * @param members the membership as the coordinator's actor heard it so far; kept up to date by
   *     the {@link Membership} inputs
   */
  public CoordinatorMachine(CoordinatorConfig config, ActorRef<Object> self, long incarnation, IntSupplier handOffIds,
      MembersFold members) {
    this.config = config;
    this.self = self;
    this.handOffIds = handOffIds;
    this.members = members;
    this.lastId = incarnation << 40;
    startOver();
  }

  @Override
  public List<CoordinatorEffect> handle(CoordinatorInput input, long now) {
    this.now = now;
    out.buffer().clear();
    process(input);
    while (!followUps.isEmpty()) {
      process(followUps.poll());
    }
    return out.buffer().view();
  }

  // ---- queries, for tests and the simulation

  public Phase phase() {
    return phase;
  }

  /** The term of the state loaded; 0 before. */
  public long term() {
    return term;
  }

  /** The state with every decision taken so far; null before it is loaded. */
  public CoordinatorState decided() {
    return store == null ? null : store.writes().decided();
  }

  /** The state the store confirmed; null before it is loaded. */
  public CoordinatorState stored() {
    return store == null ? null : store.writes().stored();
  }

  // ---- dispatch

  private void process(CoordinatorInput input) {
    if (phase == Phase.STOPPED) {
      return;
    }
    if (input instanceof Membership m) {
      onMembership(m.change());
    } else if (input instanceof Stop) {
      phase = Phase.STOPPED;
      out.add(new CoordinatorEffect.Stopped());
    } else if (phase == Phase.LOADING) {
      loading(input);
    } else {
      loaded(input);
      if (phase == Phase.SETTLING && settling.done()) {
        settle();
      }
    }
  }

  private void loading(CoordinatorInput input) {
    if (input instanceof Start) {
      out.report(new CoordinatorNotice.Started(config.self(), config.storeDescription(), config.strategy().toString()));
      load();
    } else if (input instanceof Loaded l) {
      if (l.attempt() != loadAttempt) {
        out.report(new CoordinatorNotice.Stale(input));
      } else if (!members.known()) {
        loadedEarly = l.loaded();
      } else {
        onLoaded(l.loaded());
      }
    } else if (input instanceof LoadFailed f) {
      if (f.attempt() != loadAttempt) {
        out.report(new CoordinatorNotice.Stale(input));
        return;
      }
      loadAttempt = 0;
      Duration backoff = loadRetries.failed();
      out.report(new CoordinatorNotice.LoadFailed(f.cause(), backoff));
      out.startTimer(new CoordinatorTimer.RetryLoad(), backoff);
    } else if (input instanceof TimerFired t) {
      if (t.key() instanceof CoordinatorTimer.RetryLoad && out.timers().fired(t.key(), t.generation())) {
        load();
      }
    } else if (input instanceof CoordinatorInput.GateOpened && awaitingGate) {
      awaitingGate = false;
      loadNow();
    } else if (input instanceof Protocol || input instanceof Terminated || input instanceof NodeIdentified
        || input instanceof GetBacklog) {
      stashOrRefuse(input);
    } else {
      // Answers to calls made for the state held before a reload belong to nothing that exists.
      out.report(new CoordinatorNotice.Stale(input));
    }
  }

  private void loaded(CoordinatorInput input) {
    if (input instanceof Protocol p) {
      onProtocol(p.message());
    } else if (input instanceof Terminated t) {
      onTerminated(t.ref());
    } else if (input instanceof NodeIdentified identified) {
      if (phase == Phase.SETTLING && !identified.hasRegion()) {
        settling.noRegionOn(identified.node());
        heardFrom();
      }
    } else if (input instanceof TimerFired t) {
      if (out.timers().fired(t.key(), t.generation())) {
        onTimer(t.key());
      }
    } else if (input instanceof Stored s) {
      if (store.isCurrentWrite(s.writeId())) {
        store.stored();
      } else {
        out.report(new CoordinatorNotice.Stale(input));
      }
    } else if (input instanceof StoreFailed f) {
      if (!store.isCurrentWrite(f.writeId())) {
        out.report(new CoordinatorNotice.Stale(input));
      } else if (CoordinatorStore.superseded(f.cause())) {
        reload(f.cause());
      } else {
        store.failed(f.cause());
      }
    } else if (input instanceof RememberedShardsRead read) {
      store.read(read.readId(), read.shardIds()).ifPresent(shardIds -> {
        placement.remember(new TreeSet<>(shardIds));
        out.report(new CoordinatorNotice.RememberedMayNeedHomes(shardIds.size()));
        placeRememberedIfSettled();
      });
    } else if (input instanceof RememberedShardsFailed failed) {
      store.readFailed(failed.readId(), failed.cause());
    } else if (input instanceof GetBacklog get) {
      out.add(new CoordinatorEffect.ReplyBacklog(get.replyTo(), answers.backlog(store.writes(),
          phase == Phase.SETTLING ? settling.deferredCount() : 0)));
    } else {
      out.report(new CoordinatorNotice.Stale(input));
    }
  }

  private void onProtocol(ShardingProtocol message) {
    if (message instanceof Register r) {
      onRegister(r.region(), r.hostedShards(), false);
    } else if (message instanceof RegisterProxy r) {
      onRegister(r.proxy(), Set.of(), true);
    } else if (message instanceof GetShardHome get) {
      if (phase == Phase.ACTIVE) {
        onGetShardHome(get);
      } else if (!refused(get) && !answerKnown(get) && !settling.defer(get)) {
        answers.refusedWhileSettling();
      }
    } else if (message instanceof ShardStarted started) {
      startConfirmations.confirmed(started.shardId(), started.region());
    } else if (message instanceof ShardStopped stopped) {
      handOffDriver.stopped(stopped);
    } else if (message instanceof HandOffDeclined declined) {
      handOffDriver.declined(declined);
    } else if (message instanceof GracefulShutdownReq req) {
      handOffDriver.shutDown(req.region());
    } else if (message instanceof GetCurrentRegions get) {
      out.send(get.replyTo(), new CurrentRegions(Set.copyOf(stored().regions().keySet())));
    } else {
      out.report(new CoordinatorNotice.Ignored(message));
    }
  }

  private void onTimer(CoordinatorTimer key) {
    if (key instanceof CoordinatorTimer.SettleTimeout) {
      if (phase == Phase.SETTLING) {
        out.report(new CoordinatorNotice.NotAllRegistered(config.settleTimeout()));
        settling.timedOut();
      }
    } else if (key instanceof CoordinatorTimer.RebalanceTick) {
      if (phase == Phase.ACTIVE) {
        onRebalanceTick();
      }
    } else if (key instanceof CoordinatorTimer.RemovalMarginPassed passed) {
      inRemovalMargin.remove(passed.region());
      regionGone(passed.region());
    } else if (key instanceof CoordinatorTimer.HandOffTimeout timeout) {
      handOffDriver.timedOut(timeout.shardId());
    } else if (key instanceof CoordinatorTimer.RetryStore) {
      store.retry();
    } else if (key instanceof CoordinatorTimer.RetryRememberedRead) {
      store.readRememberedShards();
    } else if (key instanceof CoordinatorTimer.ConfirmStarts) {
      startConfirmations.due(shardId -> decided().shards().get(shardId), term).forEach(home -> out.send(home.region(),
          home));
      if (!startConfirmations.isEmpty()) {
        out.startTimer(new CoordinatorTimer.ConfirmStarts(), StartConfirmations.INTERVAL);
      }
    }
  }

  private void onMembership(ClusterChange change) {
    members.apply(change);
    if (phase == Phase.LOADING) {
      if (loadedEarly != null && members.known()) {
        LoadedCoordinatorState loaded = loadedEarly;
        loadedEarly = null;
        onLoaded(loaded);
      }
    } else if (change instanceof ClusterChange.MemberChanged changed) {
      Address node = changed.node().id().address();
      if (phase == Phase.ACTIVE && changed.node().status() == MemberStatus.up()) {
        offerToNodeUp(node);
      } else if (members().isLeaving(node)) {
        List.copyOf(decided().regions().keySet()).stream().filter(r -> members().addressOf(r).equals(node))
            .forEach(this::leaving);
      }
    }
  }

  /**
   * A region whose node leaves shuts down: it hands off its shards and stops. It asks this
   * coordinator to move them, but it may have asked a predecessor, which started the hand-offs and
   * went away, and it may stop as soon as it hosts nothing: so the coordinator hands them off as
   * soon as it sees the node leave or the region register from a leaving node, without waiting for
   * the region to ask again. Until they are handed off, a request for one of them waits for its
   * next home instead of being told the leaving region, which may have stopped by the time the
   * messages sent there arrive (and would start a shard it just handed off again if it had not).
   */
  private void leaving(ActorRef<Object> region) {
    handOffDriver.shutDown(region);
  }

  // ---- loading

  private long nextId() {
    return ++lastId;
  }

  /** What a load builds on, from scratch: nothing held in memory survives a reload. */
  private void startOver() {
    startConfirmations = new StartConfirmations();
    if (config.remembersEntities()) {
      out.confirmStartsIn(startConfirmations);
    }
    handOffs = new HandOffTracker(handOffIds);
    placement = new Placement(config.strategy(), config.knownShards(), self,
        (problem, cause) -> out.report(new CoordinatorNotice.StrategyProblem(problem, cause)));
    rounds = new RebalanceRounds(config.rebalanceInterval());
    answers = new CoordinatorAnswers(config, out, handOffs);
    inRemovalMargin = new HashSet<>();
    toldOnRegistration = new HashSet<>();
    store = null;
    handOffDriver = null;
    settling = null;
    phase = Phase.LOADING;
  }

  /**
   * Loads the state once this node's delivery gate is open, that is once other members confirmed
   * since its last pause that they still count the node in. A load takes the store at a new term,
   * superseding whichever coordinator loaded before: a coordinator whose node was paused until it
   * was downed and removed, and whose successor took over meanwhile, must not take it back, be it
   * on its first load, a retry, or a reload after a refused write. A removed node's gate never
   * opens; the node shuts down.
   */
  private void load() {
    awaitingGate = true;
    out.add(new CoordinatorEffect.AwaitGate());
  }

  private void loadNow() {
    loadAttempt = nextId();
    out.add(new CoordinatorEffect.Load(loadAttempt));
  }

  /**
   * A protocol message waits for the load once however often it comes; past the stash's capacity
   * messages are refused (regions ask again), counted, and reported once per load.
   */
  private void stashOrRefuse(CoordinatorInput input) {
    Object key = input instanceof Protocol p ? p.message() : null;
    if (key != null && !stashed.add(key)) {
      return;
    }
    if (stash.size() >= config.stashCapacity()) {
      answers.refusedWhileLoading();
      if (key != null) {
        stashed.remove(key);
      }
    } else {
      stash.add(input);
    }
  }

  /** Settling, or active at once if every node that may host shards is known already. */
  private void onLoaded(LoadedCoordinatorState loaded) {
    loadAttempt = 0;
    loadRetries.succeeded();
    CoordinatorState state = loaded.state();
    term = loaded.term();
    store = new CoordinatorStore(new CoordinatorWrites(state), out, this::nextId, () -> now);
    handOffDriver = new CoordinatorHandOffs(config.handOffTimeout(), out, term, handOffs, placement, store,
        this::view, get -> followUps.add(new Protocol(get)), () -> scheduleRebalance(Duration.ZERO));
    List<CoordinatorEvent> gone = members().leftTheCluster(state);
    out.report(new CoordinatorNotice.Loaded(state, term, gone.size()));
    settling = new Settling(config.role(), config.stashCapacity());
    phase = Phase.SETTLING;
    store.persist(gone, () -> {
      // Regions act only on the term they registered at: even when settled at once, each hears
      // of this term before the homes it is told at it.
      announceSelf();
      if (!settling.check(members(), decided().regions().keySet())) {
        out.startTimer(new CoordinatorTimer.SettleTimeout(), config.settleTimeout());
      }
    });
    CoordinatorState kept = decided();
    if (config.remembersEntities()) {
      // The shards of regions gone with their nodes must run again for their remembered entities.
      state.regions().keySet().stream().filter(region -> !kept.regions().containsKey(region))
          .forEach(region -> placement.remember(state.regions().get(region)));
      store.readRememberedShards();
    }
    // Those on nodes that are down are reported terminated when they are removed.
    kept.regions().keySet().forEach(this::watch);
    kept.proxies().forEach(this::watch);
    if (settling.done()) {
      settle();
    }
    followUps.addAll(stash);
    stash.clear();
    stashed.clear();
  }

  /**
   * Another coordinator took over since this one loaded (the store refused a write as superseded):
   * what this one holds is stale, so it acts on none of it and loads again, with nothing but the
   * store's state and a new term, once this node's gate is open ({@link #load}).
   */
  private void reload(Throwable refusal) {
    out.report(new CoordinatorNotice.Superseded(term, refusal));
    out.cancelAllTimers();
    startOver();
    load();
  }

  private void watch(ActorRef<Object> ref) {
    out.add(new CoordinatorEffect.Watch(ref));
  }

  /**
   * Tells the region on every node that may host shards (of the role) that this coordinator took
   * over, so each registers now instead of when it notices its old coordinator is gone, which can
   * take until that node is removed from the cluster. A region answers with a registration; each
   * node also says whether it has a region, which finds the nodes that have none (any more), which
   * have nothing to report.
   */
  private void announceSelf() {
    out.add(new CoordinatorEffect.Announce(List.copyOf(members().mayHostShards(config.role())),
        new RegisterAck(self, term)));
  }

  // ---- settling

  /** A registration, or the end of a region, is stored: settling may be over. */
  private void heardFrom() {
    if (phase == Phase.SETTLING) {
      settling.check(members(), decided().regions().keySet());
    }
  }

  private void settle() {
    phase = Phase.ACTIVE;
    scheduleRebalance(rounds.first());
    out.cancelTimer(new CoordinatorTimer.SettleTimeout());
    settling.deferred().forEach(get -> followUps.add(new Protocol(get)));
    placeRemembered();
    placeAll();
  }

  // ---- registration

  private void onRegister(ActorRef<Object> region, Set<String> hostedShards, boolean proxy) {
    CoordinatorState state = decided();
    // Sorted: the order of the events stored must not depend on how a set iterates in this JVM.
    Registration registration = Registration.decide(state, region, proxy,
        placement.reported(state, region, new TreeSet<>(hostedShards)));
    if (registration.ignored()) {
      out.report(new CoordinatorNotice.ProxyWasRegion(region));
      return;
    }
    if (registration.isNew()) {
      watch(region);
      out.report(new CoordinatorNotice.Registered(proxy, region.path()));
    }
    if (answers.awaitAck(region) || !registration.events().isEmpty()) {
      store.persist(registration.events(), () -> {
        answers.acked(region);
        out.send(region, new RegisterAck(self, term));
        if (config.tellsHomes() && toldOnRegistration.add(region)) {
          // Behind the acknowledgement, so the region acts on them at this term.
          tellHomes(stored().shards().keySet(), List.of(region));
        }
        if (!proxy && members().isLeaving(members().addressOf(region))) {
          leaving(region);
        }
        heardFrom();
      });
    }
    if (phase == Phase.ACTIVE) {
      registeredWhileActive(registration.isNew() && !proxy);
    }
  }

  private void registeredWhileActive(boolean newRegion) {
    if (newRegion) {
      // A new region usually means shards should move to it: no idle back-off. Told shards
      // are offered to it at once, by the next round (once its registration is acknowledged:
      // it must act on their hand-offs).
      Duration next = rounds.moved();
      scheduleRebalance(config.tellsHomes() ? Duration.ZERO : next);
    }
    placeAll();
    if (newRegion) {
      spreadUntouched();
    }
    placeRemembered();
  }

  // ---- placement (only once settled)

  private Placement.View view() {
    return new Placement.View(decided(), members(), handOffs.shuttingDown(), handOffs.shards());
  }

  private MemberSnapshot members() {
    return members.snapshot();
  }

  /** Places every known shard without a home, in one write; nothing is announced. */
  private void placeAll() {
    List<CoordinatorEvent> events = placement.placeAll(view());
    if (!events.isEmpty()) {
      out.report(new CoordinatorNotice.PlacingUpFront(events.size()));
      if (config.tellsHomes()) {
        List<String> placed = events.stream().map(e -> ((ShardHomeAllocated) e).shardId()).toList();
        // Once regions know these homes, moving a shard needs a hand-off, which its owner declines
        // if it started the shard (see moveUnstarted).
        placement.told(placed);
        store.persist(events, () -> tellHomes(placed, everyone()));
      } else {
        store.persist(events, () -> { });
      }
    }
  }

  /**
   * Tells {@code to} the stored homes of {@code shardIds}, in as many messages as one frame each
   * allows; a shard being handed off, or whose new home is not stored yet, is left out (its
   * regions ask for it as before).
   */
  private void tellHomes(Collection<String> shardIds, Collection<ActorRef<Object>> to) {
    Map<String, ActorRef<Object>> homes = new HashMap<>();
    for (String shardId : shardIds) {
      ActorRef<Object> home = handOffs.inProgress(shardId) ? null : store.writes().settledHome(shardId);
      if (home != null && !inRemovalMargin.contains(home)) {
        homes.put(shardId, home);
      }
    }
    List<ShardHomes> messages = ShardHomesChunks.of(homes, term, ShardHomesChunks.DEFAULT_MAX_BYTES);
    to.forEach(receiver -> messages.forEach(m -> out.send(receiver, m)));
  }

  /** The regions and proxies the store holds as registered. */
  private Set<ActorRef<Object>> everyone() {
    Set<ActorRef<Object>> everyone = new LinkedHashSet<>(stored().regions().keySet());
    everyone.addAll(stored().proxies());
    return everyone;
  }

  /** Moves the unused shards placed up front without hand-offs; true if any moved. */
  private boolean spreadUntouched() {
    List<CoordinatorEvent> events = placement.spreadUntouched(view());
    if (!events.isEmpty()) {
      out.report(new CoordinatorNotice.SpreadingUnused(events.size() / 2));
      store.persist(events, () -> { });
    }
    return !events.isEmpty();
  }

  /**
   * Offers a region that joined (or came Up) its share of the shards whose homes were told up
   * front and that may not have started: each gets a hand-off that its owner declines if it started
   * the shard. They are not limited per round like rebalancing, since a shard nobody started has
   * nothing to stop; a started one stays. When a round of them ends with some declined, the next
   * round offers again, counting the started shards where they stay, so that the regions end up
   * balanced without moving a started shard. True if any hand-off began.
   */
  private boolean moveUnstarted() {
    if (!config.tellsHomes()) {
      return false;
    }
    List<String> shardIds = placement.toldToMove(view());
    if (!shardIds.isEmpty()) {
      out.report(new CoordinatorNotice.OfferingTold(shardIds.size()));
      shardIds.forEach(handOffDriver::startIfUnstarted);
    }
    return !shardIds.isEmpty();
  }

  /**
   * A region registered before its node was Up takes shards only once it is: with told homes, the
   * next round starts at once, to offer it its share of the told shards before first messages start
   * them where they are.
   */
  private void offerToNodeUp(Address node) {
    if (config.tellsHomes() && members().isUp(node)) {
      scheduleRebalance(Duration.ZERO);
    }
  }

  /** Shards with remembered entities may need homes: placed once settling is over. */
  private void placeRememberedIfSettled() {
    if (phase == Phase.ACTIVE || phase == Phase.SETTLING && settling.done()) {
      placeRemembered();
    }
  }

  /** Places the shards with remembered entities; their homes hear of it and start them. */
  private void placeRemembered() {
    Placement.Remembered placed = placement.placeRemembered(view());
    if (!placed.start().isEmpty()) {
      store.afterDurable(() -> placed.start().forEach(home -> out.send(home.region(), home.at(term))));
    }
    if (!placed.events().isEmpty()) {
      out.report(new CoordinatorNotice.PlacingRemembered(placed.events().size()));
      store.persist(placed.events(), () -> placed.announce().forEach(home -> handOffDriver.announce(home.at(term))));
    }
  }

  /**
   * Answers a request for a shard that is being handed off (once it has its new home) or has a
   * home (see {@link CoordinatorAnswers}); false if the shard has neither.
   */
  private boolean answerKnown(GetShardHome get) {
    if (handOffs.inProgress(get.shardId())) {
      handOffs.waitForHome(get.shardId(), get.region());
      return true;
    }
    if (homeInRemovalMargin(get.shardId())) {
      // Its region is gone and its shards get new homes once the margin has passed; a region that
      // never saw that region's node (it joined meanwhile) would otherwise open a link to it and
      // send there what then comes back after newer messages went to the new home. The region
      // holds the messages and asks again on its retry tick.
      return true;
    }
    return answers.answer(get, store, term);
  }

  /** Whether the shard's home is a region that terminated and waits out its removal margin. */
  private boolean homeInRemovalMargin(String shardId) {
    ActorRef<Object> home = decided().shards().get(shardId);
    return home != null && inRemovalMargin.contains(home);
  }

  /** A shard the type does not accept ({@link ShardIdBounds}) gets no home; the region is told. */
  private boolean refused(GetShardHome get) {
    String shardId = get.shardId();
    boolean hasHome = decided().shards().containsKey(shardId) || handOffs.inProgress(shardId);
    Optional<String> why = config.shardIdBounds().atCoordinator(shardId, hasHome, decided().shards().size());
    why.ifPresent(reason -> {
      out.add(new CoordinatorEffect.Drop(get, "coordinator refuses " + get + ": " + reason));
      out.send(get.region(), new ShardingProtocol.ShardRefused(shardId, reason));
    });
    return why.isPresent();
  }

  private void onGetShardHome(GetShardHome get) {
    // The first request once every region is Up places all shards, this one included; and if a
    // region has come Up since the unused shards were placed, they are placed again first, so that
    // a shard starts where it will stay.
    placeAll();
    if (placement.spreadDue(get.shardId(), view())) {
      spreadUntouched();
    }
    if (refused(get)) {
      return;
    }
    placement.used(get.shardId());
    if (answerKnown(get)) {
      return;
    }
    ActorRef<Object> chosen = placement.chooseHome(view(), get.shardId(), get.region(), null);
    if (chosen != null) {
      store.persist(List.of(new ShardHomeAllocated(get.shardId(), chosen)), () -> {
        if (!chosen.equals(stored().shards().get(get.shardId()))) {
          // A later decision in the same write replaced this one (the chosen region was gone
          // meanwhile): no region hears of a home the store does not hold; the region asks again
          // on its retry tick, if the later decision did not answer it already.
          return;
        }
        ShardHome answer = new ShardHome(get.shardId(), chosen, term);
        // The new home hears it too, so it starts the shard before the first forwarded message.
        if (!chosen.equals(get.region())) {
          out.send(chosen, answer);
        }
        out.send(get.region(), answer);
      });
    } // else the region asks again on its retry tick
  }

  // ---- rebalancing

  private void scheduleRebalance(Duration delay) {
    out.startTimer(new CoordinatorTimer.RebalanceTick(), delay);
  }

  private void onRebalanceTick() {
    if (!handOffs.isEmpty()) {
      return; // The round in progress schedules the next one when it ends.
    }
    placeAll();
    if (store.writes().busy()) {
      scheduleRebalance(RebalanceRounds.WRITES_IN_FLIGHT);
      return;
    }
    if (moveUnstarted()) {
      // The round ends with the last of these hand-offs; then rebalancing sees what is left to move.
      rounds.moved();
      return;
    }
    List<String> moves = placement.rebalance(view());
    if (moves.isEmpty()) {
      scheduleRebalance(rounds.foundNothing());
    } else if (spreadUntouched()) {
      // Unused shards moved without hand-offs; the next round sees whether used ones must move.
      scheduleRebalance(rounds.moved());
    } else {
      rounds.moved();
      CoordinatorState decided = decided();
      out.report(new CoordinatorNotice.Rebalancing(moves,
          moves.stream().map(id -> decided.homeOf(id).map(ActorRef::path).orElse(null)).toList()));
      moves.forEach(handOffDriver::start);
    }
  }

  // ---- regions that are gone

  private void onTerminated(ActorRef<Object> region) {
    toldOnRegistration.remove(region);
    List<String> hosted = decided().regions().get(region);
    if (inRemovalMargin.contains(region)) {
      return;
    }
    if (hosted != null) {
      MemberSnapshot snapshot = members();
      Duration wait = RemovalMargin.before(config.removalMargin(),
          snapshot.isMemberNotDown(snapshot.addressOf(region)), hosted.size());
      if (!wait.isZero()) {
        inRemovalMargin.add(region);
        out.report(new CoordinatorNotice.RemovalMarginWait(region.path(), hosted.size(), wait));
        out.startTimer(new CoordinatorTimer.RemovalMarginPassed(region), wait);
        return;
      }
    }
    regionGone(region);
  }

  /** The region and its shards are gone: they get new homes. */
  private void regionGone(ActorRef<Object> region) {
    CoordinatorState state = decided();
    List<String> hosted = state.regions().get(region);
    if (hosted != null) {
      out.report(new CoordinatorNotice.RegionGone(region.path(), hosted.size()));
      handOffs.regionGone(region);
      List<String> abandoned = handOffs.ownedBy(region);
      if (config.remembersEntities()) {
        // Their remembered entities must run again without waiting for a message.
        placement.remember(hosted);
      }
      store.persist(List.of(new RegionTerminated(region)), () -> {
        handOffDriver.abandoned(abandoned);
        if (!abandoned.isEmpty()) {
          placeRememberedIfSettled();
        }
        heardFrom();
      });
      placement.regionLost();
      if (phase == Phase.ACTIVE) {
        placeRemembered();
        // The dead region's shards get new homes now, not when their next message needs one.
        placeAll();
      }
    } else if (state.proxies().contains(region)) {
      store.persist(List.of(new ProxyTerminated(region)), () -> { });
    }
  }
}
