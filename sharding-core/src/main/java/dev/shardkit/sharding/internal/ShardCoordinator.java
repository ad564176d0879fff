package dev.shardkit.sharding.internal;

import dev.shardkit.sharding.internal.ShardingProtocol.BeginHandOff;
import dev.shardkit.sharding.internal.ShardingProtocol.CurrentRegions;
import dev.shardkit.sharding.internal.ShardingProtocol.GetCurrentRegions;
import dev.shardkit.sharding.internal.ShardingProtocol.GetShardHome;
import dev.shardkit.sharding.internal.ShardingProtocol.GracefulShutdownReq;
import dev.shardkit.sharding.internal.ShardingProtocol.Register;
import dev.shardkit.sharding.internal.ShardingProtocol.RegisterAck;
import dev.shardkit.sharding.internal.ShardingProtocol.RegisterProxy;
import dev.shardkit.sharding.internal.ShardingProtocol.ShardHome;
import dev.shardkit.sharding.internal.ShardingProtocol.ShardStopped;
import dev.shardkit.sharding.spi.CoordinatorEvent;
import dev.shardkit.sharding.spi.CoordinatorEvent.ProxyRegistered;
import dev.shardkit.sharding.spi.CoordinatorEvent.ProxyTerminated;
import dev.shardkit.sharding.spi.CoordinatorEvent.RegionRegistered;
import dev.shardkit.sharding.spi.CoordinatorEvent.RegionTerminated;
import dev.shardkit.sharding.spi.CoordinatorEvent.ShardHomeAllocated;
import dev.shardkit.sharding.spi.CoordinatorState;
import dev.shardkit.sharding.spi.CoordinatorStateStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
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
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.apache.pekko.cluster.Cluster;
import org.slf4j.Logger;

/**
 * The singleton that decides where shards live, one per entity type, on the oldest node of the
 * type's role: an actor shell around {@link Placement}, {@link HandOffTracker},
 * {@link CoordinatorWrites}, {@link Settling} and {@link MemberSnapshot}. Every change is decided,
 * stored through the {@link CoordinatorStateStore}, then announced, so a successor that loads the
 * store never gives a shard a second home.
 *
 * <p>Behaviours: <em>loading</em> ({@link CoordinatorLoading}: reading the store; requests wait in
 * a bounded stash) →
 * <em>settling</em> (until every node that may host shards has registered its region or said it
 * has none, or the settle timeout: shards with a home are served, requests for homeless shards
 * wait) → <em>active</em> (places shards, rebalances).
 */
final class ShardCoordinator {

  /** Sent by the singleton manager when the coordinator must hand over. Local only. */
  public enum Stop implements NoSerializationVerificationNeeded { INSTANCE }

  private enum Stored implements NoSerializationVerificationNeeded { INSTANCE }

  private record StoreFailed(List<CoordinatorEvent> events, Throwable cause)
      implements NoSerializationVerificationNeeded {}

  private enum RetryStore implements NoSerializationVerificationNeeded { INSTANCE }

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

  /** The back-off of every retried store operation: the load, the writes, the remembered shards. */
  static final Backoff STORE_BACKOFF = new Backoff(Duration.ofMillis(100), Duration.ofSeconds(10), 2);

  private final ActorContext<Object> context;
  private final TimerScheduler<Object> timers;
  private final CoordinatorSpec spec;
  private final String typeName;
  private final Duration rebalanceInterval;
  private final Logger log;
  private final Cluster cluster;
  /** The downing provider's removal margin ({@link RemovalMargin}). */
  private final Duration removalMargin;
  private final Placement placement;
  private final HandOffTracker handOffs;
  /** Created once the state is loaded. */
  private CoordinatorWrites writes;
  /** While settling, what it waits for; null once settled. */
  private Settling settling;
  /** Rounds that found nothing to move wait longer, up to 8 intervals: a steady cluster costs little. */
  private final Backoff idleRebalance;
  /** Rebalance rounds in a row that found nothing to move. */
  private int idleRounds;
  /** Regions of removed nodes whose shards wait for the removal margin before they move. */
  private final Set<ActorRef<Object>> inRemovalMargin = new HashSet<>();
  // Each store operation backs off on its own failures (the load's are CoordinatorLoading's): a
  // failing read of remembered shards does not slow down the retries of a write.
  private final Backoff.Retries writeRetries = STORE_BACKOFF.retries();
  private final Backoff.Retries rememberedRetries = STORE_BACKOFF.retries();

