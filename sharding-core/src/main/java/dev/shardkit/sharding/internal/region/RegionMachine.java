package dev.shardkit.sharding.internal.region;

import dev.shardkit.sharding.MessageExtractor;
import dev.shardkit.sharding.internal.InternalApi;
import dev.shardkit.sharding.internal.delivery.DeliveryLink;
import dev.shardkit.sharding.internal.delivery.Outbox;
import dev.shardkit.sharding.internal.delivery.RegionLinks;
import dev.shardkit.sharding.internal.gate.GateKeeper;
import dev.shardkit.sharding.internal.machine.EffectBuffer;
import dev.shardkit.sharding.internal.machine.HandlerFailures;
import dev.shardkit.sharding.internal.machine.Machine;
import dev.shardkit.sharding.internal.machine.TimerTable;
import dev.shardkit.sharding.internal.membership.ClusterChange;
import dev.shardkit.sharding.internal.membership.MembersFold;
import dev.shardkit.sharding.internal.region.RoutingTable.Local;
import dev.shardkit.sharding.internal.region.RoutingTable.Remote;
import dev.shardkit.sharding.internal.shard.ShardProtocol;
import dev.shardkit.sharding.internal.util.ShardIdBounds;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.BeginHandOff;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.Deliver;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.DeliveryBatch;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.HandOffMarker;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.RegisterAck;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.ShardHome;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.ShardHomes;
import dev.shardkit.sharding.internal.wire.ShardingProtocol;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.cluster.UniqueAddress;

/**
 * The decisions of one node's region of one entity type, as a deterministic machine: where each
 * message goes (a shard hosted here, another region's link, or held until its shard's home is
 * known, its node is reachable or this node's gate opens), with which coordinator the region is
 * registered and what it believes of it ({@link CoordinatorFence}, {@link AheadOfTerm},
 * {@link HomeBelief}), which shards start here (placed here up front, told, or declining a move if
 * unstarted), both sides of a hand-off (the marker behind a non-owner's shortcut; the owner's
 * routes closing, then its shard stopping: {@link OwnerHandOffs}), the links to other regions
 * (started on first use, told to resend when their node is back, closed when their region is gone,
 * flushed before a graceful shutdown ends) and the sequences of those that send here
 * ({@link RegionLinks}), which nodes' shards are held ({@link NodeEvents}), the active-entity limit's
 * shares ({@link LimitShares}), a shard's termination ({@link ShardStops}) and when a graceful
 * shutdown is done ({@link ShutdownProgress}).
 *
 * <p>States: <em>registering</em> (no coordinator yet: known homes keep working, everything else
 * is held) → <em>registered</em> (unknown homes are asked for), back to registering when its
 * coordinator goes away; and from either, <em>shutting down</em> (its shards are handed off,
 * registering again meanwhile if need be; it stops once it hosts and holds nothing and its links
 * have had everything acknowledged). It stops at once, in any state, when this node's gate is down.
 *
 * <p>Some actions must wait until no caller can still send by an older routing table: a hand-off
 * marker that must land behind every shortcut message for its shard, the owner's own route, the
 * closing of a link to a gone region. They run in the order they were asked for, each once a
 * {@link RegionEffect.CheckQuiet} was answered quiet; while one is not, a recheck timer runs.
 *
 * <p>The per-message path stays outside: the machine publishes the table ({@link RegionHandle} reads
 * it), hands messages to outboxes, and asks whether the callers' stripes are quiet, all as effects.
 * A started shard comes back as {@link RegionInput.ShardStarted} before any other input; until then
 * its messages are held here.
 *
 * <p>Not thread-safe; deterministic: it reads no clock, actor context or randomness, and iterates
 * no collection in a per-JVM order.
 */
@InternalApi
public final class RegionMachine implements Machine<RegionInput, RegionEffect> {

  /** An action waiting until no caller can still send by an older table to {@code shardId} (null: to any shard). */
  private record QuietAction(long token, String shardId, Runnable action) {}

  /** A link's flushes while the region shuts down: it is flushed once it answered one asked after the last offer. */
  private static final class Flush {
    boolean offeredSince = true;
    int asked;
    int answered;
    int proving = Integer.MAX_VALUE;
  }

  private static final Comparator<ActorRef<Object>> BY_PATH = Comparator.comparing(r -> r.path().toString());

  private final RegionConfig cfg;
  private final String typeName;
  private final ActorRef<Object> self;
  /** The region's path with its address, as the benchmarks read it in the up-front line. */
  private final String selfName;
  private final UniqueAddress selfNode;
  /** This node's view of the members, to tell a home on a node it does not know of ({@link #isGone}). */
  private final MembersFold members;
  private final MessageExtractor<Object, Object> extractor;
  private final ShardIdBounds shardIds;
  private final Function<Class<?>, Optional<String>> serializability;

  private final EffectBuffer<RegionEffect> effects = new EffectBuffer<>();
  /** Tell effects reused from input to input: one per message routed to a shard, none allocated. */
  private final ArrayList<RegionEffect.Tell> tells = new ArrayList<>();
  private int tellsUsed;
  /** Routed effects reused likewise: one per message of the callers' slow path. */
  private final ArrayList<RegionEffect.Routed> routeds = new ArrayList<>();
  private int routedUsed;
  private final TimerTable<RegionTimer> timers = new TimerTable<>();

