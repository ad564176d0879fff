package dev.shardkit.sharding.internal;

import dev.shardkit.sharding.ShardRegionState;
import dev.shardkit.sharding.ShardingSettings;
import dev.shardkit.sharding.internal.RegionHandle.ViaRegion;
import dev.shardkit.sharding.internal.RoutingTable.Home;
import dev.shardkit.sharding.internal.RoutingTable.Local;
import dev.shardkit.sharding.internal.RoutingTable.Remote;
import dev.shardkit.sharding.internal.ShardingProtocol.BeginHandOff;
import dev.shardkit.sharding.internal.ShardingProtocol.Deliver;
import dev.shardkit.sharding.internal.ShardingProtocol.DeliveryAck;
import dev.shardkit.sharding.internal.ShardingProtocol.DeliveryBatch;
import dev.shardkit.sharding.internal.ShardingProtocol.UndeliverableItem;
import dev.shardkit.sharding.internal.ShardingProtocol.GracefulShutdownReq;
import dev.shardkit.sharding.internal.ShardingProtocol.HandOffMarker;
import dev.shardkit.sharding.internal.ShardingProtocol.ShardStopped;
import dev.shardkit.sharding.internal.ShardingProtocol.GetRegionStats;
import dev.shardkit.sharding.internal.ShardingProtocol.GetShardHome;
import dev.shardkit.sharding.internal.ShardingProtocol.Register;
import dev.shardkit.sharding.internal.ShardingProtocol.RegisterAck;
import dev.shardkit.sharding.internal.ShardingProtocol.RegisterProxy;
import dev.shardkit.sharding.internal.ShardingProtocol.RegionStats;
import dev.shardkit.sharding.internal.ShardingProtocol.ShardHome;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.BooleanSupplier;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.NoSerializationVerificationNeeded;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.BehaviorBuilder;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.apache.pekko.cluster.ClusterEvent.MemberDowned;
import org.apache.pekko.cluster.ClusterEvent.MemberEvent;
import org.apache.pekko.cluster.ClusterEvent.MemberJoined;
import org.apache.pekko.cluster.ClusterEvent.MemberUp;
import org.apache.pekko.cluster.ClusterEvent.MemberWeaklyUp;
import org.apache.pekko.cluster.ClusterEvent.ReachabilityEvent;
import org.apache.pekko.cluster.Member;
import org.apache.pekko.cluster.ClusterEvent.ReachableMember;
import org.apache.pekko.cluster.ClusterEvent.UnreachableMember;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Subscribe;
import org.slf4j.Logger;

/**
 * One node's region of one entity type: routes each message to the shard's home, holds messages
 * for shards whose home is not known yet and asks the coordinator for it, and hosts the shards
 * the coordinator places here. A proxy-only region routes and holds but never hosts.
 *
 * <p>States: <em>registering</em> (no coordinator yet: known homes keep working, everything else
 * is held) and <em>active</em> (registered: unknown homes are asked for).
 */
public final class ShardRegion {

  /** Ask for this region's state; answered with {@link LocalState}. Local only. */
  public record GetLocalState(ActorRef<Object> replyTo, Duration timeout) implements NoSerializationVerificationNeeded {}

  /** This region's state. Local only. */
  public record LocalState(ShardRegionState state) implements NoSerializationVerificationNeeded {}

  private enum RetryTick implements NoSerializationVerificationNeeded { INSTANCE }

  private record CoordinatorTerminated(ActorRef<Object> coordinator) implements NoSerializationVerificationNeeded {}

  private record RegionTerminated(ActorRef<Object> region) implements NoSerializationVerificationNeeded {}

  private record ShardTerminated(String shardId) implements NoSerializationVerificationNeeded {}

  private enum QuietCheck implements NoSerializationVerificationNeeded { INSTANCE }

  /** Shutting down: look again whether every link has delivered what it holds. */
  private enum LinksFlushedCheck implements NoSerializationVerificationNeeded { INSTANCE }

  /** A link of another region that sent batches here has stopped: forget its sequence. */
  private record InboundLinkTerminated(ActorRef<Object> link) implements NoSerializationVerificationNeeded {}

  /** An action that waits until no caller can still send by an older routing table. */
  private record QuietWait(BooleanSupplier quiet, Runnable action) {}

  /** A shard with remembered entities stopped unexpectedly: start it again, which starts them. */
  private record RestartShard(String shardId) implements NoSerializationVerificationNeeded {}

  /**
   * Hand off every shard of this region and stop; {@code replyTo} gets {@link org.apache.pekko.Done}
   * when the region has stopped. Local only.
   */
  public record GracefulShutdown(ActorRef<Object> replyTo) implements NoSerializationVerificationNeeded {}

  /** The owner's side of one shard's hand-off. */
  private static final class HandOffState {
    final ActorRef<Object> shard;
    final int id;
    final Set<ActorRef<Object>> awaitingMarkers;
    boolean ownRouteClosed;
    boolean stopping;

    HandOffState(ActorRef<Object> shard, int id, Set<ActorRef<Object>> awaitingMarkers) {
      this.shard = shard;
      this.id = id;
      this.awaitingMarkers = awaitingMarkers;
    }
  }

