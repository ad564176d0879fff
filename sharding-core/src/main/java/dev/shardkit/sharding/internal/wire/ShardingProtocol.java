package dev.shardkit.sharding.internal.wire;

import dev.shardkit.sharding.internal.InternalApi;
import dev.shardkit.sharding.internal.SuppressedLetters;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.pekko.actor.DeadLetterSuppression;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * The messages regions, shards and the coordinator exchange across nodes. Every one of them is
 * serialized by {@link ShardingSerializer}; messages that never leave a node live beside the actor
 * that uses them and are marked {@code NoSerializationVerificationNeeded}.
 *
 * <p>What the coordinator tells every region and proxy ({@link RegisterAck} when it takes over,
 * {@link BeginHandOff}, {@link ShardHome}, {@link ShardHomes}) is marked
 * {@code DeadLetterSuppression}: one that reaches a region or proxy that has just stopped is not
 * logged as a dead letter, but counted at DEBUG ({@link SuppressedLetters}). That happens only in
 * a race with a node's departure that the coordinator cannot see (Pekko tells no other node that
 * an actor of a node in coordinated shutdown stopped until that node is removed, and a proxy does
 * not announce its shutdown), and nothing is lost by it: the region or proxy is gone, and the
 * hand-off does not wait for it once its node is removed. The marker is an interface of the
 * record only; the serializer does not see it, and the wire format is the same.
 *
 * <p>Internal API: public because the configuration binds it to its serializer by name, and for
 * shardkit's own tests; not for applications, and it may change in any release.
 */
@InternalApi
public sealed interface ShardingProtocol {

  /**
   * A user message on its way to one entity, once the extractor has been applied: region to
   * region, and region (or an {@code EntityRef}) to shard. The type name lets a region refuse a
   * message that reached the wrong entity type.
   */
  record Deliver(String typeName, String shardId, String entityId, Object message) implements ShardingProtocol {}

  /**
   * Region → coordinator: this region hosts shards, these ones already (a coordinator that starts
   * without stored state learns their homes from it). Repeated until acknowledged.
   */
  record Register(ActorRef<Object> region, Set<String> hostedShards) implements ShardingProtocol {
    public Register {
      hostedShards = Set.copyOf(hostedShards);
    }
  }

  /** Proxy → coordinator: this region routes but never hosts. */
  record RegisterProxy(ActorRef<Object> proxy) implements ShardingProtocol {}

  /**
   * Coordinator → region: registered; this is the coordinator to ask from now on, at
   * {@code term} (see {@link dev.shardkit.sharding.spi.LoadedCoordinatorState}). Every message a
   * coordinator tells regions to act on carries its term; {@link #NO_TERM} is what a reader takes
   * from a writer that sent none.
   */
  record RegisterAck(ActorRef<Object> coordinator, long term) implements ShardingProtocol, DeadLetterSuppression {
    /** The term of a message from a shardkit that sent none. */
    public static final long NO_TERM = 0;
  }

  /** Region → coordinator: where does this shard live? */
  record GetShardHome(String shardId, ActorRef<Object> region) implements ShardingProtocol {}

  /**
   * Coordinator → region: the shard lives in {@code region} (possibly the receiver itself), says
   * the coordinator of {@code term}. With {@code confirmStart} (sent only to {@code region} itself,
   * for a type that remembers its entities) the region answers {@link ShardStarted} once it hosts
   * the shard: such a shard must start without a message, so the coordinator tells it again until
   * it hears that.
   */
  record ShardHome(String shardId, ActorRef<Object> region, long term, boolean confirmStart)
      implements ShardingProtocol, DeadLetterSuppression {

    public ShardHome(String shardId, ActorRef<Object> region, long term) {
      this(shardId, region, term, false);
    }

    /** This home as the coordinator of {@code coordinatorTerm} tells it. */
    public ShardHome at(long coordinatorTerm) {
      return new ShardHome(shardId, region, coordinatorTerm, confirmStart);
    }

    /** This home, with its region asked to confirm that it hosts the shard. */
    public ShardHome confirming() {
      return new ShardHome(shardId, region, term, true);
    }
  }

  /** Region → coordinator: the shard it was told to host with {@code confirmStart} runs (or starts) here. */
  record ShardStarted(String shardId, ActorRef<Object> region) implements ShardingProtocol {}

  /**
   * Coordinator → region or proxy: these shards live in these regions (possibly the receiver
   * itself), says the coordinator of {@code term}; fenced by term like {@link ShardHome}. Sent to
   * every region and proxy once the homes placed up front are stored, and to one that registers
   * later with the homes stored by then, so that a first message to a never-used shard goes
   * straight to its home. A large set of homes is sent in several of these, each small enough for
   * one remote frame ({@link ShardHomesChunks}). A receiver learns only the homes of shards whose
   * home it does not know yet.
   */
  record ShardHomes(Map<String, ActorRef<Object>> homes, long term) implements ShardingProtocol, DeadLetterSuppression {
    public ShardHomes {
      homes = homes == null ? null : Collections.unmodifiableMap(new HashMap<>(homes));
    }

    /** Counts rather than lists: a log line must not print 100 000 homes. */
    @Override
    public String toString() {
      return "ShardHomes(" + (homes == null ? "null" : homes.size() + " home(s)") + ", term " + term + ")";
    }
  }

