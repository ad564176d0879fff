package dev.shardkit.sharding.internal.region;

import dev.shardkit.sharding.ShardRegionState;
import dev.shardkit.sharding.internal.InternalApi;
import java.time.Duration;
import org.apache.pekko.actor.NoSerializationVerificationNeeded;
import org.apache.pekko.actor.typed.ActorRef;

/** What the rest of its node asks of a region (never another node: these are local only). */
@InternalApi
public sealed interface RegionRequests extends NoSerializationVerificationNeeded {

  /** Ask for the region's state; answered with {@link LocalState}. */
  record GetLocalState(ActorRef<Object> replyTo, Duration timeout) implements RegionRequests {}

  /** The region's state. */
  record LocalState(ShardRegionState state) implements RegionRequests {}

  /**
   * Hand off every shard of the region and stop; {@code replyTo} gets {@link org.apache.pekko.Done}
   * when the region has stopped.
   */
  record GracefulShutdown(ActorRef<Object> replyTo) implements RegionRequests {}
}