  /** One move of one shard: markers of a move that was given up must not count for the next. */
  private record HandOffKey(String shardId, int handOffId) {}

  private static final Duration STATS_TIMEOUT = Duration.ofSeconds(5);

  private final ActorContext<Object> context;
  private final RegionSpec spec;
  private final ActorRef<Object> self;
  private final Logger log;
  private final MessageBuffers<String> buffers;
  private final DropReporter drops;
  private final Set<ActorRef<Object>> watchedRegions = new HashSet<>();
  /**
   * Regions seen terminated, most recent last: a coordinator that has not yet heard of a death
   * may still name one as a shard's home, and that answer must not be believed.
   */
  private final java.util.LinkedHashSet<ActorRef<Object>> deadRegions = new java.util.LinkedHashSet<>();
  private static final int DEAD_REGIONS_REMEMBERED = 1024;
  private final TimerScheduler<Object> timers;
  private final Map<String, HandOffState> handOffs = new HashMap<>();
  /**
   * Markers that reached this owner before the coordinator's BeginHandOff did: the two travel
   * different ways (region → owner, coordinator → owner), so either can come first.
   */
  private final Map<HandOffKey, Set<ActorRef<Object>>> earlyMarkers = new HashMap<>();
  private final List<QuietWait> waitingForQuiet = new ArrayList<>();
  /** This region's link to each other region it sends to, by destination. */
  private final Map<ActorRef<Object>, Outbox> links = new HashMap<>();
  private final InboundSequences<ActorRef<Object>> inbound = new InboundSequences<>();
  private final ShardingSerializer serializer;
  private final int maximumFrameSize;
  private int linkCount;
  private final List<ActorRef<Object>> shutdownWaiters = new ArrayList<>();
  private boolean shuttingDown;
  private RoutingTable table = RoutingTable.empty();
  /** The other nodes whose shards are held: unreachable or downed. */
  private HeldNodes heldNodes = HeldNodes.NONE;
  private ActorRef<Object> coordinator;
  /** The active-entity limit's shares; null without a limit. */
  private final EntityLimits entityLimits;

  private ShardRegion(ActorContext<Object> context, TimerScheduler<Object> timers, RegionSpec spec) {
    this.context = context;
    this.spec = spec;
    this.self = context.getSelf();
    this.log = context.getLog();
    this.buffers = new MessageBuffers<>(spec.settings().bufferSize());
    this.drops = newDropReporter(context, spec);
    spec.handle().useDrops(drops);
    var classic = Adapter.toClassic(context.getSystem());
    this.serializer = shardingSerializer(classic);
    this.maximumFrameSize = (int) Math.min(Integer.MAX_VALUE,
        classic.settings().config().getBytes("pekko.remote.artery.advanced.maximum-frame-size"));
    this.timers = timers;
    this.entityLimits = spec.settings().activeEntityLimit().isPresent()
        ? new EntityLimits(spec.settings().activeEntityLimit().getAsInt()) : null;
    timers.startTimerWithFixedDelay(RetryTick.INSTANCE, spec.settings().retryInterval());
  }

  static DropReporter newDropReporter(ActorContext<Object> context, RegionSpec spec) {
    var eventStream = Adapter.toClassic(context.getSystem()).eventStream();
    return new DropReporter(context.getLog(), spec.typeName(), spec.settings().dropWarningInterval(),
        eventStream::publish);
  }

  private static ShardingSerializer shardingSerializer(org.apache.pekko.actor.ActorSystem classic) {
    org.apache.pekko.serialization.Serializer bound;
    try {
      bound = org.apache.pekko.serialization.SerializationExtension.get(classic).serializerFor(DeliveryBatch.class);
    } catch (java.io.NotSerializableException e) {
      throw new IllegalStateException("shardkit's messages have no serializer; shardkit's reference.conf binds them "
          + "to " + ShardingSerializer.class.getName() + " in pekko.actor.serialization-bindings", e);
    }
    if (!(bound instanceof ShardingSerializer sharding)) {
      throw new IllegalStateException("shardkit's messages must be bound to " + ShardingSerializer.class.getName()
          + " (shardkit's reference.conf does so), but pekko.actor.serialization-bindings binds them to "
          + bound.getClass().getName());
    }
    return sharding;
  }

  public static Behavior<Object> create(RegionSpec spec) {
    return Behaviors.setup(ctx -> Behaviors.withTimers(timers -> {
      ShardRegion region = new ShardRegion(ctx, timers, spec);
      Cluster.get(ctx.getSystem()).subscriptions()
          .tell(Subscribe.create(ctx.getSelf().<ReachabilityEvent>narrow(), ReachabilityEvent.class));
      Cluster.get(ctx.getSystem()).subscriptions()
          .tell(Subscribe.create(ctx.getSelf().<MemberEvent>narrow(), MemberEvent.class));
      NodeGate.get(ctx.getSystem()).keeper().tell(new GateKeeper.Subscribe(ctx.getSelf()));
      region.register();
      return region.registering();
    }));
  }

  // ---- states

  private Behavior<Object> registering() {
    return common(Behaviors.receive(Object.class)
        .onMessage(RegisterAck.class, this::onRegisterAck)
        .onMessageEquals(RetryTick.INSTANCE, () -> {
          register();
          drops.summarize();
          return Behaviors.same();
        }));
  }