  private final RegionRouting routing;
  /**
   * Shards the coordinator placed in this region up front, told in {@link ShardHomes} and not
   * started yet: the first message for one starts it here without asking. Forgotten when the
   * shard's home is told again or its hand-off begins.
   */
  private final Set<String> placedHere = new HashSet<>();
  /** Shards told to start, whose {@link RegionInput.ShardStarted} has not come yet: their messages are held. */
  private final Map<String, Integer> starting = new HashMap<>();
  private final OwnerHandOffs<ActorRef<Object>, ActorRef<Object>> handOffs = new OwnerHandOffs<>();
  private final RegionLinks links;
  private final RegionWatch<ActorRef<Object>> regions = new RegionWatch<>();
  private final LimitShares<ActorRef<Object>> limitShares;
  private final RegionRegistration registration;
  private final ArrayDeque<QuietAction> quietWaits = new ArrayDeque<>();
  private long quietTokens;
  /** Who asked for a graceful shutdown: told when the region stops. */
  private final List<ActorRef<Object>> shutdownWaiters = new ArrayList<>();
  private final Map<Outbox, Flush> flushes = new LinkedHashMap<>();
  private boolean shuttingDown;
  /** When each hand-off of a shard hosted here began, in the machine's nanoseconds: its duration is reported. */
  private final Map<String, Long> handOffsBegan = new HashMap<>();
  /** The time of the input being handled, in nanoseconds. */
  private long now;
  /** A {@link RegionEffect.CheckLinksIdle} is on its way: its answer decides whether the region stops. */
  private boolean checkingLinksIdle;
  private boolean stopped;
  private RoutingTable published;

  /**
   * @param self the region's actor, as other actors know it
   * @param selfName the region's path with its node's address
   * @param coordinatorProxy reaches whichever coordinator is current (the singleton proxy)
   * @param selfNode this node's incarnation
   * @param serializability a problem serializing messages of a class, if any
   */
  RegionMachine(RegionConfig cfg, ActorRef<Object> self, String selfName, ActorRef<Object> coordinatorProxy,
      UniqueAddress selfNode, MessageExtractor<Object, Object> extractor, ShardIdBounds shardIds,
      Function<Class<?>, Optional<String>> serializability) {
    this.cfg = cfg;
    this.typeName = cfg.typeName();
    this.self = self;
    this.selfName = selfName;
    this.selfNode = selfNode;
    this.members = new MembersFold(selfNode.address());
    this.extractor = extractor;
    this.shardIds = shardIds;
    this.serializability = serializability;
    this.routing = new RegionRouting(cfg.bufferSize());
    this.links = new RegionLinks(typeName, this::report, cfg.bufferSize(), cfg.redeliverUnacknowledged(),
        outbox -> effects.add(new RegionEffect.StartLink(outbox)),
        link -> effects.add(new RegionEffect.Watch(link, new RegionInput.InboundLinkGone(link))), this::tell,
        (outbox, message) -> effects.add(new RegionEffect.ToLink(outbox, message)));
    this.limitShares = new LimitShares<>(cfg.activeEntityLimit(),
        id -> routing.table().knownHome(id) instanceof Local l ? Optional.of(l.shard()) : Optional.empty(),
        (shard, share) -> tell(shard, new ShardProtocol.EntityLimit(share)));
    this.registration = new RegionRegistration(self, coordinatorProxy, cfg.proxyOnly(), this::hostedShards,
        this::tell, coordinator -> effects.add(new RegionEffect.Watch(coordinator,
            new RegionInput.CoordinatorTerminated(coordinator))),
        new RegionRegistration.Status() {
          @Override
          public void registered(String coordinator, long term) {
            effects.add(new RegionEffect.Registered(coordinator, term));
          }

          @Override
          public void registering() {
            effects.add(new RegionEffect.Registering());
          }
        });
  }

  @Override
  public List<RegionEffect> handle(RegionInput input, long now) {
    this.now = now;
    effects.clear();
    tellsUsed = 0;
    routedUsed = 0;
    if (stopped) {
      return effects.view();
    }
    try {
      dispatch(input);
    } catch (Exception e) {
      // What was decided before the failure stands; the region drops only the message that failed.
      handlerFailed(failedMessage(input), e);
    }
    if (shuttingDown && !stopped) {
      stopIfDone();
    }
    return effects.view();
  }

  // ---- queries, for tests and a simulation

  RoutingTable table() {
    return routing.table();
  }

  int held() {
    return routing.held();
  }

  boolean isShuttingDown() {
    return shuttingDown;
  }

  boolean isStopped() {
    return stopped;
  }

  // ----

