package dev.shardkit.sharding.internal;

import dev.shardkit.sharding.internal.RegionRequests.GracefulShutdown;
import dev.shardkit.sharding.internal.RegionMessages.CoordinatorTerminated;
import dev.shardkit.sharding.internal.RegionMessages.LinksFlushedCheck;
import dev.shardkit.sharding.internal.RegionMessages.QuietCheck;
import dev.shardkit.sharding.internal.RegionMessages.RegionTerminated;
import dev.shardkit.sharding.internal.RegionMessages.RestartShard;
import dev.shardkit.sharding.internal.RegionMessages.RetryTick;
import dev.shardkit.sharding.internal.RegionMessages.ShardTerminated;
import dev.shardkit.sharding.internal.RegionMessages.SweepEarlyMarkers;
import dev.shardkit.sharding.internal.RoutingTable.Local;
import dev.shardkit.sharding.internal.RoutingTable.Remote;
import dev.shardkit.sharding.internal.ShardingProtocol.BeginHandOff;
import dev.shardkit.sharding.internal.ShardingProtocol.Deliver;
import dev.shardkit.sharding.internal.ShardingProtocol.DeliveryBatch;
import dev.shardkit.sharding.internal.ShardingProtocol.HandOffMarker;
import dev.shardkit.sharding.internal.ShardingProtocol.RegisterAck;
import dev.shardkit.sharding.internal.ShardingProtocol.ShardHome;
import dev.shardkit.sharding.internal.ShardingProtocol.ShardHomes;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.apache.pekko.Done;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.BehaviorBuilder;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.apache.pekko.cluster.ClusterEvent.MemberEvent;
import org.apache.pekko.cluster.ClusterEvent.ReachabilityEvent;
import org.apache.pekko.cluster.UniqueAddress;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Subscribe;
import org.slf4j.Logger;

/**
 * One node's region of one entity type: routes each message to the shard's home, holds messages
 * for shards whose home is not known yet and asks the coordinator for it, and hosts the shards
 * the coordinator places here. A proxy-only region routes and holds but never hosts. The
 * decisions are made by the units it wires messages to: {@link EnvelopeExtraction},
 * {@link RegionRouting} (its table, and what is held), {@link RegionRegistration} (with which
 * coordinator, and what it is told), {@link ShardHomeAnswer} (whether to believe the
 * coordinator's answer), {@link OwnerHandOffs} (the owner's side of moving a shard away),
 * {@link RegionLinks} (remote delivery), {@link NodeEvents} (which nodes' shards are held),
 * {@link LimitShares} (the active-entity limit), {@link ShardStops} (a shard's termination),
 * {@link QuietWaits}, {@link RegionWatch} and {@link RegionReport}. Its own messages to itself are
 * {@link RegionMessages}; what the rest of the node asks of it, {@link RegionRequests}.
 *
 * <p>States: <em>registering</em> (no coordinator yet: known homes keep working, everything else
 * is held) → <em>active</em> (registered: unknown homes are asked for), back to registering when
 * its coordinator goes away; and from either, <em>shutting down</em> (its shards are handed off,
 * registering again meanwhile if need be; it stops once it hosts and holds nothing and its links
 * have delivered everything). The region stops at once, in any state, when this node is out of
 * the cluster.
 */
final class ShardRegion {

  private final ActorContext<Object> context;
  private final TimerScheduler<Object> timers;
  private final RegionSpec spec;
  private final ActorRef<Object> self;
  private final Logger log;
  private final DropReporter drops;
  private final RegionRouting routing;
  /**
   * Shards the coordinator placed in this region up front, told in {@link ShardHomes} and not
   * started yet: the first message for one starts it here without asking. Forgotten when the
   * shard's home is told again or its hand-off begins.
   */
  private final Set<String> placedHere = new HashSet<>();
  private final OwnerHandOffs<ActorRef<Object>, ActorRef<Object>> handOffs = new OwnerHandOffs<>();
  private final RegionLinks links;
  private final QuietWaits quietWaits;
  private final RegionWatch<ActorRef<Object>> regions = new RegionWatch<>();
  private final LimitShares<ActorRef<Object>> limitShares;
  /** Who asked for a graceful shutdown: told when the region stops. */
  private final List<ActorRef<Object>> shutdownWaiters = new ArrayList<>();
  private final RegionRegistration registration;
  private final ShardIdBounds shardIds;