  private Behavior<Object> active() {
    return common(Behaviors.receive(Object.class)
        .onMessage(RegisterAck.class, this::onRegisterAck)
        .onMessageEquals(RetryTick.INSTANCE, () -> {
          drops.summarize();
          // Shards held for an unreachable home already have one: asking would get the same answer.
          buffers.keys().stream().filter(id -> table.knownHome(id) == null).forEach(this::requestHome);
          if (shuttingDown && !spec.proxyOnly()) {
            coordinator.tell(new GracefulShutdownReq(self));
          }
          return Behaviors.same();
        })
        .onMessage(CoordinatorTerminated.class, t -> {
          if (!t.coordinator().equals(coordinator)) {
            return Behaviors.same();
          }
          log.info("Entity type [{}]: coordinator {} is gone; registering with its successor", spec.typeName(),
              coordinator);
          coordinator = null;
          register();
          return registering();
        }));
  }

  private Behavior<Object> common(BehaviorBuilder<Object> builder) {
    return builder
        .onMessage(ViaRegion.class, v -> {
          route(v.deliver());
          spec.handle().routed(v);
          return Behaviors.same();
        })
        .onMessage(Deliver.class, this::onDeliver)
        .onMessage(DeliveryBatch.class, this::onDeliveryBatch)
        .onMessage(DeliveryLink.Closed.class, this::onLinkClosed)
        .onMessage(InboundLinkTerminated.class, t -> {
          inbound.forget(t.link());
          return Behaviors.same();
        })
        .onMessageEquals(LinksFlushedCheck.INSTANCE, this::afterChange)
        .onMessage(ShardHome.class, this::onShardHome)
        .onMessage(RegionTerminated.class, this::onRegionTerminated)
        .onMessage(UnreachableMember.class, u -> onReachability(u.member().address(),
            heldNodes.unreachable(u.member().address(), u.member().uniqueAddress().longUid())))
        .onMessage(ReachableMember.class, r -> onReachability(r.member().address(),
            heldNodes.reachable(r.member().address(), r.member().uniqueAddress().longUid())))
        .onMessage(MemberEvent.class, this::onMemberEvent)
        .onMessage(GateKeeper.GateChanged.class, this::onGateChanged)
        .onMessage(ShardTerminated.class, this::onShardTerminated)
        .onMessage(RestartShard.class, this::onRestartShard)
        .onMessage(Shard.EntitiesLive.class, this::onEntitiesLive)
        .onMessage(GetLocalState.class, this::onGetLocalState)
        .onMessage(GetRegionStats.class, this::onGetRegionStats)
        .onMessage(BeginHandOff.class, this::onBeginHandOff)
        .onMessage(HandOffMarker.class, this::onHandOffMarker)
        .onMessageEquals(QuietCheck.INSTANCE, this::onQuietCheck)
        .onMessage(GracefulShutdown.class, this::onGracefulShutdown)
        .onMessage(CoordinatorTerminated.class, t -> Behaviors.same())
        .onMessage(ShardingProtocol.class, m -> {
          log.debug("Entity type [{}]: region ignores unexpected {}", spec.typeName(), m);
          return Behaviors.same();
        })
        .onAnyMessage(this::onEnvelope)
        .build();
  }

  // ---- registration

  private void register() {
    registerWith(spec.coordinator());
  }

  private void registerWith(ActorRef<Object> target) {
    if (spec.proxyOnly()) {
      target.tell(new RegisterProxy(self));
    } else {
      // Shards being handed off still live here until their entities stop.
      Set<String> hosted = new HashSet<>(table.localShards().keySet());
      hosted.addAll(handOffs.keySet());
      target.tell(new Register(self, hosted));
    }
  }

  /** The name of a type's region actor, under {@code /system} on every node. */
  public static String actorName(String typeName) {
    return "shardkit-region-" + typeName;
  }

  private Behavior<Object> onRegisterAck(RegisterAck ack) {
    if (!ack.coordinator().equals(coordinator)) {
      coordinator = ack.coordinator();
      context.watchWith(coordinator, new CoordinatorTerminated(coordinator));
      log.debug("Entity type [{}]: registered with coordinator {}", spec.typeName(), coordinator);
      // A coordinator that just took over announces itself before this region registered with it.
      // Register with it directly: the singleton proxy may still point at the old one until its
      // node has left the cluster.
      registerWith(coordinator);
    }
    buffers.keys().forEach(this::requestHome);
    return active();
  }

  private void requestHome(String shardId) {
    if (coordinator != null) {
      coordinator.tell(new GetShardHome(shardId, self));
    }
  }

  // ---- routing

