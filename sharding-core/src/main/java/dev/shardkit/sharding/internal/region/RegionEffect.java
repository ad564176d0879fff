package dev.shardkit.sharding.internal.region;

import dev.shardkit.sharding.internal.delivery.Outbox;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.Deliver;
import dev.shardkit.sharding.internal.wire.ShardingProtocol;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import org.apache.pekko.actor.typed.ActorRef;
import org.jspecify.annotations.Nullable;

/**
 * What the {@link RegionMachine} decided is to be done, in order. Each effect is carried out by one
 * call to its {@link RegionPorts} method ({@link #carryOut}), so an effect added here fails to
 * compile until every interpreter carries it out.
 */
sealed interface RegionEffect {

  /**
   * Carries the effect out.
   *
   * @return the input the machine must be given next, before any other, for an effect answered at
   *     once ({@link StartShard}, {@link CheckQuiet}); null for the others
   */
  @Nullable RegionInput carryOut(RegionPorts ports);

  /**
   * Tell an actor (a shard hosted here, a coordinator, another region's link) a message. Made once
   * per message routed to a shard, so the machine reuses these (valid until its next input, as its
   * effect list is): not a record.
   */
  final class Tell implements RegionEffect {
    private ActorRef<Object> to;
    private Object message;

    Tell(ActorRef<Object> to, Object message) {
      set(to, message);
    }

    Tell set(ActorRef<Object> to, Object message) {
      this.to = Objects.requireNonNull(to);
      this.message = Objects.requireNonNull(message);
      return this;
    }

    ActorRef<Object> to() {
      return to;
    }

    Object message() {
      return message;
    }

    @Override
    public @Nullable RegionInput carryOut(RegionPorts ports) {
      ports.tell(to, message);
      return null;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Tell t && to.equals(t.to) && message.equals(t.message);
    }

    @Override
    public int hashCode() {
      return 31 * to.hashCode() + message.hashCode();
    }

    @Override
    public String toString() {
      return "Tell[" + to + ", " + message + "]";
    }
  }

  /** A caller's message into a link's outbox, under the caller's limit. */
  record Offer(Outbox outbox, Deliver deliver) implements RegionEffect {
    @Override
    public @Nullable RegionInput carryOut(RegionPorts ports) {
      ports.offer(outbox, deliver);
      return null;
    }
  }

  /** An admitted message or a hand-off marker into a link's outbox, whatever its limit. */
  record OfferAlways(Outbox outbox, Object item) implements RegionEffect {
    @Override
    public @Nullable RegionInput carryOut(RegionPorts ports) {
      ports.offerAlways(outbox, item);
      return null;
    }
  }

  /**
   * A message of the slow path has been routed: it no longer counts as pending in its stripe. Made
   * once per such message, so reused as {@link Tell} is: not a record.
   */
  final class Routed implements RegionEffect {
    private RegionHandle.ViaRegion via;

    Routed(RegionHandle.ViaRegion via) {
      set(via);
    }

    Routed set(RegionHandle.ViaRegion via) {
      this.via = Objects.requireNonNull(via);
      return this;
    }

    RegionHandle.ViaRegion via() {
      return via;
    }

    @Override
    public @Nullable RegionInput carryOut(RegionPorts ports) {
      ports.routed(via);
      return null;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Routed r && via.equals(r.via);
    }

    @Override
    public int hashCode() {
      return via.hashCode();
    }

    @Override
    public String toString() {
      return "Routed[" + via + "]";
    }
  }

  /** Publish the routing table: after every message it released was sent. */
  record Publish(RoutingTable table) implements RegionEffect {
    @Override
    public @Nullable RegionInput carryOut(RegionPorts ports) {
      ports.publish(table);
      return null;
    }
  }

  /** Start and watch the shard with its share of the limit; answered with {@link RegionInput.ShardStarted}. */
  record StartShard(String shardId, int entityLimit) implements RegionEffect {
    @Override
    public RegionInput carryOut(RegionPorts ports) {
      return ports.startShard(shardId, entityLimit);
    }
  }

  /** Watch an actor; {@code whenTerminated} comes back when it has. */
  record Watch(ActorRef<Object> ref, RegionInput whenTerminated) implements RegionEffect {
    @Override
    public @Nullable RegionInput carryOut(RegionPorts ports) {
      ports.watch(ref, whenTerminated);
      return null;
    }
  }