  private ShardRegion(ActorContext<Object> context, TimerScheduler<Object> timers, RegionSpec spec) {
    this.context = context;
    this.timers = timers;
    this.spec = spec;
    this.self = context.getSelf();
    this.log = context.getLog();
    this.drops = new DropReporter(log, spec.typeName(), spec.settings().droppedMessageWarningInterval(),
        Adapter.toClassic(context.getSystem()).eventStream()::publish);
    spec.handle().useDrops(drops);
    this.routing = new RegionRouting(spec.settings().bufferSize());
    this.links = RegionLinks.of(context, spec, drops);
    // A caller preempted mid-send: look again shortly rather than block the region.
    this.quietWaits = new QuietWaits(() -> timers.startSingleTimer(QuietCheck.INSTANCE, Duration.ofMillis(1)));
    this.limitShares = new LimitShares<>(spec.settings().passivationActiveEntityLimit(),
        id -> routing.table().knownHome(id) instanceof Local l ? Optional.of(l.shard()) : Optional.empty(),
        (shard, share) -> shard.tell(new ShardProtocol.EntityLimit(share)));
    this.registration = new RegionRegistration(self, spec.coordinator(), spec.proxyOnly(), this::hostedShards,
        ActorRef::tell, coordinator -> context.watchWith(coordinator, new CoordinatorTerminated(coordinator)),
        spec.status());
    timers.startTimerWithFixedDelay(RetryTick.INSTANCE, spec.settings().retryInterval());
    timers.startTimerWithFixedDelay(SweepEarlyMarkers.INSTANCE, spec.settings().handOffTimeout());
    this.shardIds = ShardIdBounds.of(spec.typeName(), spec.extractor(), spec.settings().maxShards());
  }

  public static Behavior<Object> create(RegionSpec spec) {
    return Behaviors.setup(ctx -> Behaviors.withTimers(timers -> {
      ShardRegion region = new ShardRegion(ctx, timers, spec);
      Cluster.get(ctx.getSystem()).subscriptions()
          .tell(Subscribe.create(ctx.getSelf().<ReachabilityEvent>narrow(), ReachabilityEvent.class));
      Cluster.get(ctx.getSystem()).subscriptions()
          .tell(Subscribe.create(ctx.getSelf().<MemberEvent>narrow(), MemberEvent.class));
      NodeGate.get(ctx.getSystem()).keeper().tell(new GateKeeper.Subscribe(ctx.getSelf()));
      region.registration.register();
      return HandlerFailures.around(
          Behaviors.intercept(() -> new InvalidMessageFilter((m, why) -> region.drop(m, "dropping " + why)),
              region.registering()),
          HandlerFailures.Then.RESUME, region::handlerFailed);
    }));
  }

  /**
   * One handler threw: the region keeps its table, its shards and what it holds, and counts only
   * the message that failed as dropped (a slow-path message no longer counts as pending).
   */
  private void handlerFailed(ActorContext<Object> ctx, Object failed, Exception cause) {
    log.error("Entity type [{}]: region failed handling {} ({}); it drops that message and keeps routing",
        spec.typeName(), HandlerFailures.describe(failed), cause.toString(), cause);
    Object dropped = failed instanceof Deliver d ? d.message() : failed;
    if (failed instanceof RegionHandle.ViaRegion via) {
      spec.handle().routed(via);
      dropped = via.deliver().message();
    }
    drop(dropped, "the region failed handling it (" + cause + ")");
  }

  /** The name of a type's region actor, under {@code /system} on every node. */
  public static String actorName(String typeName) {
    return "shardkit-region-" + typeName;
  }

  // ---- states

  private Behavior<Object> registering() {
    return running(Behaviors.receive(Object.class)
        .onMessage(RegisterAck.class, ack -> onRegisterAck(ack) ? active() : Behaviors.same()));
  }

  private Behavior<Object> active() {
    return running(Behaviors.receive(Object.class)
        .onMessage(RegisterAck.class, then(this::onRegisterAck, Behaviors::same))
        .onMessage(CoordinatorTerminated.class, t -> onCoordinatorTerminated(t) ? registering() : Behaviors.same()));
  }