  private Behavior<Object> onEnvelope(Object envelope) {
    Deliver deliver;
    try {
      String entityId = spec.extractor().entityId(envelope);
      if (entityId == null || entityId.isEmpty()) {
        return drop(envelope, "the message extractor gave a " + (entityId == null ? "null" : "empty")
            + " entity id for a message of class " + envelope.getClass().getName());
      }
      String shardId = spec.extractor().shardId(entityId);
      if (shardId == null || shardId.isEmpty()) {
        return drop(envelope, "the message extractor gave a null or empty shard id for entity [" + entityId + "]");
      }
      Object message = spec.extractor().unwrapMessage(envelope);
      if (message == null) {
        return drop(envelope, "the message extractor unwrapped null for entity [" + entityId + "]");
      }
      deliver = new Deliver(spec.typeName(), shardId, entityId, message);
    } catch (RuntimeException e) {
      return drop(envelope, "the message extractor threw " + e + " for a message of class "
          + envelope.getClass().getName());
    }
    route(deliver);
    return Behaviors.same();
  }

  private Behavior<Object> onDeliver(Deliver deliver) {
    if (!spec.typeName().equals(deliver.typeName())) {
      return drop(deliver.message(), "a message for entity [" + deliver.entityId() + "] of another entity type ["
          + deliver.typeName() + "] reached this region");
    }
    HandOffState handOff = handOffs.get(deliver.shardId());
    if (handOff != null && !handOff.stopping && handOff.shard != null) {
      // From a region whose marker has not come yet: sent before it stopped routing here, so it
      // belongs to the incarnation that is still running.
      handOff.shard.tell(deliver);
      return Behaviors.same();
    }
    // Admitted under the sending region's limit already: it is passed on, not refused.
    route(deliver, true);
    return Behaviors.same();
  }

  private void route(Deliver deliver) {
    route(deliver, false);
  }

  /**
   * Routes a message by this region's table.
   *
   * @param admitted the message was already held or bounded by shardkit (it comes out of this
   *     region's buffers, or from another region): a full outbox takes it anyway, where a new
   *     message would be refused
   */
  private void route(Deliver deliver, boolean admitted) {
    Home home = table.knownHome(deliver.shardId());
    if (home instanceof Local local && !table.isHeld(local)) {
      local.shard().tell(deliver);
    } else if (home != null && table.isHeld(home)) {
      // Its node is unreachable (or its region is gone and its link closing), or this node waits
      // to be confirmed a member: hold the message until that is over or the shard moves.
      if (!buffers.offer(deliver.shardId(), deliver)) {
        drop(deliver.message(), "buffer full (buffer-size = " + buffers.limit() + "), dropping a message for shard ["
            + deliver.shardId() + "] whose home " + (home instanceof Local ? "here waits for this node to be confirmed "
            + "a member" : home.target().path().address() + " is unreachable"));
      }
    } else if (home instanceof Remote remote) {
      Optional<String> problem = spec.handle().serializability().problem(deliver.message().getClass());
      if (problem.isPresent()) {
        log.error("Entity type [{}]: cannot send a message of class [{}] to entity [{}] on {}: {}",
            spec.typeName(), deliver.message().getClass().getName(), deliver.entityId(),
            remote.region().path().address(), problem.get());
        drop(deliver.message(), "message of class " + deliver.message().getClass().getName()
            + " for entity [" + deliver.entityId() + "] is not serializable");
      } else if (admitted) {
        remote.outbox().offerAlways(deliver);
      } else if (!remote.outbox().offer(deliver)) {
        spec.handle().refused(deliver, remote.outbox());
      }
    } else {
      boolean first = !buffers.contains(deliver.shardId());
      if (!buffers.offer(deliver.shardId(), deliver)) {
        drop(deliver.message(), "buffer full (buffer-size = " + buffers.limit() + "), dropping a message for shard ["
            + deliver.shardId() + "] whose home is not known yet");
      } else if (first) {
        requestHome(deliver.shardId());
      }
    }
  }

  private Behavior<Object> onShardHome(ShardHome home) {
    String shardId = home.shardId();
    if (deadRegions.contains(home.region())) {
      log.debug("Entity type [{}]: ignoring {}: that region is gone; asking again later", spec.typeName(), home);
      return Behaviors.same();
    }
    if (table.knownHome(shardId) instanceof Remote gone && table.isClosing(gone.region())) {
      // What the old home's link hands back must go first; the home is asked again after that.
      log.debug("Entity type [{}]: ignoring {} until the link to {} is closed", spec.typeName(), home, gone.region());
      return Behaviors.same();
    }
    HandOffState handOff = handOffs.get(shardId);
    if (handOff != null) {
      if (!home.region().equals(self)) {
        log.debug("Entity type [{}]: shard [{}] is being handed off; ignoring {}", spec.typeName(), shardId, home);
        return Behaviors.same();
      }
      // The coordinator gave the hand-off up: the shard stays and takes messages again. If it
      // has stopped meanwhile, its termination is seen as unexpected and it starts again.
      handOffs.remove(shardId);
      if (handOff.shard != null) {
        if (handOff.stopping) {
          handOff.shard.tell(Shard.CancelHandOff.INSTANCE);
        }
        table = table.withHome(shardId, new Local(handOff.shard));
      }
    }
    Home current = table.knownHome(shardId);
    if (home.region().equals(self)) {
      if (spec.proxyOnly()) {
        log.error("Entity type [{}]: the coordinator placed shard [{}] in a proxy-only region; ignoring it",
            spec.typeName(), shardId);
        return Behaviors.same();
      }
      if (!(current instanceof Local)) {
        Map<String, Integer> limits = entityLimits == null ? Map.of() : entityLimits.added(shardId);
        ActorRef<Object> shard = context.spawn(
            Shard.create(spec, shardId, self, limits.getOrDefault(shardId, Integer.MAX_VALUE), drops),
            URLEncoder.encode(shardId, StandardCharsets.UTF_8));
        context.watchWith(shard, new ShardTerminated(shardId));
        table = table.withHome(shardId, new Local(shard));
        tellLimits(limits, shardId);
      }
    } else if (current instanceof Local) {
      log.error("Entity type [{}]: the coordinator says shard [{}] lives in {}, but it is hosted here; keeping it "
          + "here", spec.typeName(), shardId, home.region());
    } else {
      if (watchedRegions.add(home.region())) {
        context.watchWith(home.region(), new RegionTerminated(home.region()));
      }
      table = table.withHome(shardId, new Remote(home.region(), outboxFor(home.region())));
    }
    for (Object held : buffers.drain(shardId)) {
      route((Deliver) held, true);
    }
    spec.handle().publish(table);
    return afterChange();
  }

