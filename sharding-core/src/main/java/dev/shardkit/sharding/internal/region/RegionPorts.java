package dev.shardkit.sharding.internal.region;

import dev.shardkit.sharding.internal.delivery.Outbox;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.Deliver;
import dev.shardkit.sharding.internal.wire.ShardingProtocol;
import java.time.Duration;
import java.util.List;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * How the {@link RegionMachine}'s effects ({@link RegionEffect}) are carried out: by the region
 * actor with Pekko and the node's per-message path ({@link RegionHandle}, the outboxes), or by a
 * simulation of the cluster. Each method is one effect; none decides anything.
 */
interface RegionPorts {

  void tell(ActorRef<Object> to, Object message);

  /** Hands a caller's message to an outbox under the caller's limit; a refusal is reported to the caller's handle. */
  void offer(Outbox outbox, Deliver deliver);

  /** Hands an admitted message (or a marker) to an outbox whatever its limit. */
  void offerAlways(Outbox outbox, Object item);

  /** A message that came through the region's slow path has been routed. */
  void routed(RegionHandle.ViaRegion via);

  /** Publishes the routing table to the callers' shortcut. */
  void publish(RoutingTable table);

  /**
   * Starts and watches the shard, with its share of the active-entity limit.
   *
   * @return {@link RegionInput.ShardStarted}
   */
  RegionInput startShard(String shardId, int entityLimit);

  /** Watches {@code ref}; {@code whenTerminated} is the region's input once it has terminated. */
  void watch(ActorRef<Object> ref, RegionInput whenTerminated);

  /** Starts the link that drains {@code outbox} and attaches it. */
  void startLink(Outbox outbox);

  /** Tells the link behind {@code outbox} a message. */
  void toLink(Outbox outbox, Object message);

  /**
   * Looks whether no caller can still send by an older table: to the shard {@code shardId}, or to
   * any shard if null (within a short spin).
   *
   * @return {@link RegionInput.QuietChecked}
   */
  RegionInput checkQuiet(long token, String shardId);

  /**
   * Looks whether none of {@code links} holds a message, waiting or sent and unacknowledged.
   *
   * @return {@link RegionInput.LinksIdle}
   */
  RegionInput checkLinksIdle(List<Outbox> links);

  void startTimer(RegionTimer key, long generation, Duration delay, boolean repeat);

  void cancelTimer(RegionTimer key);

  /** A message is not delivered: count it, publish it as a dead letter, and warn (rate-limited). */
  void drop(Object message, String reason);

  /** Warns of the drops not warned of yet, if the warning interval has passed. */
  void summarizeDrops();

  void report(RegionNotice notice);

  /** The region is registered with {@code coordinator} at {@code term} (for the node's health checks). */
  void registered(String coordinator, long term);

  /** The region's coordinator went away; it registers again (for the node's health checks). */
  void registering();

  /** Answers {@code get} with the state of {@code shards}, the links' pending messages and {@code held}. */
  void collectLocalState(List<ActorRef<Object>> shards, List<Outbox> links, int held,
      RegionRequests.GetLocalState get);

  /** Answers {@code get} with the statistics of {@code shards}. */
  void collectStats(List<ActorRef<Object>> shards, ShardingProtocol.GetRegionStats get);

  /** Tells each waiter {@code Done}. */
  void replyDone(List<ActorRef<Object>> waiters);

  /** The region is done: it stops. */
  void stopped();
}