  private void dispatch(RegionInput input) {
    if (input instanceof RegionHandle.ViaRegion via) {
      route(via.deliver(), false);
      routed(via);
    } else if (input instanceof RegionInput.Batch b) {
      onDeliveryBatch(b.batch(), b.gateOpen());
    } else if (input instanceof RegionInput.FromRegion d) {
      onDeliver(d.deliver());
    } else if (input instanceof RegionInput.Envelope e) {
      onEnvelope(e.envelope());
    } else if (input instanceof RegionInput.Protocol p) {
      onProtocol(p.message());
    } else if (input instanceof RegionInput.QuietChecked q) {
      onQuietChecked(q.token(), q.quiet());
    } else if (input instanceof RegionInput.ShardStarted s) {
      onShardStarted(s.shardId(), s.shard());
    } else if (input instanceof RegionInput.TimerFired t) {
      onTimer(t.key(), t.generation());
    } else if (input instanceof RegionInput.Start) {
      registration.register();
      effects.add(new RegionEffect.StartTimer(RegionTimer.RetryTick.INSTANCE,
          timers.start(RegionTimer.RetryTick.INSTANCE), cfg.retryInterval(), true));
      effects.add(new RegionEffect.StartTimer(RegionTimer.SweepEarlyMarkers.INSTANCE,
          timers.start(RegionTimer.SweepEarlyMarkers.INSTANCE), cfg.handOffTimeout(), true));
    } else if (input instanceof RegionInput.CoordinatorTerminated t) {
      onCoordinatorTerminated(t.coordinator());
    } else if (input instanceof RegionInput.RegionTerminated t) {
      onRegionTerminated(t.region());
    } else if (input instanceof RegionInput.InboundLinkGone g) {
      links.inboundGone(g.link());
    } else if (input instanceof RegionInput.ShardTerminated t) {
      // Shutting down, a shard with remembered entities that stops unexpectedly is not started again.
      onShardTerminated(t.shardId(), !shuttingDown);
    } else if (input instanceof RegionInput.LinkClosed c) {
      onLinkClosed(c.closed());
    } else if (input instanceof RegionInput.LinkFlushed f) {
      onLinkFlushed(f.destination());
    } else if (input instanceof RegionInput.LinkConfirmed c) {
      onLinkConfirmed(c.destination());
    } else if (input instanceof RegionInput.LinksIdle idle) {
      onLinksIdle(idle.idle());
    } else if (input instanceof RegionInput.Membership m) {
      members.apply(m.change());
      onNodeEvent(m.change());
    } else if (input instanceof RegionInput.Gate g) {
      if (g.change() == GateKeeper.GateChanged.DOWN) {
        stopOutOfCluster();
      } else {
        onGateChanged(g.change());
      }
    } else if (input instanceof RegionInput.EntitiesLive l) {
      limitShares.reported(l.live().shardId(), l.live().live(), l.live().limitsHeard());
    } else if (input instanceof RegionInput.GracefulShutdown s) {
      shutdownWaiters.add(s.replyTo());
      if (!shuttingDown) {
        shuttingDown = true;
        report(RegionNotice.shuttingDown(typeName, routing.table().localShards().size()));
        registration.askToHandOffAll();
      }
    } else if (input instanceof RegionInput.GetLocalState g) {
      effects.add(new RegionEffect.CollectLocalState(List.copyOf(routing.table().localShards().values()),
          List.copyOf(links.outboxes()), routing.held(), g.get()));
    } else if (input instanceof RegionInput.HandlerFailed f) {
      handlerFailed(f.failed(), f.cause());
    } else {
      throw new IllegalArgumentException("not an input of the region machine: " + input);
    }
  }

  private void onProtocol(ShardingProtocol message) {
    if (message instanceof ShardHome home) {
      onShardHome(home);
    } else if (message instanceof HandOffMarker marker) {
      onHandOffMarker(marker);
    } else if (message instanceof BeginHandOff begin) {
      onBeginHandOff(begin);
    } else if (message instanceof RegisterAck ack) {
      onRegisterAck(ack);
    } else if (message instanceof ShardHomes homes) {
      onShardHomes(homes);
    } else if (message instanceof ShardingProtocol.ShardRefused refused) {
      onShardRefused(refused);
    } else if (message instanceof ShardingProtocol.GetRegionStats get) {
      effects.add(new RegionEffect.CollectStats(List.copyOf(routing.table().localShards().values()), get));
    } else {
      report(RegionNotice.ignoresUnexpected(typeName, message));
    }
  }

  private void onTimer(RegionTimer key, long generation) {
    if (key instanceof RegionTimer.RetryTick) {
      if (timers.tick(key, generation)) {
        effects.add(RegionEffect.SummarizeDrops.INSTANCE);
        registration.retry(routing::awaitingHome);
      }
    } else if (key instanceof RegionTimer.SweepEarlyMarkers) {
      if (timers.tick(key, generation)) {
        handOffs.sweepEarly();
      }
    } else if (key instanceof RegionTimer.QuietRecheck) {
      if (timers.fired(key, generation) && !quietWaits.isEmpty()) {
        checkQuiet(quietWaits.peek());
      }
    } else if (key instanceof RegionTimer.RestartShard r) {
      if (timers.fired(key, generation) && routing.table().knownHome(r.shardId()) == null
          && !handOffs.isHandingOff(r.shardId()) && !starting.containsKey(r.shardId())) {
        registration.askHome(r.shardId());
      }
    }
  }

