package dev.shardkit.sharding.internal.region;

import dev.shardkit.sharding.internal.InternalApi;
import dev.shardkit.sharding.internal.delivery.DeliveryLink;
import dev.shardkit.sharding.internal.delivery.Outbox;
import dev.shardkit.sharding.internal.gate.DeliveryGate;
import dev.shardkit.sharding.internal.gate.GateKeeper;
import dev.shardkit.sharding.internal.gate.NodeGate;
import dev.shardkit.sharding.internal.machine.DropReporter;
import dev.shardkit.sharding.internal.machine.HandlerFailures;
import dev.shardkit.sharding.internal.membership.ClusterChanges;
import dev.shardkit.sharding.internal.shard.Shard;
import dev.shardkit.sharding.internal.shard.ShardProtocol;
import dev.shardkit.sharding.internal.telemetry.TelemetryBindings;
import dev.shardkit.sharding.internal.telemetry.TelemetryEvents;
import dev.shardkit.sharding.internal.util.ShardIdBounds;
import dev.shardkit.sharding.internal.wire.InvalidMessageFilter;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.Deliver;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.DeliveryBatch;
import dev.shardkit.sharding.internal.wire.ShardingProtocol;
import dev.shardkit.sharding.internal.wire.ShardingSerializer;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.apache.pekko.Done;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.apache.pekko.cluster.ClusterEvent.MemberEvent;
import org.apache.pekko.cluster.ClusterEvent.ReachabilityEvent;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Subscribe;
import org.slf4j.Logger;

/**
 * One node's region of one entity type, as an actor: the interpreter of its {@link RegionMachine},
 * which decides everything (routing, holding, registration and fencing, hand-offs, links, node
 * events, shutdown). The actor turns what it receives into the machine's inputs and carries out its
 * effects ({@link RegionPorts}) with Pekko and the node's per-message path: shards and links are its
 * children, the routing table goes to the callers' {@link RegionHandle}, messages into the links'
 * {@link Outbox}es, and the machine's log lines to the region's logger.
 *
 * <p>A handler that throws (a port) costs only the message it was handling
 * ({@link RegionInput.HandlerFailed}); the region keeps routing.
 */
@InternalApi
public final class ShardRegion {

  /** How often to look whether the callers' stripes are quiet before waiting (see {@link RegionEffect.CheckQuiet}). */
  private static final int QUIET_SPINS = 200;

  private final ActorContext<Object> context;
  private final TimerScheduler<Object> timers;
  private final RegionSpec spec;
  private final Logger log;
  private final DropReporter drops;
  private final TelemetryBindings telemetry;
  private final RegionDriver driver;
  private final ShardingSerializer serializer;
  private final int maximumFrameSize;
  /** This node's delivery gate, read as each batch arrives. */
  private final DeliveryGate gate;
  private int linksStarted;
  private boolean stopped;

  private ShardRegion(ActorContext<Object> context, TimerScheduler<Object> timers, RegionSpec spec) {
    this.context = context;
    this.timers = timers;
    this.spec = spec;
    // Pekko names an actor's logger after the class that first asks for it: this one.
    this.log = context.getLog();
    this.telemetry = TelemetryBindings.get(context.getSystem());
    this.drops = new DropReporter(log, spec.typeName(), spec.settings().droppedMessageWarningInterval(),
        Adapter.toClassic(context.getSystem()).eventStream()::publish, telemetry);
    spec.handle().useDrops(drops);
    var classic = Adapter.toClassic(context.getSystem());
    this.serializer = DeliveryLink.serializer(classic);
    this.maximumFrameSize = DeliveryLink.maximumFrameSize(classic);
    this.gate = NodeGate.get(context.getSystem()).gate();
    ActorRef<Object> self = context.getSelf();
    RegionMachine machine = new RegionMachine(
        RegionConfig.of(spec.typeName(), spec.proxyOnly(), spec.rememberEntities().isPresent(), spec.settings()),
        self, self.path().toStringWithAddress(context.getSystem().address()), spec.coordinator(),
        Cluster.get(context.getSystem()).selfMember().uniqueAddress(), spec.extractor(),
        ShardIdBounds.of(spec.typeName(), spec.extractor(), spec.settings().maxShards()),
        spec.handle().serializability()::problem);
    this.driver = new RegionDriver(machine, new PekkoPorts());
  }