  private ShardCoordinator(CoordinatorSpec spec, ActorContext<Object> context, TimerScheduler<Object> timers) {
    this.spec = spec;
    this.context = context;
    this.timers = timers;
    this.typeName = spec.typeName();
    this.rebalanceInterval = spec.settings().rebalanceInterval();
    this.idleRebalance = new Backoff(rebalanceInterval.multipliedBy(2), rebalanceInterval.multipliedBy(8), 2);
    this.log = context.getLog();
    this.cluster = Cluster.get(Adapter.toClassic(context.getSystem()));
    this.removalMargin = Duration.ofNanos(cluster.downingProvider().downRemovalMargin().toNanos());
    this.placement = new Placement(spec.strategy(), spec.knownShards(), context.getSelf(),
        (problem, cause) -> log.error("Coordinator of [{}]: {}", typeName, problem, cause));
    this.handOffs = new HandOffTracker(spec.handOffIds());
  }

  public static Behavior<Object> create(CoordinatorSpec spec) {
    return Behaviors.setup(ctx -> Behaviors.withTimers(timers -> Behaviors.withStash(spec.stashCapacity(), stash -> {
      ShardCoordinator coordinator = new ShardCoordinator(spec, ctx, timers);
      ctx.getLog().info("Coordinator of entity type [{}] started on {}; state store: {}; allocation: {}",
          spec.typeName(), coordinator.cluster.selfAddress(), spec.store().describe(), spec.strategy());
      return Behaviors.intercept(() -> new CloseStoreOnStop(spec.store()),
          CoordinatorLoading.behavior(spec, ctx, timers, stash, coordinator::onLoaded));
    })));
  }

  // ---- behaviours

  /** Serves shards with a home; requests for homeless shards wait until settled. */
  private Behavior<Object> settling() {
    return common(Behaviors.receive(Object.class)
        .onMessage(GetShardHome.class, get -> {
          if (!answerKnown(get)) {
            settling.defer(get);
          }
          return next();
        })
        .onMessage(ActorIdentity.class, identity -> {
          if (identity.correlationId() instanceof Address address && identity.getActorRef().isEmpty()) {
            settling.noRegionOn(address);
            checkSettled();
          }
          return next();
        })
        .onMessageEquals(SettleTimeout.INSTANCE, () -> {
          log.info("Coordinator of [{}]: not every hosting node's region registered within {} ms; allocating anyway",
              typeName, spec.settings().coordinatorSettleTimeout().toMillis());
          return settle();
        })
        // Settling schedules the first round.
        .onMessageEquals(RebalanceTick.INSTANCE, Behaviors::same));
  }

  private Behavior<Object> active() {
    return common(Behaviors.receive(Object.class)
        .onMessage(GetShardHome.class, this::onGetShardHome)
        .onMessageEquals(RebalanceTick.INSTANCE, this::onRebalanceTick)
        // Late answers to the announcement, and a settle timeout that fired as the coordinator settled.
        .onMessage(ActorIdentity.class, identity -> Behaviors.same())
        .onMessageEquals(SettleTimeout.INSTANCE, Behaviors::same));
  }