  private Behavior<Object> onRegionTerminated(RegionTerminated terminated) {
    ActorRef<Object> region = terminated.region();
    watchedRegions.remove(region);
    deadRegions.add(region);
    if (deadRegions.size() > DEAD_REGIONS_REMEMBERED) {
      deadRegions.remove(deadRegions.iterator().next());
    }
    for (String shardId : List.copyOf(handOffs.keySet())) {
      HandOffState handOff = handOffs.get(shardId);
      if (handOff.awaitingMarkers.remove(region)) {
        maybeStopShard(shardId, handOff);
      }
    }
    Outbox outbox = links.get(region);
    if (outbox == null) {
      forgetRegion(region);
      return afterChange();
    }
    // Hold its shards' messages until the link has handed back what it still has: that is older
    // than anything sent from now on. The link closes once no caller can still be sending into it.
    table = table.withClosing(region);
    spec.handle().publish(table);
    whenQuiet(spec.handle()::allShortcutsQuiet, () -> outbox.link().tell(new DeliveryLink.Close(self)));
    return Behaviors.same();
  }

  /**
   * The link to a region that is gone has stopped: what it never sent, and (if so configured)
   * what the region never acknowledged, goes to the shards' next homes ahead of anything held
   * for them since.
   */
  private Behavior<Object> onLinkClosed(DeliveryLink.Closed closed) {
    ActorRef<Object> region = closed.destination();
    links.remove(region);
    List<Object> back = new ArrayList<>();
    if (spec.settings().remoteDelivery().redeliverUnacknowledgedAfterCrash()) {
      back.addAll(closed.unacknowledged());
    } else if (!closed.unacknowledged().isEmpty()) {
      log.warn("Entity type [{}]: region {} is gone without acknowledging {} message(s); they may have been lost "
          + "with it (shardkit.sharding.remote-delivery.redeliver-unacknowledged-after-crash = on sends such "
          + "messages to the shards' new homes)", spec.typeName(), region, closed.unacknowledged().size());
    }
    back.addAll(closed.unsent());
    Map<String, List<Object>> byShard = new java.util.LinkedHashMap<>();
    for (Object item : back) {
      if (item instanceof Deliver d) {
        byShard.computeIfAbsent(d.shardId(), k -> new ArrayList<>()).add(d);
      }
      // A hand-off marker for a region that is gone has nobody to reach; its hand-off ends with it.
    }
    byShard.forEach(buffers::prepend);
    if (!byShard.isEmpty()) {
      log.info("Entity type [{}]: {} message(s) for {} shard(s) of region {} go to their next homes",
          spec.typeName(), byShard.values().stream().mapToInt(List::size).sum(), byShard.size(), region);
    }
    forgetRegion(region);
    return afterChange();
  }

  private void forgetRegion(ActorRef<Object> region) {
    List<String> lost = table.shardsOf(region);
    table = table.withoutRegion(region);
    spec.handle().publish(table);
    // Messages held while its node was unreachable (or its link closed) wait for the shards' next homes.
    buffers.keys().stream().filter(id -> table.knownHome(id) == null).forEach(this::requestHome);
    log.info("Entity type [{}]: region {} is gone; {} shard(s) will get a new home when next used",
        spec.typeName(), region, lost.size());
  }

  /**
   * A node became unreachable or was downed (messages for shards there are held from now on), or
   * is reachable again and was not downed (what was held goes on, before the shortcut may send
   * anything newer); see {@link HeldNodes}.
   */
  private Behavior<Object> onReachability(Address node, HeldNodes next) {
    heldNodes = next;
    Set<Address> unreachable = next.addresses();
    boolean reachable = !unreachable.contains(node);
    if (unreachable.equals(table.unreachable())) {
      return Behaviors.same();
    }
    table = table.withUnreachable(unreachable);
    List<String> affected = table.shardsOn(node);
    if (reachable) {
      // What the links sent while it was away is sent again now, not when their grown resend
      // timeouts run out.
      links.forEach((region, outbox) -> {
        if (region.path().address().equals(node)) {
          outbox.link().tell(DeliveryLink.ResendNow.INSTANCE);
        }
      });
      for (String shardId : affected) {
        for (Object held : buffers.drain(shardId)) {
          route((Deliver) held, true);
        }
      }
    }
    spec.handle().publish(table);
    if (!affected.isEmpty()) {
      log.info("Entity type [{}]: node {} is {}; messages for its {} shard(s) {}", spec.typeName(), node,
          reachable ? "reachable again" : "unreachable", affected.size(), reachable ? "go on" : "are held");
    }
    return afterChange();
  }