  /**
   * One handler failed: the region keeps its table, its shards and what it holds, and counts only
   * the message that failed as dropped (a slow-path message no longer counts as pending).
   */
  private void handlerFailed(Object failed, Exception cause) {
    report(RegionNotice.handlerFailed(typeName, HandlerFailures.describe(failed), cause));
    Object dropped = failed instanceof Deliver d ? d.message() : failed;
    if (failed instanceof RegionHandle.ViaRegion via) {
      routed(via);
      dropped = via.deliver().message();
    }
    drop(dropped, "the region failed handling it (" + cause + ")");
  }

  /** The message an input stands for, as the actor received it. */
  private static Object failedMessage(RegionInput input) {
    return input instanceof RegionInput.FromRegion d ? d.deliver()
        : input instanceof RegionInput.Envelope e ? e.envelope()
        : input instanceof RegionInput.Protocol p ? p.message()
        : input instanceof RegionInput.Batch b ? b.batch()
        : input;
  }

  // ---- effects

  private void tell(ActorRef<Object> to, Object message) {
    RegionEffect.Tell tell;
    if (tellsUsed < tells.size()) {
      tell = tells.get(tellsUsed).set(to, message);
    } else {
      tell = new RegionEffect.Tell(to, message);
      tells.add(tell);
    }
    tellsUsed++;
    effects.add(tell);
  }

  private void routed(RegionHandle.ViaRegion via) {
    RegionEffect.Routed effect;
    if (routedUsed < routeds.size()) {
      effect = routeds.get(routedUsed).set(via);
    } else {
      effect = new RegionEffect.Routed(via);
      routeds.add(effect);
    }
    routedUsed++;
    effects.add(effect);
  }

  private void report(RegionNotice notice) {
    effects.add(new RegionEffect.Report(notice));
  }

  private void drop(Object message, String reason) {
    effects.add(new RegionEffect.Drop(message, reason));
  }

  /** Publishes the table if it changed since it was last published. */
  private void publish() {
    RoutingTable table = routing.table();
    if (table != published) {
      published = table;
      effects.add(new RegionEffect.Publish(table));
    }
  }

  private void offerAlways(Outbox outbox, Object item) {
    offered(outbox);
    effects.add(new RegionEffect.OfferAlways(outbox, item));
  }

  private void offered(Outbox outbox) {
    if (shuttingDown) {
      Flush flush = flushes.get(outbox);
      if (flush != null) {
        flush.offeredSince = true;
      }
    }
  }

  // ---- registration

  /** The shards living here: those being handed off still do until their entities stop. */
  private Set<String> hostedShards() {
    Set<String> hosted = new HashSet<>(routing.table().localShards().keySet());
    hosted.addAll(handOffs.shardIds());
    return hosted;
  }

  private void onRegisterAck(RegisterAck ack) {
    RegionRegistration.Acknowledged acknowledged = registration.acknowledged(ack.coordinator(), ack.term());
    if (acknowledged.outcome() == CoordinatorFence.Ack.REFUSED) {
      refusedAtTerm(ack, ack.term());
      return;
    }
    if (acknowledged.outcome() == CoordinatorFence.Ack.NEW) {
      report(RegionNotice.registered(typeName, ack.coordinator(), ack.term()));
    }
    // Told before the acknowledgement, so acted on before whatever the mailbox holds behind it (a
    // hand-off of the same shard, say: told again through the mailbox, an older home would undo it).
    acknowledged.toldAhead().forEach(this::onProtocol);
    routing.heldShards().forEach(registration::askHome);
  }

  /**
   * Refuses (and reports once per term) what a coordinator other than the current one, or at
   * another term, told this region: acting on it could start a second copy of a shard.
   */
  private void refusedAtTerm(ShardingProtocol message, long term) {
    if (registration.refusedAt(message, term)) {
      report(RegionNotice.refusedAtTerm(typeName, message, term, registration.coordinator(), registration.term()));
    }
  }

  private void onCoordinatorTerminated(ActorRef<Object> coordinator) {
    if (registration.terminated(coordinator)) {
      report(RegionNotice.coordinatorGone(typeName, coordinator));
    }
  }

  // ---- routing

  private void onEnvelope(Object envelope) {
    EnvelopeExtraction.Result result = EnvelopeExtraction.extract(typeName, extractor, envelope);
    if (result instanceof EnvelopeExtraction.Extracted extracted) {
      route(extracted.deliver(), false);
    } else if (result instanceof EnvelopeExtraction.Rejected rejected) {
      drop(envelope, rejected.reason());
    }
  }