  /** The messages settling and active handle alike. */
  private Behavior<Object> common(BehaviorBuilder<Object> builder) {
    return builder
        .onMessage(Register.class, r -> onRegister(r.region(), r.hostedShards(), false))
        .onMessage(RegisterProxy.class, r -> onRegister(r.proxy(), Set.of(), true))
        .onMessage(Terminated.class, this::onTerminated)
        .onMessage(RemovalMarginPassed.class, m -> {
          inRemovalMargin.remove(m.region());
          return regionGone(m.region());
        })
        .onMessage(HandOffTimeout.class, this::onHandOffTimeout)
        .onMessage(ShardStopped.class, this::onShardStopped)
        .onMessage(GracefulShutdownReq.class, this::onGracefulShutdownReq)
        .onMessage(RememberedShards.class, r -> {
          rememberedRetries.succeeded();
          placement.remember(r.shardIds());
          log.info("Coordinator of [{}]: {} shard(s) may have remembered entities; placing those without a home",
              typeName, r.shardIds().size());
          placeRemembered();
          return next();
        })
        .onMessage(RememberedShardsFailed.class, f -> {
          Duration backoff = rememberedRetries.failed();
          log.warn("Coordinator of [{}] could not read which shards have remembered entities ({}); retrying in {} ms",
              typeName, f.cause(), backoff.toMillis());
          timers.startSingleTimer(ReadRememberedShards.INSTANCE, backoff);
          return next();
        })
        .onMessageEquals(ReadRememberedShards.INSTANCE, () -> {
          readRememberedShards();
          return next();
        })
        .onMessage(GetCurrentRegions.class, g -> {
          g.replyTo().tell(new CurrentRegions(Set.copyOf(writes.stored().regions().keySet())));
          return next();
        })
        .onMessageEquals(Stored.INSTANCE, () -> {
          writeRetries.succeeded();
          writes.written().forEach(Runnable::run);
          flush();
          return next();
        })
        .onMessage(StoreFailed.class, this::onStoreFailed)
        .onMessageEquals(RetryStore.INSTANCE, () -> {
          write(writes.retry());
          return next();
        })
        .onMessageEquals(Stop.INSTANCE, Behaviors::stopped)
        .onAnyMessage(m -> {
          log.debug("Coordinator of [{}] ignores unexpected {}", typeName, m);
          return Behaviors.same();
        })
        .build();
  }

  /** Active once settling is done (a check made while handling the message found it so). */
  private Behavior<Object> next() {
    return settling != null && settling.done() ? settle() : Behaviors.same();
  }

  private Behavior<Object> settle() {
    List<GetShardHome> deferred = settling.deferred();
    settling = null;
    scheduleRebalance(rebalanceInterval);
    timers.cancel(SettleTimeout.INSTANCE);
    deferred.forEach(context.getSelf()::tell);
    placeRemembered();
    placeAll();
    return active();
  }

  /** Whether settling is over, checked now; settled at the end of the message being handled. */
  private boolean checkSettled() {
    return settling == null || settling.check(members(), writes.decided().regions().keySet());
  }

  /** Settling, or active at once if every node that may host shards is known already. */
  private Behavior<Object> onLoaded(CoordinatorState state) {
    writes = new CoordinatorWrites(state);
    List<CoordinatorEvent> gone = members().leftTheCluster(state);
    Set<ActorRef<Object>> known = new HashSet<>(state.regions().keySet());
    known.addAll(state.proxies());
    for (CoordinatorEvent event : gone) {
      if (event instanceof RegionTerminated t) {
        known.remove(t.region());
        if (spec.rememberedShards().isPresent()) {
          placement.remember(state.regions().get(t.region()));
        }
      } else if (event instanceof ProxyTerminated t) {
        known.remove(t.proxy());
      }
    }
    // Those on nodes that are down are reported terminated when they are removed.
    known.forEach(ref -> context.watchWith(ref, new Terminated(ref)));
    log.info("Coordinator of [{}] loaded {}; forgetting {} region(s)/proxies on nodes that left the cluster", typeName,
        state, gone.size());
    if (spec.rememberedShards().isPresent()) {
      readRememberedShards();
    }
    settling = new Settling(spec.settings().role(), spec.stashCapacity());
    persist(gone, () -> {
      if (!checkSettled()) {
        announceSelf();
        timers.startSingleTimer(SettleTimeout.INSTANCE, spec.settings().coordinatorSettleTimeout());
      }
    });
    return settling.done() ? settle() : settling();
  }

  // ---- writes: decided now, stored in batches, made known once stored

  /** Decides {@code events} now and stores them; {@code afterwards} runs once they are stored. */
  private void persist(List<CoordinatorEvent> events, Runnable afterwards) {
    writes.decide(events, afterwards);
    flush();
  }

  /** Runs {@code action} once everything decided so far is stored: at once if it is. */
  private void afterDurable(Runnable action) {
    persist(List.of(), action);
  }

  private void flush() {
    CoordinatorWrites.Next next = writes.next();
    next.run().forEach(Runnable::run);
    if (next.write() != null) {
      write(next.write());
    }
  }

