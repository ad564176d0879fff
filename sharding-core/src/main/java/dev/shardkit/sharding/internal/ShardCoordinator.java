package dev.shardkit.sharding.internal;

import dev.shardkit.sharding.CoordinatorBacklog;
import dev.shardkit.sharding.internal.ShardingProtocol.CurrentRegions;
import dev.shardkit.sharding.internal.ShardingProtocol.GetCurrentRegions;
import dev.shardkit.sharding.internal.ShardingProtocol.GetShardHome;
import dev.shardkit.sharding.internal.ShardingProtocol.GracefulShutdownReq;
import dev.shardkit.sharding.internal.ShardingProtocol.HandOffDeclined;
import dev.shardkit.sharding.internal.ShardingProtocol.Register;
import dev.shardkit.sharding.internal.ShardingProtocol.RegisterAck;
import dev.shardkit.sharding.internal.ShardingProtocol.RegisterProxy;
import dev.shardkit.sharding.internal.ShardingProtocol.ShardHome;
import dev.shardkit.sharding.internal.ShardingProtocol.ShardHomes;
import dev.shardkit.sharding.internal.ShardingProtocol.ShardStopped;
import dev.shardkit.sharding.spi.CoordinatorEvent;
import dev.shardkit.sharding.spi.CoordinatorEvent.ProxyTerminated;
import dev.shardkit.sharding.spi.CoordinatorEvent.RegionTerminated;
import dev.shardkit.sharding.spi.CoordinatorEvent.ShardHomeAllocated;
import dev.shardkit.sharding.spi.CoordinatorState;
import dev.shardkit.sharding.spi.CoordinatorStateStore;
import dev.shardkit.sharding.spi.LoadedCoordinatorState;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.pekko.actor.ActorIdentity;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.Identify;
import org.apache.pekko.actor.NoSerializationVerificationNeeded;
import org.apache.pekko.actor.RootActorPath;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.BehaviorBuilder;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.StashBuffer;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.apache.pekko.cluster.Cluster;
import org.apache.pekko.cluster.ClusterEvent.MemberUp;
import org.apache.pekko.cluster.typed.Subscribe;
import org.slf4j.Logger;

/**
 * The singleton that decides where shards live, one per entity type, on the oldest node of the
 * type's role: an actor shell around {@link Placement}, {@link HandOffTracker},
 * {@link CoordinatorWrites}, {@link CoordinatorAnswers}, {@link Settling}, {@link RebalanceRounds}
 * and {@link MemberSnapshot}.
 * Every change is decided, stored through the {@link CoordinatorStateStore} (by its
 * {@link CoordinatorStoreLink}), then announced, so a successor that loads the store never gives a
 * shard a second home.
 *
 * <p>Behaviours: <em>loading</em> ({@link CoordinatorLoading}: reading the store; requests wait in
 * a bounded stash) → <em>settling</em> (until every node that may host shards has registered its
 * region or said it has none, or the settle timeout: shards with a home are served, requests for
 * homeless shards wait, and no shard is placed) → <em>active</em> (places shards, rebalances).
 * Settling and active share most handlers; each hands them its {@link Phase}.
 */
final class ShardCoordinator {

  /** Sent by the singleton manager when the coordinator must hand over. Local only. */
  public enum Stop implements NoSerializationVerificationNeeded { INSTANCE }

  private enum SettleTimeout implements NoSerializationVerificationNeeded { INSTANCE }

  private record Terminated(ActorRef<Object> ref) implements NoSerializationVerificationNeeded {}

  /** The removal margin of a region whose node was removed has passed. */
  private record RemovalMarginPassed(ActorRef<Object> region) implements NoSerializationVerificationNeeded {}

  private enum RebalanceTick implements NoSerializationVerificationNeeded { INSTANCE }

  /**
   * A node became Up; {@code rechecks} more looks are left while the cluster state read here does
   * not show it yet.
   */
  private record NodeUp(Address node, int rechecks) implements NoSerializationVerificationNeeded {}