  public static Behavior<Object> create(RegionSpec spec) {
    return Behaviors.setup(ctx -> Behaviors.withTimers(timers -> {
      ShardRegion region = new ShardRegion(ctx, timers, spec);
      Cluster.get(ctx.getSystem()).subscriptions()
          .tell(Subscribe.create(ctx.getSelf().<ReachabilityEvent>narrow(), ReachabilityEvent.class));
      Cluster.get(ctx.getSystem()).subscriptions()
          .tell(Subscribe.create(ctx.getSelf().<MemberEvent>narrow(), MemberEvent.class));
      NodeGate.get(ctx.getSystem()).keeper().tell(new GateKeeper.Subscribe(ctx.getSelf()));
      region.run(new RegionInput.Start());
      return HandlerFailures.around(
          Behaviors.intercept(() -> new InvalidMessageFilter((m, why) -> region.drop(m, "dropping " + why)),
              Behaviors.receive(Object.class).onAnyMessage(region::receive).build()),
          HandlerFailures.Then.RESUME, (c, failed, cause) -> region.run(new RegionInput.HandlerFailed(failed, cause)));
    }));
  }

  /** The name of a type's region actor, under {@code /system} on every node. */
  public static String actorName(String typeName) {
    return "shardkit-region-" + typeName;
  }

  private Behavior<Object> receive(Object message) {
    return run(input(message));
  }

  /** The machine's input for what the actor received; anything unknown is an envelope to route. */
  private RegionInput input(Object message) {
    if (message instanceof RegionInput input) {
      // A caller's message by the slow path, or what the region told itself.
      return input;
    } else if (message instanceof Deliver deliver) {
      return new RegionInput.FromRegion(deliver);
    } else if (message instanceof DeliveryBatch batch) {
      return new RegionInput.Batch(batch, gate.isOpen());
    } else if (message instanceof ShardingProtocol protocol) {
      return new RegionInput.Protocol(protocol);
    } else if (message instanceof DeliveryLink.Closed closed) {
      return new RegionInput.LinkClosed(closed);
    } else if (message instanceof DeliveryLink.Flushed flushed) {
      return new RegionInput.LinkFlushed(flushed.destination());
    } else if (message instanceof DeliveryLink.Confirmed confirmed) {
      return new RegionInput.LinkConfirmed(confirmed.destination());
    } else if (message instanceof ShardProtocol.EntitiesLive live) {
      return new RegionInput.EntitiesLive(live);
    } else if (message instanceof GateKeeper.GateChanged change) {
      return new RegionInput.Gate(change);
    } else if (message instanceof ReachabilityEvent || message instanceof MemberEvent) {
      return ClusterChanges.of(message).<RegionInput>map(RegionInput.Membership::new).orElse(null);
    } else if (message instanceof RegionRequests.GracefulShutdown shutdown) {
      return new RegionInput.GracefulShutdown(shutdown.replyTo());
    } else if (message instanceof RegionRequests.GetLocalState get) {
      return new RegionInput.GetLocalState(get);
    }
    return new RegionInput.Envelope(message);
  }

  private Behavior<Object> run(RegionInput input) {
    if (input != null && !stopped) {
      driver.run(input, System.nanoTime());
    }
    return stopped ? Behaviors.stopped() : Behaviors.same();
  }

  private void drop(Object message, String reason) {
    drops.dropped(message, reason, Adapter.toClassic(context.getSelf()));
  }

  /** The machine's effects, carried out with Pekko and the per-message path. */
  private final class PekkoPorts implements RegionPorts {

    @Override
    public void tell(ActorRef<Object> to, Object message) {
      to.tell(message);
    }

    @Override
    public void offer(Outbox outbox, Deliver deliver) {
      if (!outbox.offer(deliver)) {
        spec.handle().refused(deliver, outbox);
      }
    }

    @Override
    public void offerAlways(Outbox outbox, Object item) {
      outbox.offerAlways(item);
    }

    @Override
    public void routed(RegionHandle.ViaRegion via) {
      spec.handle().routed(via);
    }