  /** Registering or active: not shutting down. */
  private Behavior<Object> running(BehaviorBuilder<Object> state) {
    return common(state
        .onMessage(ShardTerminated.class, then(t -> onShardTerminated(t.shardId(), true), Behaviors::same))
        .onMessage(GracefulShutdown.class, shutdown -> {
          shutdownWaiters.add(shutdown.replyTo());
          log.info("Entity type [{}]: region shutting down; handing off {} shard(s)", spec.typeName(),
              routing.table().localShards().size());
          registration.askToHandOffAll();
          return stopIfDone(shuttingDown());
        }), Behaviors::same);
  }

  /**
   * Shutting down: registered, it asks its coordinator again every retry to move its shards;
   * registering (its coordinator went away), it registers again first (see
   * {@link RegionRegistration#retry}). A shard with remembered
   * entities that stops unexpectedly is not started again. After every message it looks whether
   * it is done.
   */
  private Behavior<Object> shuttingDown() {
    Supplier<Behavior<Object>> next = () -> stopIfDone(Behaviors.same());
    return common(Behaviors.receive(Object.class)
        .onMessage(RegisterAck.class, then(this::onRegisterAck, next))
        .onMessage(CoordinatorTerminated.class, then(this::onCoordinatorTerminated, next))
        .onMessage(ShardTerminated.class, then(t -> onShardTerminated(t.shardId(), false), next))
        .onMessage(GracefulShutdown.class, then(shutdown -> shutdownWaiters.add(shutdown.replyTo()), next)), next);
  }

  /** Stops once it may (see {@link ShutdownProgress}). */
  private Behavior<Object> stopIfDone(Behavior<Object> otherwise) {
    ShutdownProgress progress = ShutdownProgress.of(routing.table().localShards().size(), !handOffs.isEmpty(),
        routing.held(), links.pending());
    if (progress == ShutdownProgress.LINKS_DRAINING && !timers.isTimerActive(LinksFlushedCheck.INSTANCE)) {
      // What this node sent to others is on its way: look again until it has been acknowledged.
      timers.startSingleTimer(LinksFlushedCheck.INSTANCE, Duration.ofMillis(20));
    }
    if (progress != ShutdownProgress.DONE) {
      return otherwise;
    }
    shutdownWaiters.forEach(w -> w.tell(Done.getInstance()));
    log.info("Entity type [{}]: region shut down gracefully", spec.typeName());
    return Behaviors.stopped();
  }

  /** What every state does alike; {@code next} gives the behavior after each of these messages. */
  private Behavior<Object> common(BehaviorBuilder<Object> state, Supplier<Behavior<Object>> next) {
    return state
        .onMessageEquals(RetryTick.INSTANCE, () -> {
          drops.summarize();
          registration.retry(routing::awaitingHome);
          return next.get();
        })
        .onMessage(RegionHandle.ViaRegion.class, then(v -> {
          route(v.deliver(), false);
          spec.handle().routed(v);
        }, next))
        .onMessage(Deliver.class, then(this::onDeliver, next))
        .onMessage(DeliveryBatch.class, then(this::onDeliveryBatch, next))
        .onMessage(RegionLinks.InboundLinkGone.class, then(g -> links.inboundGone(g.link()), next))
        .onMessage(DeliveryLink.Closed.class, then(this::onLinkClosed, next))
        .onMessageEquals(LinksFlushedCheck.INSTANCE, next::get)
        .onMessage(ShardHome.class, then(this::onShardHome, next))
        .onMessage(ShardHomes.class, then(this::onShardHomes, next))
        .onMessage(ShardingProtocol.ShardRefused.class, then(this::onShardRefused, next))
        .onMessage(RegionTerminated.class, then(t -> onRegionTerminated(t.region()), next))
        .onMessage(ReachabilityEvent.class, then(this::onNodeEvent, next))
        .onMessage(MemberEvent.class, then(this::onNodeEvent, next))
        .onMessageEquals(GateKeeper.GateChanged.DOWN, this::stopOutOfCluster)
        .onMessage(GateKeeper.GateChanged.class, then(this::onGateChanged, next))
        .onMessage(RestartShard.class, then(r -> {
          if (routing.table().knownHome(r.shardId()) == null && !handOffs.isHandingOff(r.shardId())) {
            registration.askHome(r.shardId());
          }
        }, next))
        .onMessage(ShardProtocol.EntitiesLive.class, then(live -> limitShares.reported(live.shardId(), live.live(), live.limitsHeard()), next))
        .onMessage(RegionRequests.GetLocalState.class, then(get -> context.spawnAnonymous(
            ShardStateCollector.localState(routing.table().localShards().values(), get,
                routing.held() + links.pending(), drops.total(), spec.settings())), next))
        .onMessage(ShardingProtocol.GetRegionStats.class, then(get -> context.spawnAnonymous(
            ShardStateCollector.regionStats(routing.table().localShards().values(), get)), next))
        .onMessage(BeginHandOff.class, then(this::onBeginHandOff, next))
        .onMessage(HandOffMarker.class, then(this::onHandOffMarker, next))
        .onMessage(QuietCheck.class, then(q -> quietWaits.recheck(), next))
        .onMessage(SweepEarlyMarkers.class, then(sweep -> handOffs.sweepEarly(), next))
        // An old coordinator's termination, unexpected protocol messages.
        .onMessage(CoordinatorTerminated.class, t -> next.get())
        .onMessage(ShardingProtocol.class, then(m -> log.debug("Entity type [{}]: region ignores unexpected {}",
            spec.typeName(), m), next))
        .onAnyMessage(then(this::onEnvelope, next))
        .build();
  }