  /** How soon a node's Up event is looked at again while the cluster state read here lags behind it. */
  private static final Duration MEMBER_UP_RECHECK = Duration.ofMillis(50);
  /** How many times: a state that lags this long (2 s) is left to the next rebalance round. */
  private static final int MEMBER_UP_RECHECKS = 40;

  /** Asks for a {@link CoordinatorBacklog}. Local only. */
  public record GetBacklog(ActorRef<CoordinatorBacklog> replyTo) implements NoSerializationVerificationNeeded {}

  private final ActorContext<Object> context;
  private final TimerScheduler<Object> timers;
  private final CoordinatorSpec spec;
  private final String typeName;
  private final Logger log;
  private final Cluster cluster;
  /** The downing provider's removal margin ({@link RemovalMargin}). */
  private final Duration removalMargin;
  private final Placement placement;
  private final HandOffTracker handOffs;
  private final RebalanceRounds rounds;
  /** Invalid messages and refused shards: logged (rate-limited) and published as dead letters. */
  private final DropReporter drops;
  /** Regions of removed nodes whose shards wait for the removal margin before they move. */
  private final Set<ActorRef<Object>> inRemovalMargin = new HashSet<>();
  private final CoordinatorAnswers answers;
  /**
   * Regions and proxies this incarnation told every stored home when it acknowledged their first
   * registration. One that registers again (a region's registrations wait in its singleton proxy
   * until this coordinator is found, and arrive together) keeps what it was told, and later homes
   * placed up front reach it by the broadcast to every stored region: telling it again would
   * send the whole placement (hundreds of KiB at 100 000 shards) once more per registration.
   */
  private final Set<ActorRef<Object>> toldOnRegistration = new HashSet<>();
  private final StashBuffer<Object> stash;
  /** This incarnation's term, and these three, are set once the state is loaded. */
  private long term;
  private CoordinatorWrites writes;
  private CoordinatorStoreLink store;
  private CoordinatorHandOffs handOffDriver;

  private ShardCoordinator(CoordinatorSpec spec, ActorContext<Object> context, TimerScheduler<Object> timers,
      StashBuffer<Object> stash) {
    this.spec = spec;
    this.stash = stash;
    this.context = context;
    this.timers = timers;
    this.typeName = spec.typeName();
    this.log = context.getLog();
    this.cluster = Cluster.get(Adapter.toClassic(context.getSystem()));
    this.removalMargin = Duration.ofNanos(cluster.downingProvider().downRemovalMargin().toNanos());
    this.placement = new Placement(spec.strategy(), spec.knownShards(), context.getSelf(),
        (problem, cause) -> log.error("Coordinator of [{}]: {}", typeName, problem, cause));
    this.handOffs = new HandOffTracker(spec.handOffIds());
    this.rounds = new RebalanceRounds(spec.settings().rebalanceInterval());
    this.answers = new CoordinatorAnswers(spec, log, handOffs);
    this.drops = new DropReporter(log, typeName, spec.settings().droppedMessageWarningInterval(),
        Adapter.toClassic(context.getSystem()).eventStream()::publish);
  }

  /** The coordinator, restarted with back-off if it throws ({@link CoordinatorRestarts}). */
  public static Behavior<Object> create(CoordinatorSpec spec) {
    return CoordinatorRestarts.supervised(spec, incarnation(spec));
  }

  private static Behavior<Object> incarnation(CoordinatorSpec spec) {
    return Behaviors.setup(ctx -> Behaviors.withTimers(timers -> Behaviors.withStash(spec.stashCapacity(), stash -> {
      ShardCoordinator coordinator = new ShardCoordinator(spec, ctx, timers, stash);
      org.apache.pekko.cluster.typed.Cluster.get(ctx.getSystem()).subscriptions()
          .tell(Subscribe.create(ctx.getSelf().<MemberUp>narrow(), MemberUp.class));
      ctx.getLog().info("Coordinator of entity type [{}] started on {}; state store: {}; allocation: {}",
          spec.typeName(), coordinator.cluster.selfAddress(), spec.store().describe(), spec.strategy());
      return Behaviors.intercept(() -> new CloseStoreOnStop(spec.store()),
          Behaviors.intercept(
              () -> new InvalidMessageFilter((m, why) -> coordinator.drop(m, "coordinator drops " + why)),
              CoordinatorLoading.behavior(spec, ctx, timers, stash, coordinator.answers.stashFull(),
                  coordinator::onLoaded)));
    })));
  }