    @Override
    public void publish(RoutingTable table) {
      spec.handle().publish(table);
    }

    @Override
    public RegionInput startShard(String shardId, int entityLimit) {
      ActorRef<Object> shard = context.spawn(Shard.create(spec, shardId, context.getSelf(), entityLimit, drops),
          URLEncoder.encode(shardId, StandardCharsets.UTF_8));
      context.watchWith(shard, new RegionInput.ShardTerminated(shardId));
      return new RegionInput.ShardStarted(shardId, shard);
    }

    @Override
    public void watch(ActorRef<Object> ref, RegionInput whenTerminated) {
      context.watchWith(ref, whenTerminated);
    }

    @Override
    public void startLink(Outbox outbox) {
      outbox.attach(context.spawn(DeliveryLink.create(outbox, spec.settings().remoteDelivery(), serializer, drops,
          maximumFrameSize), "link-" + (++linksStarted)));
    }

    @Override
    public void toLink(Outbox outbox, Object message) {
      outbox.link().tell(message);
    }

    /** A caller between reading the table and sending is usually done within a few hundred nanoseconds. */
    @Override
    public RegionInput checkQuiet(long token, String shardId) {
      for (int spins = 0; spins < QUIET_SPINS; spins++) {
        if (shardId == null ? spec.handle().allShortcutsQuiet() : spec.handle().shortcutsQuiet(shardId)) {
          return new RegionInput.QuietChecked(token, true);
        }
        Thread.onSpinWait();
      }
      return new RegionInput.QuietChecked(token, false);
    }

    @Override
    public RegionInput checkLinksIdle(List<Outbox> links) {
      for (Outbox outbox : links) {
        if (outbox.pending() > 0) {
          return new RegionInput.LinksIdle(false);
        }
      }
      return new RegionInput.LinksIdle(true);
    }

    @Override
    public void startTimer(RegionTimer key, long generation, Duration delay, boolean repeat) {
      RegionInput.TimerFired fired = new RegionInput.TimerFired(key, generation);
      if (repeat) {
        timers.startTimerWithFixedDelay(key, fired, delay);
      } else {
        timers.startSingleTimer(key, fired, delay);
      }
    }

    @Override
    public void cancelTimer(RegionTimer key) {
      timers.cancel(key);
    }

    @Override
    public void drop(Object message, String reason) {
      ShardRegion.this.drop(message, reason);
    }

    @Override
    public void summarizeDrops() {
      drops.summarize();
    }

    /**
     * Logged with the notice's pattern and arguments, not a rendered line, and without asking first
     * whether the level is on: a filter may let one pattern through by its text. A notice with a
     * fact is reported as telemetry too.
     */
    @Override
    public void report(RegionNotice notice) {
      switch (notice.level()) {
        case ERROR -> log.error(notice.pattern(), notice.args());
        case WARN -> log.warn(notice.pattern(), notice.args());
        case INFO -> log.info(notice.pattern(), notice.args());
        case DEBUG -> log.debug(notice.pattern(), notice.args());
        case TRACE -> log.trace(notice.pattern(), notice.args());
      }
      if (notice.fact() != null && telemetry.active()) {
        telemetry.emit(TelemetryEvents.region(notice, telemetry.node(), spec.typeName()));
      }
    }

    @Override
    public void registered(String coordinator, long term) {
      spec.status().registered(coordinator, term);
    }

    @Override
    public void registering() {
      spec.status().registering();
    }

    @Override
    public void collectLocalState(List<ActorRef<Object>> shards, List<Outbox> links, int held,
        RegionRequests.GetLocalState get) {
      int pending = 0;
      for (Outbox outbox : links) {
        pending += outbox.pending();
      }
      context.spawnAnonymous(ShardStateCollector.localState(shards, get, held + pending, drops.total(),
          spec.settings()));
    }

    @Override
    public void collectStats(List<ActorRef<Object>> shards, ShardingProtocol.GetRegionStats get) {
      context.spawnAnonymous(ShardStateCollector.regionStats(shards, get));
    }

    @Override
    public void replyDone(List<ActorRef<Object>> waiters) {
      waiters.forEach(w -> w.tell(Done.getInstance()));
    }

    @Override
    public void stopped() {
      stopped = true;
    }
  }
}