  /** Start the link that drains a new outbox. */
  record StartLink(Outbox outbox) implements RegionEffect {
    @Override
    public @Nullable RegionInput carryOut(RegionPorts ports) {
      ports.startLink(outbox);
      return null;
    }
  }

  /** Tell this region's link a message: close, resend now, flush. */
  record ToLink(Outbox outbox, Object message) implements RegionEffect {
    @Override
    public @Nullable RegionInput carryOut(RegionPorts ports) {
      ports.toLink(outbox, message);
      return null;
    }
  }

  /**
   * Look whether no caller can still send by an older table, to {@code shardId} (null: to any
   * shard); answered with {@link RegionInput.QuietChecked}.
   */
  record CheckQuiet(long token, String shardId) implements RegionEffect {
    @Override
    public RegionInput carryOut(RegionPorts ports) {
      return ports.checkQuiet(token, shardId);
    }
  }

  /**
   * Look whether the links hold nothing, waiting or unacknowledged, now: what callers put in by the
   * shortcut since the links' flushes counts too. Answered with {@link RegionInput.LinksIdle}.
   */
  record CheckLinksIdle(List<Outbox> links) implements RegionEffect {
    @Override
    public RegionInput carryOut(RegionPorts ports) {
      return ports.checkLinksIdle(links);
    }
  }

  /** Fire {@link RegionInput.TimerFired} after {@code delay} (every {@code delay} if {@code repeat}). */
  record StartTimer(RegionTimer key, long generation, Duration delay, boolean repeat) implements RegionEffect {
    @Override
    public @Nullable RegionInput carryOut(RegionPorts ports) {
      ports.startTimer(key, generation, delay, repeat);
      return null;
    }
  }

  record CancelTimer(RegionTimer key) implements RegionEffect {
    @Override
    public @Nullable RegionInput carryOut(RegionPorts ports) {
      ports.cancelTimer(key);
      return null;
    }
  }

  /** A message is not delivered, for {@code reason}. */
  record Drop(Object message, String reason) implements RegionEffect {
    @Override
    public @Nullable RegionInput carryOut(RegionPorts ports) {
      ports.drop(message, reason);
      return null;
    }
  }

  /** Warn of drops not warned of yet, if it is time. */
  record SummarizeDrops() implements RegionEffect {
    static final SummarizeDrops INSTANCE = new SummarizeDrops();

    @Override
    public @Nullable RegionInput carryOut(RegionPorts ports) {
      ports.summarizeDrops();
      return null;
    }
  }

  record Report(RegionNotice notice) implements RegionEffect {
    @Override
    public @Nullable RegionInput carryOut(RegionPorts ports) {
      ports.report(notice);
      return null;
    }
  }

  /** For the node's health checks: registered with {@code coordinator} at {@code term}. */
  record Registered(String coordinator, long term) implements RegionEffect {
    @Override
    public @Nullable RegionInput carryOut(RegionPorts ports) {
      ports.registered(coordinator, term);
      return null;
    }
  }

  /** For the node's health checks: registering again. */
  record Registering() implements RegionEffect {
    @Override
    public @Nullable RegionInput carryOut(RegionPorts ports) {
      ports.registering();
      return null;
    }
  }

  /** Answer a request for the region's state. */
  record CollectLocalState(List<ActorRef<Object>> shards, List<Outbox> links, int held,
      RegionRequests.GetLocalState get) implements RegionEffect {
    @Override
    public @Nullable RegionInput carryOut(RegionPorts ports) {
      ports.collectLocalState(shards, links, held, get);
      return null;
    }
  }

  /** Answer a request for the region's statistics. */
  record CollectStats(List<ActorRef<Object>> shards, ShardingProtocol.GetRegionStats get) implements RegionEffect {
    @Override
    public @Nullable RegionInput carryOut(RegionPorts ports) {
      ports.collectStats(shards, get);
      return null;
    }
  }

  /** Tell those who asked for a graceful shutdown that the region has stopped. */
  record ReplyDone(List<ActorRef<Object>> waiters) implements RegionEffect {
    @Override
    public @Nullable RegionInput carryOut(RegionPorts ports) {
      ports.replyDone(waiters);
      return null;
    }
  }

  /** The region stops; the machine handles nothing after it. */
  record Stopped() implements RegionEffect {
    @Override
    public @Nullable RegionInput carryOut(RegionPorts ports) {
      ports.stopped();
      return null;
    }
  }
}