  /**
   * This node's delivery gate closed (the node may have been downed while it was not looking:
   * messages for the shards hosted here are held from now on), opened (what was held goes on,
   * before the shortcut may send anything newer), or closed for good (the node is out of the
   * cluster: the region stops, and its shards with it, without hand-off).
   */
  private Behavior<Object> onGateChanged(GateKeeper.GateChanged change) {
    if (change == GateKeeper.GateChanged.DOWN) {
      log.warn("Entity type [{}]: this node is no longer a member of the cluster; the region stops with its {} "
          + "shard(s), without hand-off, and drops the {} message(s) it holds", spec.typeName(),
          table.localShards().size(), buffers.total());
      for (String shardId : List.copyOf(buffers.keys())) {
        buffers.drain(shardId).forEach(m -> drop(((Deliver) m).message(), "this node is no longer a member of the "
            + "cluster, dropping a message for shard [" + shardId + "]"));
      }
      shutdownWaiters.forEach(w -> w.tell(org.apache.pekko.Done.getInstance()));
      return Behaviors.stopped();
    }
    boolean held = change == GateKeeper.GateChanged.CLOSED;
    if (table.localHeld() == held) {
      return Behaviors.same();
    }
    table = table.withLocalHeld(held);
    if (!held) {
      // Batches refused while the gate was closed are asked for again now, not after their
      // senders' resend timeouts.
      inbound.takeRefused().forEach(link -> link.tell(new DeliveryAck(inbound.lastDelivered(link), true)));
      for (String shardId : table.localShards().keySet()) {
        for (Object message : buffers.drain(shardId)) {
          route((Deliver) message);
        }
      }
    }
    spec.handle().publish(table);
    return afterChange();
  }

  /**
   * A downed node's shards are held even if it is reachable (it may wake from a freeze just after
   * the others downed it): they get new homes when it has been removed. A node joining again at a
   * held address ends the holds of its old incarnation.
   */
  private Behavior<Object> onMemberEvent(MemberEvent event) {
    Member member = event.member();
    if (member.uniqueAddress().equals(Cluster.get(context.getSystem()).selfMember().uniqueAddress())) {
      return Behaviors.same();
    }
    if (event instanceof MemberDowned) {
      return onReachability(member.address(), heldNodes.downed(member.address(), member.uniqueAddress().longUid()));
    }
    if (event instanceof MemberJoined || event instanceof MemberWeaklyUp || event instanceof MemberUp) {
      return onReachability(member.address(), heldNodes.joined(member.address(), member.uniqueAddress().longUid()));
    }
    return Behaviors.same();
  }

  private Behavior<Object> onShardTerminated(ShardTerminated terminated) {
    String shardId = terminated.shardId();
    if (entityLimits != null) {
      tellLimits(entityLimits.removed(shardId), null);
    }
    HandOffState handOff = handOffs.get(shardId);
    if (handOff != null && handOff.stopping) {
      // Every entity has stopped (a shard stops after its children): the next home may start it.
      handOffs.remove(shardId);
      if (buffers.contains(shardId)) {
        requestHome(shardId);
      }
      coordinatorOrProxy().tell(new ShardStopped(shardId, self, handOff.id));
      log.debug("Entity type [{}]: shard [{}] handed off", spec.typeName(), shardId);
      return afterChange();
    }
    if (table.knownHome(shardId) instanceof Local) {
      table = table.without(shardId);
      spec.handle().publish(table);
      if (spec.rememberEntities().isPresent() && !shuttingDown) {
        Duration backoff = spec.settings().entityRestartBackoff();
        log.warn("Entity type [{}]: shard [{}] stopped unexpectedly; it starts again in {} ms with its remembered "
            + "entities", spec.typeName(), shardId, backoff.toMillis());
        timers.startSingleTimer(new RestartShard(shardId), new RestartShard(shardId), backoff);
      } else {
        log.warn("Entity type [{}]: shard [{}] stopped unexpectedly; it starts again with its next message",
            spec.typeName(), shardId);
      }
    }
    return afterChange();
  }

  private Behavior<Object> onRestartShard(RestartShard restart) {
    if (table.knownHome(restart.shardId()) == null && !handOffs.containsKey(restart.shardId())) {
      requestHome(restart.shardId());
    }
    return Behaviors.same();
  }

  // ---- active-entity limit

  private Behavior<Object> onEntitiesLive(Shard.EntitiesLive live) {
    if (entityLimits != null && table.knownHome(live.shardId()) instanceof Local) {
      tellLimits(entityLimits.reported(live.shardId(), live.live()), null);
    }
    return Behaviors.same();
  }