  private static <T> org.apache.pekko.japi.function.Function<T, Behavior<Object>> then(Consumer<T> handler,
      Supplier<Behavior<Object>> next) {
    return message -> {
      handler.accept(message);
      return next.get();
    };
  }

  // ---- registration

  /** The shards living here: those being handed off still do until their entities stop. */
  private Set<String> hostedShards() {
    Set<String> hosted = new HashSet<>(routing.table().localShards().keySet());
    hosted.addAll(handOffs.shardIds());
    return hosted;
  }

  /** @return whether the region is registered after it (an older coordinator's is refused) */
  private boolean onRegisterAck(RegisterAck ack) {
    CoordinatorFence.Ack outcome = registration.acknowledged(ack.coordinator(), ack.term());
    if (outcome == CoordinatorFence.Ack.REFUSED) {
      refusedAtTerm(ack, ack.term());
      return registration.registered();
    }
    if (outcome == CoordinatorFence.Ack.NEW) {
      log.debug("Entity type [{}]: registered with coordinator {} at term {}", spec.typeName(), ack.coordinator(),
          ack.term());
    }
    routing.heldShards().forEach(registration::askHome);
    return true;
  }

  /**
   * Refuses (and logs once per term) what a coordinator other than the current one, or at another
   * term, told this region: acting on it could start a second copy of a shard.
   */
  private void refusedAtTerm(ShardingProtocol message, long term) {
    if (registration.refusedAt(message, term)) {
      log.warn("Entity type [{}]: ignoring {} at coordinator term {}: this region acts only on its current "
          + "coordinator {} at term {} (further messages at term {} are ignored without a warning)", spec.typeName(),
          message, term, registration.coordinator(), registration.term(), term);
    }
  }

  /** @return true if it was this region's coordinator: the region registers with its successor */
  private boolean onCoordinatorTerminated(CoordinatorTerminated terminated) {
    if (!registration.terminated(terminated.coordinator())) {
      return false;
    }
    log.info("Entity type [{}]: coordinator {} is gone; registering with its successor", spec.typeName(),
        terminated.coordinator());
    return true;
  }

  // ---- routing

  private void onEnvelope(Object envelope) {
    EnvelopeExtraction.Result result = EnvelopeExtraction.extract(spec.typeName(), spec.extractor(), envelope);
    if (result instanceof EnvelopeExtraction.Extracted extracted) {
      route(extracted.deliver(), false);
    } else if (result instanceof EnvelopeExtraction.Rejected rejected) {
      drop(envelope, rejected.reason());
    }
  }

