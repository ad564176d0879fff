package dev.shardkit.sharding.internal;

import dev.shardkit.sharding.internal.ShardingProtocol.Deliver;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.apache.pekko.actor.NoSerializationVerificationNeeded;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * The part of a region that callers on its node share: the routing table it last published and
 * the shortcut that uses it. A message for a shard whose home is known goes straight to the home
 * (the local shard, or the remote region) from the caller's thread, skipping the region's mailbox;
 * every other message goes through the region.
 *
 * <p>Order: a caller's message that went through the region must not be overtaken by its next
 * message taking the shortcut. The region counts messages sent to it this way and not yet routed,
 * per stripe of shards; while any is pending in a shard's stripe, nobody takes the shortcut to
 * that shard. The region publishes a home only after it has sent everything it held for that
 * shard, so a shortcut message always lands behind them. Stripes keep a backlog for a few new
 * shards from sending traffic for every known shard through the region too.
 */
public final class RegionHandle {

  /** A message that took the slow path; the region must call {@link #routed()} once it is routed. */
  public record ViaRegion(Deliver deliver) implements NoSerializationVerificationNeeded {}

  private ActorRef<Object> region;
  private final SerializabilityCheck serializability;
  private static final int STRIPES = 64;
  private final AtomicIntegerArray pendingInRegion = new AtomicIntegerArray(STRIPES);
  private volatile RoutingTable published = RoutingTable.empty();

  public RegionHandle(SerializabilityCheck serializability) {
    this.serializability = serializability;
  }

  /**
   * Sets the region once it is spawned (the region's behavior needs this handle first). Called
   * before the handle is shared with callers, so a plain field is safely published with it.
   */
  public void attach(ActorRef<Object> regionRef) {
    if (this.region != null) {
      throw new IllegalStateException("region already attached");
    }
    this.region = regionRef;
  }

  public ActorRef<Object> region() {
    return region;
  }

  /** Sends a message toward its entity by the fastest route that keeps order. */
  public void deliver(Deliver deliver) {
    ActorRef<Object> target = shortcut(deliver.shardId(), deliver.message().getClass());
    if (target != null) {
      target.tell(deliver);
    } else {
      region.tell(viaRegion(deliver));
    }
  }

  /**
   * The home to send a message for this shard to directly, or null if it must go through the
   * region. A message for a remote home whose class cannot be serialized goes through the region,
   * which reports it.
   *
   * @param messageClass the message's class, or null when it is not known yet (an ask)
   */
  public ActorRef<Object> shortcut(String shardId, Class<?> messageClass) {
    if (pendingInRegion.get(stripe(shardId)) != 0) {
      return null;
    }
    RoutingTable.Home home = published.home(shardId);
    if (home == null || (messageClass != null && home instanceof RoutingTable.Remote
        && serializability.problem(messageClass).isPresent())) {
      return null;
    }
    return home.target();
  }

  /** Wraps a message for the region and counts it as pending. */
  public ViaRegion viaRegion(Deliver deliver) {
    pendingInRegion.incrementAndGet(stripe(deliver.shardId()));
    return new ViaRegion(deliver);
  }

  /** Called by the region after routing a {@link ViaRegion}. */
  void routed(ViaRegion routed) {
    pendingInRegion.decrementAndGet(stripe(routed.deliver().shardId()));
  }

  private static int stripe(String shardId) {
    return shardId.hashCode() & (STRIPES - 1);
  }

  /** Called by the region after every change to its table, once held messages are sent. */
  void publish(RoutingTable table) {
    published = table;
  }

  public SerializabilityCheck serializability() {
    return serializability;
  }
}