  /** Tells each local shard whose share changed; {@code skip} was just given its share at spawn. */
  private void tellLimits(Map<String, Integer> limits, String skip) {
    limits.forEach((shardId, limit) -> {
      if (!shardId.equals(skip) && table.knownHome(shardId) instanceof Local local) {
        local.shard().tell(new Shard.EntityLimit(limit));
      }
    });
  }

  // ---- hand-off

  private Behavior<Object> onBeginHandOff(BeginHandOff begin) {
    String shardId = begin.shardId();
    Home current = table.knownHome(shardId);
    table = table.without(shardId);
    spec.handle().publish(table);
    if (begin.owner().equals(self)) {
      if (!handOffs.containsKey(shardId)) {
        Set<ActorRef<Object>> awaiting = new HashSet<>(begin.regions());
        awaiting.remove(self);
        awaiting.removeAll(earlyMarkers.getOrDefault(new HandOffKey(shardId, begin.handOffId()), Set.of()));
        earlyMarkers.keySet().removeIf(k -> k.shardId().equals(shardId));
        for (ActorRef<Object> region : awaiting) {
          if (watchedRegions.add(region)) {
            context.watchWith(region, new RegionTerminated(region));
          }
        }
        HandOffState handOff = new HandOffState(current instanceof Local l ? l.shard() : null, begin.handOffId(),
            awaiting);
        handOffs.put(shardId, handOff);
        whenRouteClosed(shardId, () -> {
          handOff.ownRouteClosed = true;
          maybeStopShard(shardId, handOff);
        });
      }
    } else {
      whenRouteClosed(shardId, () -> sendMarker(begin.owner(), new HandOffMarker(shardId, self, begin.handOffId())));
    }
    if (buffers.contains(shardId)) {
      requestHome(shardId);
    }
    return Behaviors.same();
  }

  private Behavior<Object> onHandOffMarker(HandOffMarker marker) {
    HandOffState handOff = handOffs.get(marker.shardId());
    log.debug("Entity type [{}]: hand-off marker for shard [{}] from {}; awaiting {}", spec.typeName(),
        marker.shardId(), marker.region().path(), handOff == null ? "nothing" : handOff.awaitingMarkers);
    if (handOff == null) {
      earlyMarkers.computeIfAbsent(new HandOffKey(marker.shardId(), marker.handOffId()), k -> new HashSet<>())
          .add(marker.region());
    } else if (handOff.id == marker.handOffId() && handOff.awaitingMarkers.remove(marker.region())) {
      maybeStopShard(marker.shardId(), handOff);
    }
    return Behaviors.same();
  }

  /** Stops the shard once nothing more can reach it: every region's marker is in, ours too. */
  private void maybeStopShard(String shardId, HandOffState handOff) {
    if (handOff.stopping || !handOff.ownRouteClosed || !handOff.awaitingMarkers.isEmpty()) {
      return;
    }
    handOff.stopping = true;
    log.debug("Entity type [{}]: every route to shard [{}] is closed; stopping its entities", spec.typeName(),
        shardId);
    if (handOff.shard != null) {
      handOff.shard.tell(Shard.HandOff.INSTANCE);
    } else {
      handOffs.remove(shardId);
      coordinatorOrProxy().tell(new ShardStopped(shardId, self, handOff.id));
    }
  }

  /**
   * Sends a hand-off marker to the shard's owner through this region's link to it: behind every
   * message for the shard this region (or a caller on its node) handed that link before.
   */
  private void sendMarker(ActorRef<Object> owner, HandOffMarker marker) {
    if (deadRegions.contains(owner)) {
      return;
    }
    outboxFor(owner).offerAlways(marker);
  }

  /**
   * Runs {@code action} once no caller can still send to the shard's old home by the shortcut:
   * the table without it is published, and no caller is between reading a table and sending.
   */
  private void whenRouteClosed(String shardId, Runnable action) {
    whenQuiet(() -> spec.handle().shortcutsQuiet(shardId), action);
  }

  /**
   * Runs {@code action} once {@code quiet} holds. Actions run in the order they were asked for:
   * once one has to wait, every later one waits behind it.
   */
  private void whenQuiet(BooleanSupplier quiet, Runnable action) {
    if (waitingForQuiet.isEmpty()) {
      for (int spins = 0; spins < 200; spins++) {
        if (quiet.getAsBoolean()) {
          action.run();
          return;
        }
        Thread.onSpinWait();
      }
    }
    // A caller was preempted mid-send: look again shortly rather than block the region.
    waitingForQuiet.add(new QuietWait(quiet, action));
    timers.startSingleTimer(QuietCheck.INSTANCE, Duration.ofMillis(1));
  }

  private Behavior<Object> onQuietCheck() {
    List<QuietWait> waiting = List.copyOf(waitingForQuiet);
    waitingForQuiet.clear();
    waiting.forEach(w -> whenQuiet(w.quiet(), w.action()));
    return Behaviors.same();
  }

  // ---- remote delivery

  /** This region's link to {@code destination}, started on first use. */
  private Outbox outboxFor(ActorRef<Object> destination) {
    Outbox outbox = links.get(destination);
    if (outbox == null) {
      outbox = new Outbox(destination, spec.settings().bufferSize());
      ActorRef<Object> link = context.spawn(DeliveryLink.create(outbox, spec.settings().remoteDelivery(), serializer,
          drops, maximumFrameSize), "link-" + (++linkCount));
      outbox.attach(link);
      links.put(destination, outbox);
    }
    return outbox;
  }