  private void write(CoordinatorWrites.Batch batch) {
    context.pipeToSelf(attempt(() -> spec.store().store(batch.events(), batch.after())),
        (ok, error) -> error == null ? Stored.INSTANCE : new StoreFailed(batch.events(), error));
  }

  private Behavior<Object> onStoreFailed(StoreFailed f) {
    Duration backoff = writeRetries.failed();
    List<CoordinatorEvent> events = f.events();
    log.warn("Coordinator of [{}] could not store {} ({}); retrying in {} ms; known shards keep working", typeName,
        events.size() == 1 ? events.get(0) : events.size() + " changes (" + events.get(0) + ", ...)", f.cause(),
        backoff.toMillis());
    timers.startSingleTimer(RetryStore.INSTANCE, backoff);
    return next();
  }

  /** A call that throws counts as a failed stage, so it is retried like one. */
  static <T> CompletionStage<T> attempt(Supplier<CompletionStage<T>> call) {
    try {
      return call.get();
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  // ---- registration and settling

  private Behavior<Object> onRegister(ActorRef<Object> region, Set<String> hostedShards, boolean proxy) {
    CoordinatorState state = writes.decided();
    if (proxy && state.regions().containsKey(region)) {
      log.warn("Coordinator of [{}]: {} registered as a region before; ignoring its proxy registration", typeName,
          region);
      return next();
    }
    List<CoordinatorEvent> events = new ArrayList<>();
    boolean known = proxy ? state.proxies().contains(region) : state.regions().containsKey(region);
    if (!known) {
      context.watchWith(region, new Terminated(region));
      log.info("Coordinator of [{}]: {} {} registered", typeName, proxy ? "proxy" : "region", region.path());
      events.add(proxy ? new ProxyRegistered(region) : new RegionRegistered(region));
      if (!proxy && settling == null) {
        // A new region usually means shards should move to it: no idle back-off.
        idleRounds = 0;
        scheduleRebalance(rebalanceInterval);
      }
    }
    events.addAll(placement.reported(state, region, hostedShards));
    persist(events, () -> {
      region.tell(new RegisterAck(context.getSelf()));
      checkSettled();
    });
    placeAll();
    if (!known && !proxy) {
      spreadUntouched();
    }
    placeRemembered();
    return next();
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
    List<CoordinatorEvent> events = settling != null ? List.of() : placement.placeAll(view());
    if (!events.isEmpty()) {
      log.info("Coordinator of [{}]: placing {} shard(s) up front, in one write", typeName, events.size());
      persist(events, () -> { });
    }
  }

  /** Moves the unused shards placed up front without hand-offs; true if any moved. */
  private boolean spreadUntouched() {
    List<CoordinatorEvent> events = settling != null ? List.of() : placement.spreadUntouched(view());
    if (!events.isEmpty()) {
      log.info("Coordinator of [{}]: moving {} shard(s) placed up front and not used yet, without hand-offs, so "
          + "that every region has its share", typeName, events.size() / 2);
      persist(events, () -> { });
    }
    return !events.isEmpty();
  }

  /** Places the shards with remembered entities; their homes hear of it and start them. */
  private void placeRemembered() {
    if (settling != null) {
      return;
    }
    Placement.Remembered placed = placement.placeRemembered(view());
    if (!placed.start().isEmpty()) {
      afterDurable(() -> placed.start().forEach(home -> home.region().tell(home)));
    }
    if (!placed.events().isEmpty()) {
      log.info("Coordinator of [{}]: placing {} shard(s) with remembered entities", typeName, placed.events().size());
      persist(placed.events(), () -> placed.announce().forEach(this::announce));
    }
  }

  private void readRememberedShards() {
    context.pipeToSelf(attempt(spec.rememberedShards().orElseThrow()),
        (ids, error) -> error == null ? new RememberedShards(ids) : new RememberedShardsFailed(error));
  }

  /**
   * Answers a request for a shard that is being handed off (once it has its new home) or has a
   * home (once that is stored); false if the shard has neither.
   */
  private boolean answerKnown(GetShardHome get) {
    if (handOffs.inProgress(get.shardId())) {
      handOffs.waitForHome(get.shardId(), get.region());
      return true;
    }
    ActorRef<Object> home = writes.decided().shards().get(get.shardId());
    if (home != null) {
      afterDurable(() -> get.region().tell(new ShardHome(get.shardId(), home)));
    }
    return home != null;
  }

  private Behavior<Object> onGetShardHome(GetShardHome get) {
    // The first request once every region is Up places all shards, this one included; and if a
    // region has come Up since the unused shards were placed, they are placed again first, so that
    // a shard starts where it will stay.
    placeAll();
    if (placement.spreadDue(get.shardId(), view())) {
      spreadUntouched();
    }
    placement.used(get.shardId());
    if (answerKnown(get)) {
      return Behaviors.same();
    }
    ActorRef<Object> chosen = placement.chooseHome(view(), get.shardId(), get.region(), null);
    if (chosen != null) {
      persist(List.of(new ShardHomeAllocated(get.shardId(), chosen)), () -> {
        ShardHome answer = new ShardHome(get.shardId(), chosen);
        // The new home hears it too, so it starts the shard before the first forwarded message.
        if (!chosen.equals(get.region())) {
          chosen.tell(answer);
        }
        get.region().tell(answer);
      });
    } // else the region asks again on its retry tick
    return Behaviors.same();
  }

  // ---- rebalancing and hand-off

  private void scheduleRebalance(Duration delay) {
    timers.startSingleTimer(RebalanceTick.INSTANCE, delay);
  }

  private Behavior<Object> onRebalanceTick() {
    if (!handOffs.isEmpty()) {
      return Behaviors.same(); // The round in progress schedules the next one when it ends.
    }
    placeAll();
    if (writes.busy()) {
      // Plan moves on stored homes only: look again once the writes in flight are done.
      scheduleRebalance(Duration.ofMillis(100));
      return Behaviors.same();
    }
    List<String> moves = placement.rebalance(view());
    if (moves.isEmpty()) {
      scheduleRebalance(idleRebalance.delay(++idleRounds));
      return Behaviors.same();
    }
    idleRounds = 0;
    if (spreadUntouched()) {
      // Unused shards moved without hand-offs; the next round sees whether used ones must move.
      scheduleRebalance(rebalanceInterval);
      return Behaviors.same();
    }
    log.info("Coordinator of [{}]: rebalancing {} shard(s): {}", typeName, moves.size(), moves);
    moves.forEach(this::startHandOff);
    return Behaviors.same();
  }

  /** Tells every region and proxy that the shard is leaving its home; the owner drives the rest. */
  private void startHandOff(String shardId) {
    // A shard whose home is still being stored is left for the next round (or the region's next
    // shutdown request): the regions may not know that home yet.
    ActorRef<Object> owner = writes.settledHome(shardId);
    if (owner == null || handOffs.inProgress(shardId)) {
      return;
    }
    placement.used(shardId);
    int id = handOffs.start(shardId, owner);
    Set<ActorRef<Object>> everyone = everyone();
    BeginHandOff begin = new BeginHandOff(shardId, owner, everyone, id);
    everyone.forEach(r -> r.tell(begin));
    timers.startSingleTimer(new HandOffTimeout(shardId), spec.settings().handOffTimeout());
  }

  private Behavior<Object> onShardStopped(ShardStopped stopped) {
    String shardId = stopped.shardId();
    ActorRef<Object> home = writes.decided().shards().get(shardId);
    // A hand-off this coordinator did not start (its predecessor did) still completes here, as
    // long as the shard's recorded home is the region reporting it.
    if (!handOffs.accepts(shardId, stopped.region(), stopped.handOffId(), home)) {
      log.debug("Coordinator of [{}]: ignoring {}, the hand-off in progress is {}", typeName, stopped,
          handOffs.get(shardId));
      return next();
    }
    timers.cancel(new HandOffTimeout(shardId));
    Set<ActorRef<Object>> waiting = handOffs.waitingFor(shardId);
    Placement.Moved moved = placement.afterHandOff(view(), shardId, stopped.region(),
        waiting.isEmpty() ? stopped.region() : waiting.iterator().next());
    ActorRef<Object> next = moved.next();
    log.debug("Coordinator of [{}]: shard [{}] stopped at {}; next home {}", typeName, shardId,
        stopped.region().path(), next == null ? "none yet" : next.path());
    persist(moved.events(), () -> {
      Set<ActorRef<Object>> asked = handOffs.ended(shardId);
      if (next != null) {
        announce(new ShardHome(shardId, next));
      } else {
        askAgain(shardId, asked);
      }
      roundEnded();
    });
    return next();
  }

  private Behavior<Object> onHandOffTimeout(HandOffTimeout timeout) {
    String shardId = timeout.shardId();
    HandOffTracker.InProgress gaveUp = handOffs.giveUp(shardId);
    if (gaveUp != null) {
      log.warn("Coordinator of [{}]: the hand-off of shard [{}] from {} did not finish within {} ms (a region did "
          + "not answer, or entities did not stop); the shard stays where it is", typeName, shardId,
          gaveUp.owner().path(), spec.settings().handOffTimeout().toMillis());
      if (gaveUp.owner().equals(writes.decided().shards().get(shardId))) {
        announce(new ShardHome(shardId, gaveUp.owner()));
      }
      roundEnded();
    }
    return next();
  }

  /** The requests that waited for a hand-off to end are handled as if they came now. */
  private void askAgain(String shardId, Set<ActorRef<Object>> asked) {
    asked.forEach(r -> context.getSelf().tell(new GetShardHome(shardId, r)));
  }

  /** Every region and proxy. */
  private Set<ActorRef<Object>> everyone() {
    Set<ActorRef<Object>> everyone = new HashSet<>(writes.decided().regions().keySet());
    everyone.addAll(writes.decided().proxies());
    return everyone;
  }

  /** Every region and proxy hears a shard's home: they all stopped routing to it for the move. */
  private void announce(ShardHome home) {
    everyone().forEach(r -> r.tell(home));
  }

  /** When the last move of a round has ended, the next round starts at once. */
  private void roundEnded() {
    if (handOffs.isEmpty()) {
      scheduleRebalance(Duration.ZERO);
    }
  }

  private Behavior<Object> onGracefulShutdownReq(GracefulShutdownReq request) {
    ActorRef<Object> region = request.region();
    List<String> shards = writes.decided().regions().get(region);
    if (shards != null) {
      if (handOffs.shutDown(region)) {
        log.info("Coordinator of [{}]: region {} is shutting down; handing off its {} shard(s)", typeName,
            region.path(), shards.size());
      }
      shards.forEach(this::startHandOff);
    }
    return next();
  }

  // ---- regions that are gone

  private Behavior<Object> onTerminated(Terminated t) {
    List<String> hosted = writes.decided().regions().get(t.ref());
    if (inRemovalMargin.contains(t.ref())) {
      return next();
    }
    if (hosted != null) {
      MemberSnapshot members = members();
      Duration wait = RemovalMargin.before(removalMargin, members.isMemberNotDown(members.addressOf(t.ref())),
          hosted.size());
      if (!wait.isZero()) {
        inRemovalMargin.add(t.ref());
        log.info("Coordinator of [{}]: region {} is gone with {} shard(s): its node was removed from the cluster; "
            + "they get new homes in {} ms (the removal margin), when that node has surely stopped them", typeName,
            t.ref().path(), hosted.size(), wait.toMillis());
        timers.startSingleTimer(new RemovalMarginPassed(t.ref()), wait);
        return next();
      }
    }
    return regionGone(t.ref());
  }

  /** The region and its shards are gone: they get new homes. */
  private Behavior<Object> regionGone(ActorRef<Object> region) {
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
      persist(List.of(new RegionTerminated(region)), () -> {
        // Hand-offs from the dead region are over: its shards have no home and get one on demand.
        for (String shardId : abandoned) {
          timers.cancel(new HandOffTimeout(shardId));
          askAgain(shardId, handOffs.ended(shardId));
        }
        if (!abandoned.isEmpty()) {
          roundEnded();
          placeRemembered();
        }
        checkSettled();
      });
      placeRemembered();
      // The dead region's shards get new homes now, not when their next message needs one.
      placement.regionLost();
      placeAll();
    } else if (state.proxies().contains(region)) {
      persist(List.of(new ProxyTerminated(region)), () -> { });
    }
    return next();
  }
}
