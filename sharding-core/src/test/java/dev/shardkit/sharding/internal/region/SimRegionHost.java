package dev.shardkit.sharding.internal.region;

import dev.shardkit.sharding.MessageExtractor;
import dev.shardkit.sharding.internal.delivery.DeliveryLink;
import dev.shardkit.sharding.internal.delivery.LinkConfig;
import dev.shardkit.sharding.internal.delivery.Outbox;
import dev.shardkit.sharding.internal.delivery.SimLinkHost;
import dev.shardkit.sharding.internal.gate.GateKeeper;
import dev.shardkit.sharding.internal.membership.ClusterChange;
import dev.shardkit.sharding.internal.shard.ShardProtocol;
import dev.shardkit.sharding.internal.util.ShardIdBounds;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.Deliver;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.DeliveryBatch;
import dev.shardkit.sharding.internal.wire.ShardingProtocol;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.Consumer;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.cluster.UniqueAddress;

/**
 * One node's region of one type in the simulation of the cluster: the real {@link RegionMachine}
 * run by the real {@link RegionDriver}, with {@link RegionPorts} carried out by the simulation
 * (its network, clock, death watch), real {@link Outbox}es drained by {@link SimLinkHost}s, and
 * shards the simulation starts. Callers do not take the routing shortcut ({@link RegionHandle}):
 * their messages come in as envelopes, the region's routing input, so no caller holds a stripe
 * and every quiet check is answered quiet at once.
 */
public final class SimRegionHost implements RegionPorts {

  /** Scaled settings of one seed. */
  public record Settings(int bufferSize, int batchMaxMessages, int window, Duration resendAfter, Duration retryInterval,
      Duration handOffTimeout, boolean redeliver, boolean remembersEntities, OptionalInt activeEntityLimit) {}

  private final SimHostWorld world;
  private final int node;
  private final ActorRef<Object> self;
  private final RegionMachine machine;
  private final RegionDriver driver;
  private final LinkConfig linkConfig;
  private final boolean redeliver;
  private int handedBack;
  private final Map<RegionTimer, Long> timers = new HashMap<>();
  /** The links started, in the order they started. */
  private final List<SimLinkHost> links = new ArrayList<>();
  private final Map<Outbox, SimLinkHost> linkByOutbox = new HashMap<>();
  private RoutingTable table;
  private String registeredWith;
  private long registeredTerm = -1;
  private boolean stopped;

  public SimRegionHost(SimHostWorld world, int node, String typeName, ActorRef<Object> self,
      ActorRef<Object> coordinatorProxy, UniqueAddress selfNode, MessageExtractor<Object, Object> extractor,
      ShardIdBounds shardIds, Settings settings) {
    this.world = world;
    this.node = node;
    this.self = self;
    RegionConfig config = new RegionConfig(typeName, false, settings.bufferSize(), settings.retryInterval(),
        settings.handOffTimeout(), settings.remembersEntities(), Duration.ofMillis(500), settings.activeEntityLimit(),
        settings.redeliver());
    this.redeliver = settings.redeliver();
    this.linkConfig = new LinkConfig(settings.batchMaxMessages(), 64 * 1024, 256 * 1024, settings.window(),
        settings.resendAfter().toNanos(), Math.max(10_000_000L, settings.resendAfter().toNanos() / 4));
    this.machine = new RegionMachine(config, self, self.path().toString(), coordinatorProxy, selfNode, extractor,
        shardIds, type -> Optional.empty());
    this.driver = new RegionDriver(machine, this);
    world.register(self, node, this::receive);
  }

  /** What the region receives, turned into its machine's input as the region actor turns it. */
  public void receive(Object message) {
    if (stopped) {
      return;
    }
    RegionInput input;
    if (message instanceof Deliver deliver) {
      input = new RegionInput.FromRegion(deliver);
    } else if (message instanceof DeliveryBatch batch) {
      input = new RegionInput.Batch(batch, world.gateOpen(node));
    } else if (message instanceof RegionInput in) {
      input = in;
    } else if (message instanceof ShardingProtocol protocol) {
      input = new RegionInput.Protocol(protocol);
    } else if (message instanceof DeliveryLink.Closed closed) {
      input = new RegionInput.LinkClosed(closed);
      handedBack += closed.unsent().size() + (redeliver ? closed.unacknowledged().size() : 0);
      if (!redeliver) {
        // The region reports these only as a count (possibly lost): the simulation keeps their fate.
        world.goneUnacknowledged(node, closed.destination(), closed.unacknowledged());
      } else {
        world.redelivering(node, closed.destination(), closed.unacknowledged());
      }
    } else if (message instanceof DeliveryLink.Flushed flushed) {
      input = new RegionInput.LinkFlushed(flushed.destination());
    } else if (message instanceof DeliveryLink.Confirmed confirmed) {
      input = new RegionInput.LinkConfirmed(confirmed.destination());
      world.linkConfirmed(node, confirmed.destination());
    } else if (message instanceof ShardProtocol.EntitiesLive live) {
      input = new RegionInput.EntitiesLive(live);
    } else if (message instanceof GateKeeper.GateChanged change) {
      input = new RegionInput.Gate(change);
    } else if (message instanceof ClusterChange change) {
      input = new RegionInput.Membership(change);
    } else {
      input = new RegionInput.Envelope(message);
    }
    world.trace(node, "region", input, List.of());
    driver.run(input, world.now());
  }

  public void start() {
    receive(new RegionInput.Start());
  }