  /** A batch from another region's link: delivered if it is the next in that link's sequence. */
  private Behavior<Object> onDeliveryBatch(DeliveryBatch batch) {
    ActorRef<Object> link = batch.link();
    if (table.localHeld()) {
      // This node may have been downed while it was not looking. Taking the batch would make its
      // sender count its messages as delivered; unacknowledged, they are sent again once the node
      // is confirmed a member, or handed back to the sender's region if it is removed.
      log.debug("Entity type [{}]: batch {} from {} waits until this node is confirmed a member", spec.typeName(),
          batch.seq(), link);
      inbound.refuse(link);
      return Behaviors.same();
    }
    boolean known = inbound.knows(link);
    switch (inbound.offer(link, batch.seq())) {
      case DELIVER -> {
        if (!known) {
          context.watchWith(link, new InboundLinkTerminated(link));
        }
        for (Object item : batch.items()) {
          if (item instanceof Deliver d) {
            onDeliver(d);
          } else if (item instanceof HandOffMarker m) {
            onHandOffMarker(m);
          } else if (item instanceof UndeliverableItem u) {
            drop(u, "a message for entity [" + u.entityId() + "] from " + link.path().address()
                + " could not be read: " + u.reason());
          }
        }
        link.tell(new DeliveryAck(batch.seq(), false));
      }
      case DUPLICATE -> link.tell(new DeliveryAck(inbound.lastDelivered(link), false));
      case GAP_ASK_RESEND -> {
        log.debug("Entity type [{}]: batch {} from {} arrived before batch {}; asking for it again", spec.typeName(),
            batch.seq(), link, inbound.lastDelivered(link) + 1);
        link.tell(new DeliveryAck(inbound.lastDelivered(link), true));
      }
      case GAP -> { }
    }
    return Behaviors.same();
  }

  /** Messages waiting in this region's links or sent and not yet acknowledged. */
  private int inLinks() {
    return links.values().stream().mapToInt(Outbox::pending).sum();
  }

  // ---- graceful shutdown

  private Behavior<Object> onGracefulShutdown(GracefulShutdown shutdown) {
    shutdownWaiters.add(shutdown.replyTo());
    if (!shuttingDown) {
      shuttingDown = true;
      log.info("Entity type [{}]: region shutting down; handing off {} shard(s)", spec.typeName(),
          table.localShards().size());
      if (!spec.proxyOnly()) {
        coordinatorOrProxy().tell(new GracefulShutdownReq(self));
      }
    }
    return afterChange();
  }

  /** Stops a shutting-down region once it hosts nothing and holds nothing. */
  private Behavior<Object> afterChange() {
    if (shuttingDown && table.localShards().isEmpty() && handOffs.isEmpty() && buffers.total() == 0) {
      if (inLinks() > 0) {
        // What this node sent to others is on its way: stop once it has been acknowledged.
        timers.startSingleTimer(LinksFlushedCheck.INSTANCE, Duration.ofMillis(20));
        return Behaviors.same();
      }
      shutdownWaiters.forEach(w -> w.tell(org.apache.pekko.Done.getInstance()));
      log.info("Entity type [{}]: region shut down gracefully", spec.typeName());
      return Behaviors.stopped();
    }
    return Behaviors.same();
  }

  private ActorRef<Object> coordinatorOrProxy() {
    return coordinator != null ? coordinator : spec.coordinator();
  }

  private Behavior<Object> drop(Object message, String reason) {
    drops.dropped(message, reason, Adapter.toClassic(self));
    return Behaviors.same();
  }

  // ---- inspection

  private Behavior<Object> onGetLocalState(GetLocalState get) {
    int held = buffers.total() + inLinks();
    long dropped = drops.total();
    ShardingSettings settings = spec.settings();
    collect(get.timeout(), shards -> get.replyTo().tell(new LocalState(new ShardRegionState(
        shards.stream().map(s -> new ShardRegionState.ShardState(s.shardId(), s.entityIds()))
            .collect(java.util.stream.Collectors.toSet()), held, dropped,
        new ShardRegionState.Passivation(settings.passivationIdleTimeout(), settings.activeEntityLimit(),
            shards.stream().mapToLong(Shard.ShardSnapshot::idlePassivations).sum(),
            shards.stream().mapToLong(Shard.ShardSnapshot::limitPassivations).sum())))));
    return Behaviors.same();
  }

  private Behavior<Object> onGetRegionStats(GetRegionStats get) {
    collect(STATS_TIMEOUT, shards -> {
      Map<String, Integer> counts = new HashMap<>();
      shards.forEach(s -> counts.put(s.shardId(), s.entityIds().size()));
      get.replyTo().tell(new RegionStats(counts));
    });
    return Behaviors.same();
  }

  private void collect(Duration timeout, java.util.function.Consumer<Set<Shard.ShardSnapshot>> onDone) {
    context.spawnAnonymous(ShardStateCollector.create(table.localShards().values(), timeout, onDone));
  }
}