  /** A message from another region (or an ask): admitted under that region's limit already. */
  private void onDeliver(Deliver deliver) {
    if (!spec.typeName().equals(deliver.typeName())) {
      drop(deliver.message(), "a message for entity [" + deliver.entityId() + "] of another entity type ["
          + deliver.typeName() + "] reached this region");
      return;
    }
    declineMoveIfUnstarted(deliver.shardId());
    // From a region whose marker has not come yet: it belongs to the incarnation still running.
    handOffs.stillRunning(deliver.shardId()).ifPresentOrElse(shard -> shard.tell(deliver), () -> route(deliver, true));
  }

  /**
   * A message from another region for a shard in a move if unstarted: that region sent it before
   * it stopped routing here, so it must be delivered here, ahead of what that region holds for the
   * new home. The shard starts here and stays (what this node's callers held for it goes first),
   * and the coordinator hears that the move is declined. This node's own callers' messages do not
   * decline it: they are held as in any hand-off and follow the shard to its new home.
   */
  private void declineMoveIfUnstarted(String shardId) {
    OptionalInt declinable = handOffs.declinable(shardId);
    if (declinable.isPresent()) {
      handOffs.cancel(shardId);
      startShard(shardId);
      reroute(routing.release(shardId));
      publish();
      registration.handOffDeclined(shardId, declinable.getAsInt());
    }
  }

  /**
   * Routes a message by this region's table.
   *
   * @param admitted the message was already held or bounded by shardkit (it comes out of this
   *     region's buffers, or from another region): a full outbox takes it anyway, where a new
   *     message would be refused
   */
  private void route(Deliver deliver, boolean admitted) {
    Optional<String> invalid = shardIds.atRegion(deliver.shardId(), deliver.entityId());
    if (invalid.isPresent()) {
      drop(deliver.message(), invalid.get());
      return;
    }
    RegionRouting.Route route = routing.route(deliver);
    if (route instanceof RegionRouting.ToShard toShard) {
      toShard.shard().tell(deliver);
    } else if (route instanceof RegionRouting.ToRegion toRegion) {
      Remote home = toRegion.home();
      Optional<String> problem = spec.handle().serializability().problem(deliver.message().getClass());
      if (problem.isPresent()) {
        log.error("Entity type [{}]: cannot send a message of class [{}] to entity [{}] on {}: {}", spec.typeName(),
            deliver.message().getClass().getName(), deliver.entityId(), home.region().path().address(), problem.get());
        drop(deliver.message(), "message of class " + deliver.message().getClass().getName() + " for entity ["
            + deliver.entityId() + "] is not serializable");
      } else if (admitted) {
        home.outbox().offerAlways(deliver);
      } else if (!home.outbox().offer(deliver)) {
        spec.handle().refused(deliver, home.outbox());
      }
    } else if (route instanceof RegionRouting.Held h && h.askForHome()) {
      if (placedHere.remove(deliver.shardId()) && !handOffs.isHandingOff(deliver.shardId())) {
        startShard(deliver.shardId());
        reroute(routing.release(deliver.shardId()));
        publish();
      } else {
        registration.askHome(deliver.shardId());
      }
    } else if (route instanceof RegionRouting.Refused refused) {
      drop(deliver.message(), refused.reason());
    }
  }

  /** Routes again what was released (before the table is published: held messages go first). */
  private void reroute(List<Deliver> released) {
    // A loop, not forEach: a region taking homes placed up front calls this for every shard, and
    // nearly always with nothing held.
    for (Deliver d : released) {
      route(d, true);
    }
  }

  private void publish() {
    spec.handle().publish(routing.table());
  }

  private void drop(Object message, String reason) {
    drops.dropped(message, reason, Adapter.toClassic(self));
  }

