package dev.shardkit.sharding.internal.shard;

import dev.shardkit.sharding.internal.machine.DropReporter;
import dev.shardkit.sharding.internal.machine.HandlerFailures;
import dev.shardkit.sharding.internal.region.RegionSpec;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.Deliver;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.SupervisorStrategy;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * A shard whose handler throws starts again in place, under the same actor reference, so that
 * the region's routing table and the callers' shortcut keep pointing at it. The failure is logged
 * (entity type, shard, the message's type, the exception) and a delivery that failed is counted as
 * dropped. The restart first stops every entity of the failed incarnation and waits until they
 * have stopped (Pekko's restart does so for children), so no entity is ever alive in two
 * incarnations of the shard; meanwhile arriving messages wait in a stash of
 * {@code max(1000, buffer-size)}, beyond which they go to dead letters. The new incarnation takes
 * the messages the failed one held ({@link ShardCarryOver}) before the stashed ones, reads its
 * remembered entities again, and goes on handing off if the failed one was. Messages already in a
 * stopped entity's mailbox are lost with it, as when an entity fails.
 */
final class ShardRestarts {

  private ShardRestarts() {}

  /** {@code shard}, restarted when it throws. */
  static Behavior<Object> supervised(RegionSpec spec, String shardId, DropReporter drops, Behavior<Object> shard) {
    Behavior<Object> reported = HandlerFailures.around(shard, HandlerFailures.Then.RESTART, (ctx, failed, cause) -> {
      ctx.getLog().error("Entity type [{}]: shard [{}] failed handling {} ({}); it starts again once its entities "
              + "have stopped, with the messages it held", spec.typeName(), shardId,
          HandlerFailures.describe(failed instanceof Shard.ToSelf self ? self.input() : failed), cause.toString(),
          cause);
      if (failed instanceof Deliver d) {
        drops.dropped(d.message(), "shard [" + shardId + "] failed handling a message for entity [" + d.entityId()
            + "] (" + cause + ")", Adapter.toClassic(ctx.getSelf()));
      }
    });
    return Behaviors.supervise(reported).onFailure(Exception.class, SupervisorStrategy.restart()
        .withStashCapacity(Math.max(1000, spec.settings().bufferSize()))
        // Reported above, with the type and the shard.
        .withLoggingEnabled(false));
  }
}