  /**
   * What the handlers that settling and active share are told by the behaviour they run in; each
   * hook does nothing unless the phase needs it. An effect that waits for a write keeps the phase in
   * which it was decided.
   */
  private interface Phase {
    /** A region or proxy registered; {@code newRegion} if it is a region the state did not have. */
    default void registered(boolean newRegion) {}

    /** A region is gone; its shards need new homes. */
    default void regionLost() {}

    /** Shards with remembered entities may need homes. */
    default void placeRemembered() {}

    /** A registration, or the end of a region, is stored. */
    default void heardFrom() {}

    /** The behaviour after the message being handled. */
    Behavior<Object> next();

    /** Runs {@code handler}, then {@link #next()}. */
    default Behavior<Object> after(Runnable handler) {
      handler.run();
      return next();
    }
  }

  /**
   * Serves shards with a home; requests for homeless shards wait until settled. It places nothing
   * (it places it all when it is over), and checks whether it is over as it hears from regions.
   */
  private Behavior<Object> settling(Settling waitFor) {
    Phase phase = new Phase() {
      /** An effect decided while settling that runs once settling is over places as active does. */
      @Override
      public void placeRemembered() {
        if (waitFor.done()) {
          ShardCoordinator.this.placeRemembered();
        }
      }

      @Override
      public void heardFrom() {
        waitFor.check(members(), writes.decided().regions().keySet());
      }

      /** Active once settling is over (a check, or the timeout, while handling the message found it so). */
      @Override
      public Behavior<Object> next() {
        return waitFor.done() ? settle(waitFor) : Behaviors.same();
      }
    };
    return common(phase, Behaviors.receive(Object.class)
        .onMessage(GetShardHome.class, get -> {
          if (!refused(get) && !answerKnown(get) && !waitFor.defer(get)) {
            answers.refusedWhileSettling();
          }
          return phase.next();
        })
        .onMessage(ActorIdentity.class, identity -> {
          if (identity.correlationId() instanceof Address address && identity.getActorRef().isEmpty()) {
            waitFor.noRegionOn(address);
            phase.heardFrom();
          }
          return phase.next();
        })
        .onMessageEquals(SettleTimeout.INSTANCE, () -> {
          log.info("Coordinator of [{}]: not every hosting node's region registered within {} ms; allocating anyway",
              typeName, spec.settings().coordinatorSettleTimeout().toMillis());
          waitFor.timedOut();
          return phase.next();
        })
        .onMessage(GetBacklog.class, g -> phase.after(() -> answers.report(g, writes, waitFor.deferredCount())))
        // Settling schedules the first round.
        .onMessageEquals(RebalanceTick.INSTANCE, Behaviors::same));
  }

  /** Places shards and rebalances. */
  private Behavior<Object> active() {
    Phase phase = new Phase() {
      @Override
      public void registered(boolean newRegion) {
        if (newRegion) {
          // A new region usually means shards should move to it: no idle back-off. Told shards
          // are offered to it at once, by the next round (once its registration is acknowledged:
          // it must act on their hand-offs).
          Duration next = rounds.moved();
          scheduleRebalance(tellsHomes() ? Duration.ZERO : next);
        }
        placeAll();
        if (newRegion) {
          spreadUntouched();
        }
        placeRemembered();
      }

      @Override
      public void regionLost() {
        placeRemembered();
        // The dead region's shards get new homes now, not when their next message needs one.
        placeAll();
      }

      @Override
      public void placeRemembered() {
        ShardCoordinator.this.placeRemembered();
      }

      @Override
      public Behavior<Object> next() {
        return Behaviors.same();
      }
    };
    return common(phase, Behaviors.receive(Object.class)
        .onMessage(GetShardHome.class, this::onGetShardHome)
        .onMessage(GetBacklog.class, g -> phase.after(() -> answers.report(g, writes, 0)))
        .onMessageEquals(RebalanceTick.INSTANCE, () -> {
          onRebalanceTick();
          return Behaviors.same();
        })
        .onMessage(MemberUp.class, up -> {
          offerToNodeUp(new NodeUp(up.member().address(), MEMBER_UP_RECHECKS));
          return Behaviors.same();
        })
        .onMessage(NodeUp.class, up -> {
          offerToNodeUp(up);
          return Behaviors.same();
        })
        // Late answers to the announcement, and a settle timeout that fired as the coordinator settled.
        .onMessage(ActorIdentity.class, identity -> Behaviors.same())
        .onMessageEquals(SettleTimeout.INSTANCE, Behaviors::same));
  }