  private void onShardHome(ShardHome home) {
    if (!registration.actsOn(home.term())) {
      refusedAtTerm(home, home.term());
      return;
    }
    String shardId = home.shardId();
    placedHere.remove(shardId);
    ShardHomeAnswer.Decision decision = ShardHomeAnswer.decide(regions.isDead(home.region()),
        routing.closingFor(shardId), handOffs.isHandingOff(shardId), home.region().equals(self), spec.proxyOnly(),
        routing.table().knownHome(shardId) instanceof Local);
    if (decision instanceof ShardHomeAnswer.Ignore ignore) {
      log.debug("Entity type [{}]: ignoring {}: {}", spec.typeName(), home, ignore.why());
      return;
    }
    if (decision instanceof ShardHomeAnswer.CannotHost) {
      log.error("Entity type [{}]: the coordinator placed shard [{}] in a proxy-only region; ignoring it",
          spec.typeName(), shardId);
      return;
    }
    if (decision instanceof ShardHomeAnswer.HostHere host) {
      if (host.resume()) {
        resumeHandedOff(shardId);
      }
      if (!(routing.table().knownHome(shardId) instanceof Local)) {
        startShard(shardId);
      }
    } else if (decision instanceof ShardHomeAnswer.HostedHereAlready) {
      log.error("Entity type [{}]: the coordinator says shard [{}] lives in {}, but it is hosted here; keeping it "
          + "here", spec.typeName(), shardId, home.region());
    } else {
      watch(home.region());
      routing.home(shardId, new Remote(home.region(), links.outboxFor(home.region())));
    }
    reroute(routing.release(shardId));
    publish();
  }

  /**
   * Homes placed up front, told all at once: the region learns those of shards that live in other
   * regions and whose home it does not know yet, so their first messages go straight there. It
   * leaves out what a single {@link ShardHome} would not be believed for now (a gone region, a
   * shard being handed off). Shards placed here are noted and start with their first message,
   * without asking the coordinator.
   */
  private void onShardHomes(ShardHomes told) {
    if (!registration.actsOn(told.term())) {
      refusedAtTerm(told, told.term());
      return;
    }
    Map<String, RoutingTable.Home> learned = new HashMap<>();
    // One home value per region, shared by its shards: a placement tells thousands per region.
    Map<ActorRef<Object>, Remote> remotes = new HashMap<>();
    int placedHereBefore = placedHere.size();
    told.homes().forEach((shardId, region) -> {
      if (routing.table().knownHome(shardId) != null || handOffs.isHandingOff(shardId)) {
        return;
      }
      if (region.equals(self)) {
        if (spec.proxyOnly()) {
          return;
        }
        if (routing.holds(shardId)) {
          // Wanted already (say, while it moved here if unstarted): it starts now.
          startShard(shardId);
          reroute(routing.release(shardId));
        } else {
          placedHere.add(shardId);
        }
      } else if (!regions.isDead(region)) {
        learned.put(shardId, remotes.computeIfAbsent(region, r -> new Remote(r, links.outboxFor(r))));
      }
    });
    remotes.keySet().forEach(this::watch);
    routing.homes(learned);
    learned.keySet().forEach(shardId -> reroute(routing.release(shardId)));
    publish();
    // What the benchmarks read to see when every region knows the homes placed up front.
    log.debug("Region {} was told {} home(s) placed up front at term {}: it learned {} in other regions and {} here",
        self.path().toStringWithAddress(context.getSystem().address()), told.homes().size(), told.term(),
        learned.size(), placedHere.size() - placedHereBefore);
  }

  /** The coordinator will not place the shard: what is held for it is dropped, not asked for again. */
  private void onShardRefused(ShardingProtocol.ShardRefused refused) {
    if (routing.table().knownHome(refused.shardId()) == null) {
      routing.release(refused.shardId()).forEach(d -> drop(d.message(), "the coordinator refused shard ["
          + refused.shardId() + "] of entity [" + d.entityId() + "]: " + refused.reason()));
    }
  }

  /**
   * The coordinator gave the shard's hand-off up: the shard stays and takes messages again. If it
   * has stopped meanwhile, its termination is seen as unexpected and it starts again.
   */
  private void resumeHandedOff(String shardId) {
    OwnerHandOffs.Cancelled<ActorRef<Object>> cancelled = handOffs.cancel(shardId);
    cancelled.shard().ifPresent(shard -> {
      if (cancelled.stopping()) {
        shard.tell(ShardProtocol.CancelHandOff.INSTANCE);
      }
      routing.home(shardId, new Local(shard));
    });
  }

  private void startShard(String shardId) {
    ActorRef<Object> shard = context.spawn(Shard.create(spec, shardId, self, limitShares.started(shardId), drops),
        URLEncoder.encode(shardId, StandardCharsets.UTF_8));
    context.watchWith(shard, new ShardTerminated(shardId));
    routing.home(shardId, new Local(shard));
  }

