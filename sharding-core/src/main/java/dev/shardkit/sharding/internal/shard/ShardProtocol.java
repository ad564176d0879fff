package dev.shardkit.sharding.internal.shard;

import dev.shardkit.sharding.internal.InternalApi;
import dev.shardkit.sharding.internal.region.ShardStateCollector;
import java.util.Set;
import org.apache.pekko.actor.DeadLetterSuppression;
import org.apache.pekko.actor.NoSerializationVerificationNeeded;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * What a {@link Shard} and its region (or an inspector on the same node) tell each other besides
 * deliveries. They never leave the shard's node.
 *
 * <p>Internal API: public because the shard's machine ({@link ShardMachine}) speaks it to shardkit's
 * simulation tests too; not for applications, and it may change in any release.
 */
@InternalApi
public sealed interface ShardProtocol extends NoSerializationVerificationNeeded {

  /**
   * Ask for the shard's live entities; answered with {@link ShardSnapshot}. A
   * {@code DeadLetterSuppression}: asked of every shard the region runs, it may reach one that
   * stopped a moment before (a hand-off that just ended), whose answer the collector does without
   * ({@link ShardStateCollector}'s timeout); that is no lost message worth a dead letter.
   */
  record GetShardState(ActorRef<Object> replyTo) implements ShardProtocol, DeadLetterSuppression {}

  /** A shard's live entities, and how many it has passivated automatically since it started. */
  record ShardSnapshot(String shardId, Set<String> entityIds, long idlePassivations, long limitPassivations)
      implements ShardProtocol {}

  /**
   * Region → shard: nothing more will be routed here; stop every entity (each after what is
   * already in its mailbox) and then stop. Messages held for an entity that was passivating are
   * still delivered here, to one more incarnation that is stopped right after them, because they
   * were sent before the move and must be processed before anything sent after it.
   */
  enum HandOff implements ShardProtocol { INSTANCE }

  /**
   * Region → shard: the coordinator gave the hand-off up (it timed out); keep running. Entities
   * already told to stop still stop; remembered ones start again by themselves, the others with
   * their next message.
   */
  enum CancelHandOff implements ShardProtocol { INSTANCE }

  /** Region → shard: its share of the region's active-entity limit. */
  record EntityLimit(int limit) implements ShardProtocol {}

  /**
   * Shard → region: how many entities are live here, sent after each {@link EntityLimit} and while
   * the shard passivates down to a smaller share. {@code limitsHeard}: how many {@link EntityLimit}s
   * the shard had taken when it counted, so that the region can tell a count made before the shard
   * heard of its latest share (it may still use the share it had) from one made after.
   */
  record EntitiesLive(String shardId, int live, int limitsHeard) implements ShardProtocol {}
}