  /** Asks the region to hand off its shards and stop; {@code replyTo} is told {@code Done}. */
  public void shutDown(ActorRef<Object> replyTo) {
    receive(new RegionInput.GracefulShutdown(replyTo));
  }

  public ActorRef<Object> ref() {
    return self;
  }

  public int node() {
    return node;
  }

  public boolean isStopped() {
    return stopped;
  }

  /** The node's process ended: nothing of the region runs any more. */
  public void died() {
    stopped = true;
  }

  public int held() {
    return machine.held();
  }

  /** How many messages closed links have handed back so far: the region holds them beyond its limit. */
  public int handedBack() {
    return handedBack;
  }

  /** The links this region started, in order. */
  /** Whether the region holds what it routes to node {@code node}'s shards: it sees that node unreachable, or returning. */
  public boolean holdsFor(org.apache.pekko.actor.Address node) {
    return machine.table().unreachable().contains(node);
  }

  public List<SimLinkHost> links() {
    return links;
  }

  public RoutingTable table() {
    return table == null ? machine.table() : table;
  }

  /** Where the region sends a shard's messages: the shard's ref if here, the region's if elsewhere, null if unknown. */
  public ActorRef<Object> homeOf(String shardId) {
    Object home = machine.table().knownHome(shardId);
    if (home instanceof RoutingTable.Local local) {
      return self;
    } else if (home instanceof RoutingTable.Remote remote) {
      return remote.region();
    }
    return null;
  }

  public boolean registered() {
    return registeredWith != null;
  }

  public long registeredTerm() {
    return registeredTerm;
  }

  // ---- the ports

  @Override
  public void tell(ActorRef<Object> to, Object message) {
    world.send(node, to, message);
  }

  @Override
  public void offer(Outbox outbox, Deliver deliver) {
    world.offered(node, outbox.destination(), deliver);
    if (!outbox.offer(deliver)) {
      world.dropped(node, deliver, "the outbox to " + outbox.destination() + " is full");
    }
  }

  @Override
  public void offerAlways(Outbox outbox, Object item) {
    world.offered(node, outbox.destination(), item);
    outbox.offerAlways(item);
  }

  @Override
  public void routed(RegionHandle.ViaRegion via) {
    // No caller takes the shortcut in the simulation.
  }

  @Override
  public void publish(RoutingTable table) {
    this.table = table;
  }

  @Override
  public RegionInput startShard(String shardId, int entityLimit) {
    ActorRef<Object> shard = world.startShard(node, self, shardId, entityLimit);
    RegionInput terminated = new RegionInput.ShardTerminated(shardId);
    world.watch(node, shard, () -> receive(terminated));
    return new RegionInput.ShardStarted(shardId, shard);
  }

  @Override
  public void watch(ActorRef<Object> ref, RegionInput whenTerminated) {
    world.watch(node, ref, () -> receive(whenTerminated));
  }

  @Override
  public void startLink(Outbox outbox) {
    SimLinkHost link = new SimLinkHost(world, node, world.linkRef(node, self), outbox, linkConfig);
    links.add(link);
    linkByOutbox.put(outbox, link);
  }

  @Override
  public void toLink(Outbox outbox, Object message) {
    world.send(node, linkByOutbox.get(outbox).ref(), message);
  }

  @Override
  public RegionInput checkQuiet(long token, String shardId) {
    return new RegionInput.QuietChecked(token, true);
  }

  @Override
  public RegionInput checkLinksIdle(List<Outbox> outboxes) {
    for (Outbox outbox : outboxes) {
      if (outbox.pending() > 0) {
        return new RegionInput.LinksIdle(false);
      }
    }
    return new RegionInput.LinksIdle(true);
  }

  @Override
  public void startTimer(RegionTimer key, long generation, Duration delay, boolean repeat) {
    timers.put(key, generation);
    schedule(key, generation, delay.toNanos(), repeat);
  }

  private void schedule(RegionTimer key, long generation, long nanos, boolean repeat) {
    world.after(node, nanos, () -> {
      Long current = timers.get(key);
      if (stopped || current == null || current != generation) {
        return;
      }
      if (repeat) {
        schedule(key, generation, nanos, true);
      } else {
        timers.remove(key);
      }
      receive(new RegionInput.TimerFired(key, generation));
    });
  }

  @Override
  public void cancelTimer(RegionTimer key) {
    timers.remove(key);
  }

  @Override
  public void drop(Object message, String reason) {
    world.dropped(node, message, reason);
  }

  @Override
  public void summarizeDrops() {}

  @Override
  public void report(RegionNotice notice) {
    world.noticed(node, notice);
  }

  @Override
  public void registered(String coordinator, long term) {
    registeredWith = coordinator;
    registeredTerm = term;
  }

  @Override
  public void registering() {
    registeredWith = null;
  }

  @Override
  public void collectLocalState(List<ActorRef<Object>> shards, List<Outbox> outboxes, int held,
      RegionRequests.GetLocalState get) {}

  @Override
  public void collectStats(List<ActorRef<Object>> shards, ShardingProtocol.GetRegionStats get) {}

  @Override
  public void replyDone(List<ActorRef<Object>> waiters) {
    for (ActorRef<Object> waiter : waiters) {
      world.send(node, waiter, org.apache.pekko.Done.getInstance());
    }
  }

  @Override
  public void stopped() {
    stopped = true;
    world.stoppedActor(self);
  }

  /** Each link's held messages, for the simulation's walk when the node ends. */
  public void forEachInLinks(Consumer<Object> action) {
    links.forEach(l -> l.forEachHeld(action));
  }
}