  private void watch(ActorRef<Object> region) {
    if (regions.watch(region)) {
      context.watchWith(region, new RegionTerminated(region));
    }
  }

  private void onShardTerminated(String shardId, boolean restartRemembered) {
    limitShares.stopped(shardId);
    // Every entity has stopped (a shard stops after its children): the next home may start it.
    ShardStops.Outcome<ActorRef<Object>> outcome = ShardStops.decide(handOffs.shardTerminated(shardId),
        routing.table().knownHome(shardId) instanceof Local, spec.rememberEntities().isPresent() && restartRemembered,
        spec.settings().entityRestartBackoff());
    if (outcome instanceof ShardStops.HandedOff<ActorRef<Object>> handedOff) {
      perform(handedOff.stopped());
    } else if (outcome instanceof ShardStops.Unexpected<?> unexpected) {
      routing.noHome(shardId);
      publish();
      log.warn("Entity type [{}]: shard [{}] stopped unexpectedly; it starts again {}", spec.typeName(), shardId,
          unexpected.when());
      RestartShard restart = new RestartShard(shardId);
      unexpected.restartAfter().ifPresent(backoff -> timers.startSingleTimer(restart, restart, backoff));
    }
  }

  // ---- hand-off

  private void onBeginHandOff(BeginHandOff begin) {
    if (!registration.actsOn(begin.term())) {
      refusedAtTerm(begin, begin.term());
      return;
    }
    String shardId = begin.shardId();
    if (begin.ifUnstarted() && begin.owner().equals(self) && startedHere(shardId)) {
      registration.handOffDeclined(shardId, begin.handOffId());
      return;
    }
    placedHere.remove(shardId);
    RoutingTable.Home current = routing.table().knownHome(shardId);
    routing.noHome(shardId);
    publish();
    if (!begin.owner().equals(self)) {
      // The marker goes into this node's link to the owner, behind everything handed to it before.
      HandOffMarker marker = new HandOffMarker(shardId, self, begin.handOffId());
      quietWaits.runWhenQuiet(() -> spec.handle().shortcutsQuiet(shardId), () -> {
        if (!regions.isDead(begin.owner())) {
          links.outboxFor(begin.owner()).offerAlways(marker);
        }
      });
    } else if (!handOffs.isHandingOff(shardId)) {
      handOffs.begin(shardId, begin.handOffId(), current instanceof Local l ? l.shard() : null, begin.regions(), self,
          begin.ifUnstarted()).forEach(this::watch);
      quietWaits.runWhenQuiet(() -> spec.handle().shortcutsQuiet(shardId),
          () -> handOffs.ownRouteClosed(shardId, begin.handOffId()).ifPresent(this::perform));
    }
    if (routing.holds(shardId)) {
      registration.askHome(shardId);
    }
  }

  /**
   * Whether a move if unstarted must leave the shard here: it runs here, messages for it are held
   * here (it is wanted), or it is being moved already.
   */
  private boolean startedHere(String shardId) {
    return routing.table().knownHome(shardId) instanceof Local || routing.holds(shardId)
        || handOffs.isHandingOff(shardId);
  }

  private void onHandOffMarker(HandOffMarker marker) {
    log.debug("Entity type [{}]: hand-off marker for shard [{}] from {}", spec.typeName(), marker.shardId(),
        marker.region().path());
    handOffs.marker(marker.shardId(), marker.handOffId(), marker.region()).ifPresent(this::perform);
  }

  private void perform(OwnerHandOffs.Step<ActorRef<Object>> step) {
    if (step instanceof OwnerHandOffs.StopShard<ActorRef<Object>> stop) {
      log.debug("Entity type [{}]: every route to shard [{}] is closed; stopping its entities", spec.typeName(),
          stop.shardId());
      stop.shard().tell(ShardProtocol.HandOff.INSTANCE);
    } else if (step instanceof OwnerHandOffs.Stopped<ActorRef<Object>> stopped) {
      if (routing.holds(stopped.shardId())) {
        registration.askHome(stopped.shardId());
      }
      registration.shardStopped(stopped.shardId(), stopped.handOffId());
      log.debug("Entity type [{}]: shard [{}] handed off", spec.typeName(), stopped.shardId());
    }
  }