  /** The messages settling and active handle alike, but for what {@code phase} does. */
  private Behavior<Object> common(Phase phase, BehaviorBuilder<Object> builder) {
    return builder
        .onMessage(Register.class, r -> onRegister(phase, r.region(), r.hostedShards(), false))
        .onMessage(RegisterProxy.class, r -> onRegister(phase, r.proxy(), Set.of(), true))
        .onMessage(Terminated.class, t -> onTerminated(phase, t.ref()))
        .onMessage(RemovalMarginPassed.class, m -> {
          inRemovalMargin.remove(m.region());
          return regionGone(phase, m.region());
        })
        .onMessage(CoordinatorHandOffs.Timeout.class, t -> phase.after(() -> handOffDriver.timedOut(t.shardId())))
        .onMessage(ShardStopped.class, stopped -> phase.after(() -> handOffDriver.stopped(stopped)))
        .onMessage(HandOffDeclined.class, declined -> phase.after(() -> handOffDriver.declined(declined)))
        .onMessage(GracefulShutdownReq.class, r -> phase.after(() -> handOffDriver.shutDown(r.region())))
        .onMessage(GetCurrentRegions.class, g -> {
          g.replyTo().tell(new CurrentRegions(Set.copyOf(writes.stored().regions().keySet())));
          return phase.next();
        })
        .onMessage(CoordinatorStoreLink.Reply.class, reply -> {
          if (CoordinatorStoreLink.superseded(reply)) {
            return reload(reply);
          }
          store.onReply(reply).ifPresent(shardIds -> {
            placement.remember(shardIds);
            log.info("Coordinator of [{}]: {} shard(s) may have remembered entities; placing those without a home",
                typeName, shardIds.size());
            phase.placeRemembered();
          });
          return phase.next();
        })
        .onMessageEquals(Stop.INSTANCE, Behaviors::stopped)
        .onAnyMessage(m -> {
          log.debug("Coordinator of [{}] ignores unexpected {}", typeName, m);
          return Behaviors.same();
        })
        .build();
  }

  private Behavior<Object> settle(Settling waitFor) {
    scheduleRebalance(rounds.first());
    timers.cancel(SettleTimeout.INSTANCE);
    waitFor.deferred().forEach(context.getSelf()::tell);
    placeRemembered();
    placeAll();
    return active();
  }

  /**
   * Another coordinator took over since this one loaded (the store refused a write as superseded):
   * what this one holds is stale, so it acts on none of it and loads again, as a new incarnation
   * with nothing but the store's state and a new term.
   */
  private Behavior<Object> reload(CoordinatorStoreLink.Reply refusal) {
    log.warn("Coordinator of [{}] at term {}: {}; it stops acting on what it holds and loads its state again",
        typeName, term, refusal);
    timers.cancelAll();
    ShardCoordinator next = new ShardCoordinator(spec, context, timers, stash);
    return CoordinatorLoading.behavior(spec, context, timers, stash, next.answers.stashFull(), next::onLoaded);
  }