  /** A message from another region (or an ask): admitted under that region's limit already. */
  private void onDeliver(Deliver deliver) {
    if (!typeName.equals(deliver.typeName())) {
      drop(deliver.message(), "a message for entity [" + deliver.entityId() + "] of another entity type ["
          + deliver.typeName() + "] reached this region");
      return;
    }
    declineMoveIfUnstarted(deliver.shardId());
    // From a region whose marker has not come yet: it belongs to the incarnation still running,
    // or to one started here for it if none runs.
    Optional<ActorRef<Object>> running = handOffs.stillRunning(deliver.shardId());
    if (running.isPresent()) {
      tell(running.get(), deliver);
    } else {
      startForHandOff(deliver.shardId());
      route(deliver, true);
    }
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
      handOffsBegan.remove(shardId);
      startShard(shardId);
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
      tell(toShard.shard(), deliver);
    } else if (route instanceof RegionRouting.ToRegion toRegion) {
      Remote home = toRegion.home();
      Optional<String> problem = serializability.apply(deliver.message().getClass());
      if (problem.isPresent()) {
        report(RegionNotice.notSerializable(typeName, deliver.message().getClass().getName(), deliver.entityId(),
            home.region().path().address(), problem.get()));
        drop(deliver.message(), "message of class " + deliver.message().getClass().getName() + " for entity ["
            + deliver.entityId() + "] is not serializable");
      } else if (admitted) {
        offerAlways(home.outbox(), deliver);
      } else {
        offered(home.outbox());
        effects.add(new RegionEffect.Offer(home.outbox(), deliver));
      }
    } else if (route instanceof RegionRouting.Held h && h.askForHome() && !starting.containsKey(deliver.shardId())) {
      if (placedHere.remove(deliver.shardId()) && !handOffs.isHandingOff(deliver.shardId())) {
        startShard(deliver.shardId());
      } else {
        registration.askHome(deliver.shardId());
      }
    } else if (route instanceof RegionRouting.Refused refused) {
      drop(deliver.message(), refused.reason());
    }
  }

  /** Routes again what was released (before the table is published: held messages go first). */
  /** Sends what is held for {@code shardId} to the home it has now. */
  private void release(String shardId) {
    List<Deliver> held = routing.release(shardId);
    if (!held.isEmpty()) {
      report(RegionNotice.released(typeName, shardId, held.size()));
    }
    reroute(held);
  }

  private void reroute(List<Deliver> released) {
    // A loop, not forEach: a region taking homes placed up front calls this for every shard, and
    // nearly always with nothing held.
    for (int i = 0, n = released.size(); i < n; i++) {
      route(released.get(i), true);
    }
  }

  private void onShardHome(ShardHome home) {
    if (!registration.actsOn(home.term())) {
      refusedAtTerm(home, home.term());
      return;
    }
    String shardId = home.shardId();
    placedHere.remove(shardId);
    HomeBelief.Decision decision = HomeBelief.decide(HomeBelief.Told.ANSWER,
        routing.table().knownHome(shardId) != null, isGone(home.region()),
        routing.closingFor(shardId) || oldHomeMayHandBack(shardId, home.region()),
        handOffs.isHandingOff(shardId), home.region().equals(self), cfg.proxyOnly(), hostedHere(shardId));
    if (decision instanceof HomeBelief.Ignore ignore) {
      report(RegionNotice.ignoringHome(typeName, home, ignore.why()));
      return;
    }
    if (decision instanceof HomeBelief.CannotHost) {
      report(RegionNotice.cannotHost(typeName, shardId));
      return;
    }
    if (decision instanceof HomeBelief.HostHere host) {
      if (home.confirmStart()) {
        registration.shardStarted(shardId);
      }
      if (host.resume()) {
        resumeHandedOff(shardId);
      }
      if (!hostedHere(shardId)) {
        startShard(shardId);
        return;
      }
    } else if (decision instanceof HomeBelief.HostedHereAlready) {
      report(RegionNotice.hostedHereAlready(typeName, shardId, home.region()));
    } else {
      watch(home.region());
      routing.home(shardId, new Remote(home.region(), outboxTo(home.region())));
    }
    release(shardId);
    publish();
  }

  /**
   * Whether {@code region} has been seen terminated, or is on a node this region's view has no
   * member at. A node that joined after another was downed may never see it as a member, so it
   * would never hold its shards' messages the way the others do; a link opened there would send
   * into nothing until remote death watch gives up, and then hand its messages back after newer
   * ones had gone to the shard's next home (seed 1883121965477712675). The answer is not
   * believed; the region asks again, and the coordinator names the next home once it too has seen
   * the node removed.
   */
  private boolean isGone(ActorRef<Object> region) {
    Address node = region.path().address();
    // A reference on this node carries no host, and this node is a member whatever its view says.
    return regions.isDead(region) || node.hasGlobalScope() && !members.mayBeMemberAt(node);
  }

  /**
   * Whether a link to a region other than {@code named} may still hand back older messages for the
   * shard ({@link RegionRouting#mayHandBack}): a coordinator that saw that region's node removed
   * before this region did names the next home, but those messages must reach it first. The
   * answer is not believed; the shard is asked for again once that link has closed.
   */
  private boolean oldHomeMayHandBack(String shardId, ActorRef<Object> named) {
    return routing.mayHandBack(shardId, named, links::hasLinkTo);
  }

  /** Runs here, or is starting here. */
  private boolean hostedHere(String shardId) {
    return routing.table().knownHome(shardId) instanceof Local || starting.containsKey(shardId);
  }

  /**
   * Homes placed up front, told all at once: the region learns those it believes by the same rule
   * as a single answer ({@link HomeBelief}), so their first messages go straight there. Shards
   * placed here are noted and start with their first message, without asking the coordinator; those
   * already wanted (messages are held for them) start now.
   */
  private void onShardHomes(ShardHomes told) {
    if (!registration.actsOn(told.term())) {
      refusedAtTerm(told, told.term());
      return;
    }
    Map<String, RoutingTable.Home> learned = new HashMap<>();
    // One home value per region, shared by its shards: a placement tells thousands per region.
    Map<ActorRef<Object>, Remote> remotes = new HashMap<>();
    List<String> wantedHere = new ArrayList<>();
    int placedHereBefore = placedHere.size();
    told.homes().forEach((shardId, region) -> {
      boolean namesThisRegion = region.equals(self);
      HomeBelief.Decision decision = HomeBelief.decide(HomeBelief.Told.UP_FRONT,
          routing.table().knownHome(shardId) != null || starting.containsKey(shardId), !namesThisRegion
              && isGone(region), oldHomeMayHandBack(shardId, region), handOffs.isHandingOff(shardId),
          namesThisRegion, cfg.proxyOnly(), false);
      if (decision instanceof HomeBelief.HostHere) {
        if (routing.holds(shardId)) {
          wantedHere.add(shardId);
        } else {
          placedHere.add(shardId);
        }
      } else if (decision instanceof HomeBelief.LivesThere) {
        learned.put(shardId, remotes.computeIfAbsent(region, r -> new Remote(r, outboxTo(r))));
      }
    });
    // The told map iterates in no fixed order: shards start in the order of their ids.
    wantedHere.sort(null);
    wantedHere.forEach(this::startShard);
    List<ActorRef<Object>> watched = new ArrayList<>(remotes.keySet());
    watched.sort(BY_PATH);
    watched.forEach(this::watch);
    routing.homes(learned);
    List<String> learnedIds = new ArrayList<>(learned.keySet());
    learnedIds.sort(null);
    for (String shardId : learnedIds) {
      release(shardId);
    }
    publish();
    report(RegionNotice.toldUpFront(selfName, told.homes().size(), told.term(), learned.size(),
        placedHere.size() - placedHereBefore));
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
    handOffsBegan.remove(shardId);
    cancelled.shard().ifPresent(shard -> {
      if (cancelled.stopping()) {
        tell(shard, ShardProtocol.CancelHandOff.INSTANCE);
      }
      routing.home(shardId, new Local(shard));
    });
  }

  /**
   * A shard being handed off from here that does not run here gets messages sent before the
   * markers: it starts here for them ({@link OwnerHandOffs#startFor}), unless it starts already.
   */
  private void startForHandOff(String shardId) {
    if (handOffs.startFor(shardId) && !starting.containsKey(shardId)) {
      startShard(shardId);
    }
  }

  /** Starts the shard; what is held for it is released once it runs ({@link #onShardStarted}). */
  private void startShard(String shardId) {
    int share = limitShares.started(shardId);
    starting.put(shardId, share);
    effects.add(new RegionEffect.StartShard(shardId, share));
  }

  private void onShardStarted(String shardId, ActorRef<Object> shard) {
    Integer share = starting.remove(shardId);
    if (share == null) {
      return;
    }
    limitShares.running(shardId, share, shard);
    if (handOffs.awaitsStart(shardId)) {
      // Started for what came before the markers of its hand-off: that goes to it, and the routes
      // stay closed; it stops once every marker is in.
      routing.release(shardId).forEach(deliver -> tell(shard, deliver));
      handOffs.started(shardId, shard).ifPresent(this::perform);
      return;
    }
    routing.home(shardId, new Local(shard));
    release(shardId);
    publish();
  }

  /**
   * The link to {@code region}, opened if there is none. A link opened to a returning node probes
   * it at once: until the node acknowledges a batch it may still be on its way out (downed on a
   * view older than this one), and what this region sends its shards is held until then, as for
   * the links that were open when it came back.
   */
  private Outbox outboxTo(ActorRef<Object> region) {
    boolean opens = !links.hasLinkTo(region);
    Outbox outbox = links.outboxFor(region);
    if (opens && routing.isReturning(region.path().address())) {
      links.probe(region, self);
    }
    return outbox;
  }

  private void watch(ActorRef<Object> region) {
    if (regions.watch(region)) {
      effects.add(new RegionEffect.Watch(region, new RegionInput.RegionTerminated(region)));
    }
  }

  private void onShardTerminated(String shardId, boolean restartRemembered) {
    limitShares.stopped(shardId);
    // Every entity has stopped (a shard stops after its children): the next home may start it.
    ShardStops.Outcome<ActorRef<Object>> outcome = ShardStops.decide(handOffs.shardTerminated(shardId),
        routing.table().knownHome(shardId) instanceof Local, cfg.restartsRemembered() && restartRemembered,
        cfg.entityRestartBackoff());
    if (outcome instanceof ShardStops.HandedOff<ActorRef<Object>> handedOff) {
      perform(handedOff.stopped());
    } else if (outcome instanceof ShardStops.Unexpected<?> unexpected) {
      routing.noHome(shardId);
      publish();
      report(RegionNotice.stoppedUnexpectedly(typeName, shardId, unexpected.when()));
      unexpected.restartAfter().ifPresent(backoff -> {
        RegionTimer.RestartShard key = new RegionTimer.RestartShard(shardId);
        effects.add(new RegionEffect.StartTimer(key, timers.start(key), backoff, false));
      });
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
      // The owner is watched, as every region a link goes to is: this region may never have routed
      // to it (it joined after the owner's node was removed, and a slow store let the coordinator
      // begin the move first), and a link to a region nobody watches never closes.
      HandOffMarker marker = new HandOffMarker(shardId, self, begin.handOffId());
      whenQuiet(shardId, () -> {
        if (!regions.isDead(begin.owner())) {
          watch(begin.owner());
          offerAlways(outboxTo(begin.owner()), marker);
        }
      });
    } else if (!handOffs.isHandingOff(shardId)) {
      List<ActorRef<Object>> awaited = new ArrayList<>(handOffs.begin(shardId, begin.handOffId(),
          current instanceof Local l ? l.shard() : null, begin.regions(), self, begin.ifUnstarted()));
      awaited.sort(BY_PATH);
      awaited.forEach(this::watch);
      handOffsBegan.put(shardId, now);
      report(RegionNotice.handOffBegun(typeName, shardId));
      if (routing.holds(shardId) || starting.containsKey(shardId)) {
        startForHandOff(shardId);
      }
      whenQuiet(shardId, () -> handOffs.ownRouteClosed(shardId, begin.handOffId()).ifPresent(this::perform));
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
    return hostedHere(shardId) || routing.holds(shardId) || handOffs.isHandingOff(shardId);
  }

  private void onHandOffMarker(HandOffMarker marker) {
    report(RegionNotice.marker(typeName, marker.shardId(), marker.region().path()));
    handOffs.marker(marker.shardId(), marker.handOffId(), marker.region()).ifPresent(this::perform);
  }

  private void perform(OwnerHandOffs.Step<ActorRef<Object>> step) {
    if (step instanceof OwnerHandOffs.StopShard<ActorRef<Object>> stop) {
      report(RegionNotice.routesClosed(typeName, stop.shardId()));
      tell(stop.shard(), ShardProtocol.HandOff.INSTANCE);
    } else if (step instanceof OwnerHandOffs.Stopped<ActorRef<Object>> stopped) {
      if (routing.holds(stopped.shardId())) {
        registration.askHome(stopped.shardId());
      }
      registration.shardStopped(stopped.shardId(), stopped.handOffId());
      Long began = handOffsBegan.remove(stopped.shardId());
      report(RegionNotice.handedOff(typeName, stopped.shardId(), Duration.ofNanos(began == null ? 0 : now - began),
          routing.held(stopped.shardId())));
    }
  }

  // ---- waiting for the callers' shortcut to be quiet

  private void whenQuiet(String shardId, Runnable action) {
    QuietAction waiting = new QuietAction(++quietTokens, shardId, action);
    quietWaits.add(waiting);
    if (quietWaits.size() == 1) {
      checkQuiet(waiting);
    }
  }

  private void checkQuiet(QuietAction head) {
    effects.add(new RegionEffect.CheckQuiet(head.token(), head.shardId()));
  }

  /** The first waiting action may run if it is quiet; the next is looked at after it, in order. */
  private void onQuietChecked(long token, boolean quiet) {
    QuietAction head = quietWaits.peek();
    if (head == null || head.token() != token) {
      return;
    }
    if (!quiet) {
      // A caller preempted mid-send: look again shortly rather than block the region.
      effects.add(new RegionEffect.StartTimer(RegionTimer.QuietRecheck.INSTANCE,
          timers.start(RegionTimer.QuietRecheck.INSTANCE), java.time.Duration.ofMillis(1), false));
      return;
    }
    quietWaits.poll();
    head.action().run();
    if (!quietWaits.isEmpty()) {
      checkQuiet(quietWaits.peek());
    }
  }

  // ---- remote delivery and membership

  /**
   * A batch from another region's link: delivered if it is the next in that link's sequence, and
   * refused while this node's gate is closed, as the region last heard or as it read on arrival.
   */
  private void onDeliveryBatch(DeliveryBatch batch, boolean gateOpen) {
    if (!links.accept(batch, routing.table().localHeld() || !gateOpen)) {
      return;
    }
    List<Object> items = batch.items();
    for (int i = 0, n = items.size(); i < n; i++) {
      Object item = items.get(i);
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
        handlerFailed(item, e);
      }
    }
    links.acknowledge(batch);
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
    whenQuiet(null, () -> links.close(region, self));
  }

  /** What the closed link to a region that is gone hands back goes first to the shards' next homes. */
  private void onLinkClosed(DeliveryLink.Closed closed) {
    links.outboxes().stream().filter(o -> o.destination().equals(closed.destination())).findFirst()
        .ifPresent(flushes::remove);
    List<Deliver> back = links.closed(closed);
    List<String> shards = routing.handBack(back);
    if (!shards.isEmpty()) {
      report(RegionNotice.handedBack(typeName, back.size(), shards.size(), closed.destination()));
    }
    // A shard whose next home was believed before this link closed anyway (it was routed here
    // through another region since): nothing would ask for it or release it again, so what came
    // back goes there now rather than stay held for good.
    for (String shardId : shards) {
      if (routing.table().home(shardId) != null) {
        release(shardId);
      }
    }
    forgetRegion(closed.destination());
  }

  private void forgetRegion(ActorRef<Object> region) {
    int lost = routing.forget(region);
    publish();
    // Messages held while its node was unreachable (or its link closed) wait for the shards' next homes.
    List<String> awaiting = new ArrayList<>(routing.awaitingHome());
    awaiting.sort(null);
    awaiting.forEach(registration::askHome);
    report(RegionNotice.regionGone(typeName, region, lost));
  }

  /**
   * A node became unreachable or was downed (messages for shards there are held from now on), or
   * is reachable again and was not downed: then it is returning, and its shards stay held while
   * the links to it probe it; what was held goes on once one of them is confirmed
   * ({@link #onLinkConfirmed}), before the shortcut may send anything newer. See {@link NodeEvents}
   * and {@link HeldNodes}.
   */
  private void onNodeEvent(ClusterChange change) {
    NodeEvents.of(change, selfNode).ifPresent(e -> {
      boolean wasReturning = routing.isReturning(e.node());
      boolean wasDowned = routing.isDowned(e.node());
      nodeChanged(e.node(), e.held(), true);
      if (!wasDowned && routing.isDowned(e.node())) {
        // What waits in the links to it never left this node: it goes to the shards' new homes
        // when they close, rather than to a node that is on its way out and may still acknowledge.
        links.hold(e.node());
      }
      if (!wasReturning && routing.isReturning(e.node())) {
        // With no link there yet, the node stays returning: the first link a new home there opens
        // probes it (outboxTo), and what is sent to its shards waits for that answer.
        links.probe(e.node(), self);
      }
    });
  }

  /** A link to a returning node had a batch sent after its probe acknowledged: the node takes batches again. */
  private void onLinkConfirmed(ActorRef<Object> destination) {
    Address node = destination.path().address();
    if (routing.isReturning(node)) {
      // The probe sent the links' windows again already.
      nodeChanged(node, held -> held.confirmed(node), false);
    }
  }

  /**
   * @param resend the links to {@code node} send what is unacknowledged now if it is no longer
   *     held, not when their resend timeouts, grown while it was away, run out
   */
  private void nodeChanged(Address node, UnaryOperator<HeldNodes> held, boolean resend) {
    routing.nodeChanged(node, held).ifPresent(c -> {
      if (c.reachable()) {
        if (resend) {
          links.resendNow(node);
        }
        reroute(c.released());
      }
      publish();
      c.report().ifPresent(report -> report(RegionNotice.node(typeName, node, report)));
    });
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

  // ---- stopping

  /** This node is out of the cluster: the region stops, and its shards with it, without hand-off. */
  private void stopOutOfCluster() {
    report(RegionNotice.outOfCluster(typeName, routing.table().localShards().size(), routing.held()));
    routing.releaseAll().forEach(d -> drop(d.message(), "this node is no longer a member of the cluster, dropping "
        + "a message for shard [" + d.shardId() + "]"));
    stop(null);
  }

  /**
   * Shutting down: stops once it hosts, hands off and holds nothing, every link has answered a
   * flush asked after the last message the region handed it (so what it sent has been acknowledged),
   * and, looked at right then, the links hold nothing that callers put in since.
   */
  private void stopIfDone() {
    if (!handedEverythingOff()) {
      return;
    }
    int notFlushed = 0;
    for (Outbox outbox : links.outboxes()) {
      Flush flush = flushes.computeIfAbsent(outbox, o -> new Flush());
      if (flush.offeredSince) {
        flush.offeredSince = false;
        flush.proving = ++flush.asked;
        effects.add(new RegionEffect.ToLink(outbox, new DeliveryLink.Flush(self)));
      }
      if (flush.answered < flush.proving) {
        notFlushed++;
      }
    }
    if (ShutdownProgress.of(0, false, 0, notFlushed) != ShutdownProgress.DONE || checkingLinksIdle) {
      return;
    }
    // Callers may have put messages into a link by the shortcut since it answered: the last look
    // is at the links themselves, right before stopping.
    checkingLinksIdle = true;
    effects.add(new RegionEffect.CheckLinksIdle(List.copyOf(links.outboxes())));
  }

  /** Hosts, hands off and holds nothing (the links aside). */
  private boolean handedEverythingOff() {
    return ShutdownProgress.of(routing.table().localShards().size() + starting.size(), !handOffs.isEmpty(),
        routing.held(), 0) == ShutdownProgress.DONE;
  }

  private void onLinksIdle(boolean idle) {
    checkingLinksIdle = false;
    if (idle && handedEverythingOff()) {
      stop(RegionNotice.shutDown(typeName));
      return;
    }
    // Flushed again; the handle's own look (stopIfDone) asks for it.
    flushes.values().forEach(flush -> flush.offeredSince = true);
  }

  private void onLinkFlushed(ActorRef<Object> destination) {
    for (Map.Entry<Outbox, Flush> e : flushes.entrySet()) {
      if (e.getKey().destination().equals(destination)) {
        e.getValue().answered++;
      }
    }
  }

  /** Those who asked are told, then {@code last} (if any) is reported, and the region stops. */
  private void stop(RegionNotice last) {
    effects.add(new RegionEffect.ReplyDone(List.copyOf(shutdownWaiters)));
    if (last != null) {
      report(last);
    }
    effects.add(new RegionEffect.Stopped());
    stopped = true;
  }
}