  // ---- remote delivery and membership

  /** A batch from another region's link: delivered if it is the next in that link's sequence. */
  private void onDeliveryBatch(DeliveryBatch batch) {
    links.receive(batch, routing.table().localHeld(), item -> {
      try {
        if (item instanceof Deliver d) {
          onDeliver(d);
        } else if (item instanceof HandOffMarker m) {
          onHandOffMarker(m);
        } else if (item instanceof ShardingProtocol.UndeliverableItem u) {
          drop(u, "a message for entity [" + u.entityId() + "] from " + batch.link().path().address()
              + " could not be read: " + u.reason());
        }
      } catch (Exception e) {
        // The batch counts as delivered once taken: an item that fails costs only itself, not the rest.
        handlerFailed(context, item, e);
      }
    });
  }

  private void onRegionTerminated(ActorRef<Object> region) {
    regions.terminated(region);
    handOffs.regionGone(region).forEach(this::perform);
    if (!links.hasLinkTo(region)) {
      forgetRegion(region);
      return;
    }
    // Hold its shards' messages until the link has handed back what it still has: that is older
    // than anything sent from now on. The link closes once no caller can still be sending into it.
    routing.closing(region);
    publish();
    quietWaits.runWhenQuiet(spec.handle()::allShortcutsQuiet, () -> links.close(region, self));
  }

  /** What the closed link to a region that is gone hands back goes first to the shards' next homes. */
  private void onLinkClosed(DeliveryLink.Closed closed) {
    List<Deliver> back = links.closed(closed);
    int shards = routing.handBack(back);
    if (shards > 0) {
      log.info("Entity type [{}]: {} message(s) for {} shard(s) of region {} go to their next homes",
          spec.typeName(), back.size(), shards, closed.destination());
    }
    forgetRegion(closed.destination());
  }

  private void forgetRegion(ActorRef<Object> region) {
    int lost = routing.forget(region);
    publish();
    // Messages held while its node was unreachable (or its link closed) wait for the shards' next homes.
    routing.awaitingHome().forEach(registration::askHome);
    log.info("Entity type [{}]: region {} is gone; {} shard(s) will get a new home when next used",
        spec.typeName(), region, lost);
  }

  /**
   * A node became unreachable or was downed (messages for shards there are held from now on), or
   * is reachable again and was not downed (what was held goes on, before the shortcut may send
   * anything newer); see {@link NodeEvents}.
   */
  private void onNodeEvent(Object event) {
    UniqueAddress selfNode = Cluster.get(context.getSystem()).selfMember().uniqueAddress();
    NodeEvents.of(event, selfNode).ifPresent(e -> routing.nodeChanged(e.node(), e.held()).ifPresent(c -> {
      if (c.reachable()) {
        links.resendNow(e.node());
        reroute(c.released());
      }
      publish();
      c.report().ifPresent(report -> log.info("Entity type [{}]: node {} is {}", spec.typeName(), e.node(), report));
    }));
  }

  /**
   * This node's delivery gate closed (the node may have been downed while it was not looking:
   * messages for the shards hosted here are held from now on) or opened (what was held goes on,
   * before the shortcut may send anything newer).
   */
  private void onGateChanged(GateKeeper.GateChanged change) {
    routing.gate(change == GateKeeper.GateChanged.CLOSED).ifPresent(released -> {
      if (change == GateKeeper.GateChanged.OPENED) {
        links.askForRefused();
      }
      reroute(released);
      publish();
    });
  }

  /** This node is out of the cluster: the region stops, and its shards with it, without hand-off. */
  private Behavior<Object> stopOutOfCluster() {
    log.warn("Entity type [{}]: this node is no longer a member of the cluster; the region stops with its {} "
        + "shard(s), without hand-off, and drops the {} message(s) it holds", spec.typeName(),
        routing.table().localShards().size(), routing.held());
    routing.releaseAll().forEach(d -> drop(d.message(), "this node is no longer a member of the cluster, dropping "
        + "a message for shard [" + d.shardId() + "]"));
    shutdownWaiters.forEach(w -> w.tell(Done.getInstance()));
    return Behaviors.stopped();
  }
}