  /** Settling, or active at once if every node that may host shards is known already. */
  private Behavior<Object> onLoaded(LoadedCoordinatorState loaded) {
    CoordinatorState state = loaded.state();
    term = loaded.term();
    writes = new CoordinatorWrites(state);
    store = new CoordinatorStoreLink(spec, context, timers, writes);
    handOffDriver = new CoordinatorHandOffs(spec, context, timers, term, handOffs, placement, writes, store,
        this::view, () -> scheduleRebalance(Duration.ZERO));
    List<CoordinatorEvent> gone = members().leftTheCluster(state);
    log.info("Coordinator of [{}] loaded {} as term {}; forgetting {} region(s)/proxies on nodes that left the "
        + "cluster", typeName, state, term, gone.size());
    Settling waitFor = new Settling(spec.settings().role(), spec.stashCapacity());
    store.persist(gone, () -> {
      // Regions act only on the term they registered at: even when settled at once, each hears
      // of this term before the homes it is told at it.
      announceSelf();
      if (!waitFor.check(members(), writes.decided().regions().keySet())) {
        timers.startSingleTimer(SettleTimeout.INSTANCE, spec.settings().coordinatorSettleTimeout());
      }
    });
    CoordinatorState kept = writes.decided();
    if (spec.rememberedShards().isPresent()) {
      // The shards of regions gone with their nodes must run again for their remembered entities.
      state.regions().keySet().stream().filter(region -> !kept.regions().containsKey(region))
          .forEach(region -> placement.remember(state.regions().get(region)));
      store.readRememberedShards();
    }
    // Those on nodes that are down are reported terminated when they are removed.
    kept.regions().keySet().forEach(region -> context.watchWith(region, new Terminated(region)));
    kept.proxies().forEach(proxy -> context.watchWith(proxy, new Terminated(proxy)));
    return waitFor.done() ? settle(waitFor) : settling(waitFor);
  }

  private Behavior<Object> onRegister(Phase phase, ActorRef<Object> region, Set<String> hostedShards, boolean proxy) {
    CoordinatorState state = writes.decided();
    Registration registration = Registration.decide(state, region, proxy,
        placement.reported(state, region, hostedShards));
    if (registration.ignored()) {
      log.warn("Coordinator of [{}]: {} registered as a region before; ignoring it as a proxy", typeName, region);
      return phase.next();
    }
    if (registration.isNew()) {
      context.watchWith(region, new Terminated(region));
      log.info("Coordinator of [{}]: {} {} registered", typeName, proxy ? "proxy" : "region", region.path());
    }
    if (answers.awaitAck(region) || !registration.events().isEmpty()) {
      store.persist(registration.events(), () -> {
        answers.acked(region);
        region.tell(new RegisterAck(context.getSelf(), term));
        if (tellsHomes() && toldOnRegistration.add(region)) {
          // Behind the acknowledgement, so the region acts on them at this term.
          tellHomes(writes.stored().shards().keySet(), Set.of(region));
        }
        phase.heardFrom();
      });
    }
    phase.registered(registration.isNew() && !proxy);
    return phase.next();
  }

  /**
   * Tells the region on every node that may host shards (of the role) that this coordinator took
   * over, so each registers now instead of when it notices its old coordinator is gone, which can
   * take until that node is removed from the cluster. A region answers with a registration; the
   * {@link Identify} beside it finds the nodes that have no region (any more), which have nothing
   * to report.
   */
  private void announceSelf() {
    RegisterAck hello = new RegisterAck(context.getSelf(), term);
    org.apache.pekko.actor.ActorRef self = Adapter.toClassic(context.getSelf());
    for (Address address : members().mayHostShards(spec.settings().role())) {
      var region = Adapter.toClassic(context).actorSelection(new RootActorPath(address, "/")
          .$div("system").$div(ShardRegion.actorName(typeName)));
      region.tell(hello, org.apache.pekko.actor.ActorRef.noSender());
      region.tell(new Identify(address), self);
    }
  }

  // ---- placement (only once settled)

  private Placement.View view() {
    return new Placement.View(writes.decided(), members(), handOffs.shuttingDown(), handOffs.shards());
  }

  private MemberSnapshot members() {
    return MemberSnapshot.of(cluster);
  }

