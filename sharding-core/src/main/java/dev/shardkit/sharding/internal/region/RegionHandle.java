package dev.shardkit.sharding.internal.region;

import dev.shardkit.sharding.internal.InternalApi;
import dev.shardkit.sharding.internal.delivery.Outbox;
import dev.shardkit.sharding.internal.machine.DropReporter;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.Deliver;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.apache.pekko.actor.NoSerializationVerificationNeeded;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.jspecify.annotations.Nullable;

/**
 * The part of a region that callers on its node share: the routing table it last published and
 * the shortcut that uses it. A message for a shard whose home is known goes straight to the home
 * from the caller's thread, skipping the region's mailbox: to the local shard, or into the outbox
 * of the region's link to the remote region (which refuses it, and the caller drops it counted and
 * warned, when the destination is not keeping up). Every other message goes through the region.
 *
 * <p>Two path switches must not reorder or lose messages:
 *
 * <ul>
 *   <li><b>Unknown → known.</b> A caller's message that went through the region must not be
 *       overtaken by its next message taking the shortcut. The region counts messages sent to it
 *       this way and not yet routed, per stripe of shards; while any is pending in a shard's
 *       stripe, nobody takes the shortcut to that shard. The region publishes a home only after it
 *       has sent everything it held for that shard, so a shortcut message lands behind them.
 *   <li><b>Known → handing off.</b> A caller that read the old table must not send by it after the
 *       region has stopped routing to the shard. Callers count themselves in while they read the
 *       table and send; after publishing a table without the shard, the region waits until its
 *       stripe has no caller inside ({@link #shortcutsQuiet}) before it declares the route closed.
 * </ul>
 *
 * <p>Both counters are striped (and padded against false sharing), so a backlog for a few new
 * shards does not send the traffic for every other shard through the region.
 */
@InternalApi
public final class RegionHandle {

  /** A message that took the slow path; the region must call {@link #routed} once it is routed. */
  public record ViaRegion(Deliver deliver) implements NoSerializationVerificationNeeded, RegionInput {}

  private static final int STRIPES = 64;
  // 16 ints = 64 bytes: each stripe's counter on its own cache line.
  private static final int PAD = 16;

  private final SerializabilityCheck serializability;
  private final AtomicIntegerArray pendingInRegion = new AtomicIntegerArray(STRIPES * PAD);
  private final AtomicIntegerArray inShortcut = new AtomicIntegerArray(STRIPES * PAD);
  private ActorRef<Object> region;
  private ActorRef<Object> entrance;
  /** Set by the region when it starts, before it publishes a table with a remote home. */
  private volatile DropReporter drops;
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

  /**
   * Sets the region's {@link RegionEntrance}, which asks go through. Called once, after
   * {@link #attach} and before the handle is shared with callers.
   */
  public void useEntrance(ActorRef<Object> entranceRef) {
    if (this.entrance != null) {
      throw new IllegalStateException("entrance already set");
    }
    this.entrance = entranceRef;
  }

  /** The region's entrance: messages sent to it are routed like {@link #deliver}, on the sender's thread. */
  public ActorRef<Object> entrance() {
    return entrance;
  }

  /** The region's drop counter, which callers report refused messages to. Called by the region once. */
  void useDrops(DropReporter reporter) {
    this.drops = reporter;
  }

  public ActorRef<Object> region() {
    return region;
  }

  /**
   * The home a caller found for its shard in one published table. A caller that sends to one
   * shard again and again ({@code EntityRef}) keeps it and skips the lookup while the region has
   * published nothing newer: a new table, whatever changed in it, means looking up again.
   */
  record KnownHome(RoutingTable table, RoutingTable.Home home) {}

  /** Sends a message toward its entity by the fastest route that keeps order. */
  public void deliver(Deliver deliver) {
    deliver(deliver, null);
  }

  /**
   * Like {@link #deliver(Deliver)}, reusing {@code known} (or null) if it was found in the table
   * published now.
   *
   * @return the home found for the shard in the table the message was routed by, to pass next
   *     time; {@code known} itself when it was reused, null when the message went through the region
   */
  @Nullable KnownHome deliver(Deliver deliver, @Nullable KnownHome known) {
    int slot = slot(deliver.shardId());
    if (pendingInRegion.get(slot) == 0) {
      inShortcut.incrementAndGet(slot);
      try {
        RoutingTable table = published;
        KnownHome found = known != null && known.table() == table ? known
            : new KnownHome(table, table.home(deliver.shardId()));
        RoutingTable.Home home = found.home();
        if (home instanceof RoutingTable.Local local) {
          local.shard().tell(deliver);
          return found;
        }
        // A message whose class cannot be serialized goes through the region, which reports it
        // naming the entity.
        if (home instanceof RoutingTable.Remote remote
            && serializability.problem(deliver.message().getClass()).isEmpty()) {
          if (!remote.outbox().offer(deliver)) {
            refused(deliver, remote.outbox());
          }
          return found;
        }
      } finally {
        inShortcut.decrementAndGet(slot);
      }
    }
    region.tell(viaRegion(deliver));
    return null;
  }

  /** A message a remote home's outbox refused because it is full (or closed): dropped, counted, warned. */
  void refused(Deliver deliver, Outbox outbox) {
    drops.dropped(deliver.message(), "remote delivery to " + outbox.destination().path().address()
        + " is not keeping up: buffer-size (" + outbox.limit() + ") messages already wait for it; dropping a message for"
        + " entity [" + deliver.entityId() + "]", Adapter.toClassic(outbox.destination()));
  }

  /**
   * A message the extractor could not place, reported by the region's drop counter.
   *
   * @return false if the region has not started yet (it has no drop counter): the caller sends the
   *     message to the region, which reports it
   */
  boolean rejected(Object message, String reason) {
    DropReporter reporter = drops;
    if (reporter == null) {
      return false;
    }
    reporter.dropped(message, reason, Adapter.toClassic(region));
    return true;
  }

  /** Wraps a message for the region and counts it as pending. */
  public ViaRegion viaRegion(Deliver deliver) {
    pendingInRegion.incrementAndGet(slot(deliver.shardId()));
    return new ViaRegion(deliver);
  }

  /** Called by the region after routing a {@link ViaRegion}. */
  void routed(ViaRegion routed) {
    pendingInRegion.decrementAndGet(slot(routed.deliver().shardId()));
  }

  /** True when no caller is between reading the table and sending by it, for any shard. */
  boolean allShortcutsQuiet() {
    for (int stripe = 0; stripe < STRIPES; stripe++) {
      if (inShortcut.get(stripe * PAD) != 0) {
        return false;
      }
    }
    return true;
  }

  /**
   * True when no caller is between reading the table and sending by it, for the shard's stripe.
   * After publishing a table without a shard, once this is true no message can reach the shard's
   * old home by the shortcut any more.
   */
  boolean shortcutsQuiet(String shardId) {
    return inShortcut.get(slot(shardId)) == 0;
  }

  private static int slot(String shardId) {
    return (shardId.hashCode() & (STRIPES - 1)) * PAD;
  }

  /** Called by the region after every change to its table, once held messages are sent. */
  void publish(RoutingTable table) {
    published = table;
  }

  public SerializabilityCheck serializability() {
    return serializability;
  }
}