  /**
   * Coordinator → region: the coordinator does not place this shard, for {@code reason} (its id is
   * outside the type's known shard ids, or the type has as many shards as {@code max-shards}
   * allows). The region drops and counts what it holds for the shard instead of asking again.
   */
  record ShardRefused(String shardId, String reason) implements ShardingProtocol {}

  /** Anyone → coordinator: which regions are registered? */
  record GetCurrentRegions(ActorRef<Object> replyTo) implements ShardingProtocol {}

  /** Coordinator → asker: the registered regions. */
  record CurrentRegions(Set<ActorRef<Object>> regions) implements ShardingProtocol {}

  /** Anyone → region: how many entities does each of your shards have? */
  record GetRegionStats(ActorRef<Object> replyTo) implements ShardingProtocol {}

  /** Region → asker: shard id → live entity count. */
  record RegionStats(Map<String, Integer> entityCounts) implements ShardingProtocol {}

  /**
   * Coordinator → every region and proxy: shard {@code shardId} is leaving {@code owner}. Each
   * receiver stops routing to the shard (holding its messages) and sends the owner a
   * {@link HandOffMarker} behind whatever it already sent there; {@code regions} is everyone the
   * owner must hear a marker from. {@code handOffId} tells this move's markers from those of an
   * earlier move of the same shard that was given up; {@code term} is the coordinator's.
   *
   * <p>With {@code ifUnstarted} (a shard whose home regions were told up front, moving to a region
   * that joined since) the owner moves the shard only if it never started it: if it runs there, or a
   * message for it reaches the owner before every marker has, the owner keeps it (starting it for
   * that message) and answers {@link HandOffDeclined} instead of {@link ShardStopped}. Other
   * regions act on it as on any hand-off. It has its own manifest, so a shardkit from before it
   * cannot read it and never moves a running shard for it (the hand-off times out and the shard
   * stays).
   */
  record BeginHandOff(String shardId, ActorRef<Object> owner, Set<ActorRef<Object>> regions, int handOffId,
      long term, boolean ifUnstarted) implements ShardingProtocol, DeadLetterSuppression {
    public BeginHandOff {
      regions = Set.copyOf(regions);
    }

    /** A hand-off that moves the shard whether or not it runs (rebalancing, graceful shutdown). */
    public BeginHandOff(String shardId, ActorRef<Object> owner, Set<ActorRef<Object>> regions, int handOffId,
        long term) {
      this(shardId, owner, regions, handOffId, term, false);
    }
  }

  /**
   * Region → owner: nothing more for the shard comes from {@code region}; it travels the same way
   * as that region's messages, so it arrives after all of them.
   */
  record HandOffMarker(String shardId, ActorRef<Object> region, int handOffId) implements ShardingProtocol {}

  /** Owner → coordinator: the shard and all its entities have stopped (for that move). */
  record ShardStopped(String shardId, ActorRef<Object> region, int handOffId) implements ShardingProtocol {}

  /**
   * Owner → coordinator: the shard of hand-off {@code handOffId} (one {@code ifUnstarted}) runs in
   * {@code region}, so it stays there; the coordinator tells every region its home again.
   */
  record HandOffDeclined(String shardId, ActorRef<Object> region, int handOffId) implements ShardingProtocol {}

  /** Region → coordinator: move all my shards away, I am shutting down. */
  record GracefulShutdownReq(ActorRef<Object> region) implements ShardingProtocol {}

  /**
   * Sending region's link → receiving region: the {@code seq}-th batch (from 1) of what the link
   * carries, in the order it was handed over. Items are {@link Deliver}s and {@link HandOffMarker}s
   * (and, after decoding, {@link UndeliverableItem}s for those that could not be read). The
   * receiver takes batches strictly in sequence, once each, and answers every one with a
   * {@link DeliveryAck}; a batch that is not acknowledged in time is sent again.
   */
  record DeliveryBatch(ActorRef<Object> link, long seq, List<Object> items) implements ShardingProtocol {
    public DeliveryBatch {
      items = List.copyOf(items);
    }
  }

  /**
   * Receiving region → link: every batch up to and including {@code seq} is delivered. With
   * {@code resend}, the receiver also asks for every later batch again now, rather than after the
   * link's resend timeout: it let one or more of them go (one arrived after a missing one, or they
   * came while the receiver's node waited to be confirmed a member). {@code readsCompactItems}
   * says the receiver reads compact delivery items ({@link ShardingSerializer}'s item tag
   * {@code 'd'}): a link sends them only once an acknowledgement said so, because a shardkit from
   * before them (in a rolling upgrade) could not deliver one.
   */
  record DeliveryAck(long seq, boolean resend, boolean readsCompactItems) implements ShardingProtocol {
    /** An acknowledgement from this shardkit, which reads compact items. */
    public DeliveryAck(long seq, boolean resend) {
      this(seq, resend, true);
    }
  }

  /**
   * A batch item the receiver could not decode (its payload's serializer failed, or it is of a
   * kind this version does not know): reported and dropped, while the rest of the batch goes on.
   */
  record UndeliverableItem(String typeName, String entityId, String reason) {}
}