  /** Places every known shard without a home, in one write; nothing is announced. */
  private void placeAll() {
    List<CoordinatorEvent> events = placement.placeAll(view());
    if (!events.isEmpty()) {
      log.info("Coordinator of [{}]: placing {} shard(s) up front, in one write", typeName, events.size());
      if (tellsHomes()) {
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
   * Whether regions are told the homes placed up front. Not with the in-memory store: a successor
   * on another node rebuilds its state from the shards regions report hosting, so it would not
   * know the homes of shards nobody started, and regions would route by homes it placed anew
   * elsewhere.
   */
  private boolean tellsHomes() {
    return spec.settings().tellUpFrontHomes() && spec.knownShards() > 0
        && !(spec.store() instanceof InMemoryCoordinatorStateStore);
  }

  /**
   * Tells {@code to} the stored homes of {@code shardIds}, in as many messages as one frame each
   * allows; a shard being handed off, or whose new home is not stored yet, is left out (its
   * regions ask for it as before).
   */
  private void tellHomes(Collection<String> shardIds, Collection<ActorRef<Object>> to) {
    Map<String, ActorRef<Object>> homes = new HashMap<>();
    for (String shardId : shardIds) {
      ActorRef<Object> home = handOffs.inProgress(shardId) ? null : writes.settledHome(shardId);
      if (home != null) {
        homes.put(shardId, home);
      }
    }
    List<ShardHomes> messages = ShardHomesChunks.of(homes, term, ShardHomesChunks.DEFAULT_MAX_BYTES);
    to.forEach(receiver -> messages.forEach(receiver::tell));
  }

  /** The regions and proxies the store holds as registered. */
  private Set<ActorRef<Object>> everyone() {
    Set<ActorRef<Object>> everyone = new HashSet<>(writes.stored().regions().keySet());
    everyone.addAll(writes.stored().proxies());
    return everyone;
  }

  /** Moves the unused shards placed up front without hand-offs; true if any moved. */
  private boolean spreadUntouched() {
    List<CoordinatorEvent> events = placement.spreadUntouched(view());
    if (!events.isEmpty()) {
      log.info("Coordinator of [{}]: moving {} shard(s) placed up front and not used yet, without hand-offs, so "
          + "that every region has its share", typeName, events.size() / 2);
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
    if (!tellsHomes()) {
      return false;
    }
    List<String> shardIds = placement.toldToMove(view());
    if (!shardIds.isEmpty()) {
      log.info("Coordinator of [{}]: offering {} shard(s) whose homes were told up front to the regions that joined; "
          + "each moves only if its owner has not started it", typeName, shardIds.size());
      shardIds.forEach(handOffDriver::startIfUnstarted);
    }
    return !shardIds.isEmpty();
  }

  /**
   * A region registered before its node was Up takes shards only once it is: with told homes, the
   * next round starts at once, to offer it its share of the told shards before first messages start
   * them where they are. The cluster state this coordinator reads is updated apart from the event,
   * so it looks again shortly until that state shows the node Up.
   */
  private void offerToNodeUp(NodeUp up) {
    if (!tellsHomes()) {
      return;
    }
    if (members().isUp(up.node())) {
      scheduleRebalance(Duration.ZERO);
    } else if (up.rechecks() > 0) {
      timers.startSingleTimer(up.node(), new NodeUp(up.node(), up.rechecks() - 1), MEMBER_UP_RECHECK);
    }
  }

  /** Places the shards with remembered entities; their homes hear of it and start them. */
  private void placeRemembered() {
    Placement.Remembered placed = placement.placeRemembered(view());
    if (!placed.start().isEmpty()) {
      store.afterDurable(() -> placed.start().forEach(home -> home.region().tell(home.at(term))));
    }
    if (!placed.events().isEmpty()) {
      log.info("Coordinator of [{}]: placing {} shard(s) with remembered entities", typeName, placed.events().size());
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
    return answers.answer(get, writes, store, term);
  }

  /** A shard the type does not accept ({@link ShardIdBounds}) gets no home; the region is told. */
  private boolean refused(GetShardHome get) {
    String shardId = get.shardId();
    boolean hasHome = writes.decided().shards().containsKey(shardId) || handOffs.inProgress(shardId);
    Optional<String> why = spec.shardIdBounds().atCoordinator(shardId, hasHome, writes.decided().shards().size());
    why.ifPresent(reason -> {
      drop(get, "coordinator refuses " + get + ": " + reason);
      get.region().tell(new ShardingProtocol.ShardRefused(shardId, reason));
    });
    return why.isPresent();
  }

  private void drop(Object message, String reason) {
    drops.dropped(message, reason, Adapter.toClassic(context.getSelf()));
  }

  private Behavior<Object> onGetShardHome(GetShardHome get) {
    // The first request once every region is Up places all shards, this one included; and if a
    // region has come Up since the unused shards were placed, they are placed again first, so that
    // a shard starts where it will stay.
    placeAll();
    if (placement.spreadDue(get.shardId(), view())) {
      spreadUntouched();
    }
    if (refused(get)) {
      return Behaviors.same();
    }
    placement.used(get.shardId());
    if (answerKnown(get)) {
      return Behaviors.same();
    }
    ActorRef<Object> chosen = placement.chooseHome(view(), get.shardId(), get.region(), null);
    if (chosen != null) {
      store.persist(List.of(new ShardHomeAllocated(get.shardId(), chosen)), () -> {
        ShardHome answer = new ShardHome(get.shardId(), chosen, term);
        // The new home hears it too, so it starts the shard before the first forwarded message.
        if (!chosen.equals(get.region())) {
          chosen.tell(answer);
        }
        get.region().tell(answer);
      });
    } // else the region asks again on its retry tick
    return Behaviors.same();
  }

  // ---- rebalancing

  private void scheduleRebalance(Duration delay) {
    timers.startSingleTimer(RebalanceTick.INSTANCE, delay);
  }

  private void onRebalanceTick() {
    if (!handOffs.isEmpty()) {
      return; // The round in progress schedules the next one when it ends.
    }
    placeAll();
    if (writes.busy()) {
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
      log.info("Coordinator of [{}]: rebalancing {} shard(s): {}", typeName, moves.size(), moves);
      moves.forEach(handOffDriver::start);
    }
  }

  // ---- regions that are gone

  private Behavior<Object> onTerminated(Phase phase, ActorRef<Object> region) {
    toldOnRegistration.remove(region);
    List<String> hosted = writes.decided().regions().get(region);
    if (inRemovalMargin.contains(region)) {
      return phase.next();
    }
    if (hosted != null) {
      MemberSnapshot members = members();
      Duration wait = RemovalMargin.before(removalMargin, members.isMemberNotDown(members.addressOf(region)),
          hosted.size());
      if (!wait.isZero()) {
        inRemovalMargin.add(region);
        log.info("Coordinator of [{}]: region {} is gone with {} shard(s): its node was removed from the cluster; "
            + "they get new homes in {} ms (the removal margin), when that node has surely stopped them", typeName,
            region.path(), hosted.size(), wait.toMillis());
        timers.startSingleTimer(new RemovalMarginPassed(region), wait);
        return phase.next();
      }
    }
    return regionGone(phase, region);
  }

  /** The region and its shards are gone: they get new homes. */
  private Behavior<Object> regionGone(Phase phase, ActorRef<Object> region) {
    CoordinatorState state = writes.decided();
    List<String> hosted = state.regions().get(region);
    if (hosted != null) {
      log.info("Coordinator of [{}]: region {} is gone with {} shard(s)", typeName, region.path(), hosted.size());
      handOffs.regionGone(region);
      List<String> abandoned = handOffs.ownedBy(region);
      if (spec.rememberedShards().isPresent()) {
        // Their remembered entities must run again without waiting for a message.
        placement.remember(hosted);
      }
      store.persist(List.of(new RegionTerminated(region)), () -> {
        handOffDriver.abandoned(abandoned);
        if (!abandoned.isEmpty()) {
          phase.placeRemembered();
        }
        phase.heardFrom();
      });
      placement.regionLost();
      phase.regionLost();
    } else if (state.proxies().contains(region)) {
      store.persist(List.of(new ProxyTerminated(region)), () -> { });
    }
    return phase.next();
  }
}
