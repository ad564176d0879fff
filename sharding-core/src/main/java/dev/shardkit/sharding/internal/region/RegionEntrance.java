package dev.shardkit.sharding.internal.region;

import dev.shardkit.sharding.MessageExtractor;
import dev.shardkit.sharding.internal.InternalApi;
import dev.shardkit.sharding.internal.wire.ShardingProtocol.Deliver;
import dev.shardkit.sharding.internal.wire.ShardingProtocol;
import java.time.Duration;
import org.apache.pekko.actor.ActorCell;
import org.apache.pekko.actor.AutoReceivedMessage;
import org.apache.pekko.actor.Cell;
import org.apache.pekko.actor.InvalidMessageException;
import org.apache.pekko.actor.LocalActorRef;
import org.apache.pekko.actor.RepointableActorRef;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import scala.runtime.BoxedUnit;

/**
 * The ref {@code ClusterSharding.start} and {@code startProxy} return: a region's entrance. A
 * message sent to it is placed by the type's extractor and routed on the sender's thread, through
 * the same {@link RegionHandle} as every {@code EntityRef} of the type, so it reaches a shard whose
 * home is known without passing the region's mailbox, and keeps its order with the sender's
 * messages sent either way. A delivery of this type that is already placed is routed as it is.
 *
 * <p>It is an ordinary actor ref otherwise: it lives under the region's path (Pekko's function
 * refs: its messages run a function instead of filling a mailbox), so it can be sent to other
 * nodes and resolved back there to a ref that routes (what arrives from them is routed on the
 * thread that receives it); it can be asked and piped to; and it can be watched: it terminates,
 * and its watchers hear of it, when the region stops. After that what is sent to it goes to dead
 * letters.
 *
 * <p>What the extractor cannot place is dropped, counted and warned by the region's drop report,
 * as in the region; a null message is refused with Pekko's {@link InvalidMessageException}.
 * Pekko's own control messages (such as {@code Identify} or {@code PoisonPill}) go to the region.
 */
@InternalApi
public final class RegionEntrance {
  /** How long {@link #open} waits for the region's actor to be in place, which takes its parent a moment. */
  private static final Duration REGION_STARTING = Duration.ofSeconds(10);

  private final String typeName;
  private final MessageExtractor<Object, Object> extractor;
  private final RegionHandle handle;
  private final org.apache.pekko.actor.ActorRef region;

  private RegionEntrance(String typeName, MessageExtractor<Object, Object> extractor, RegionHandle handle) {
    this.typeName = typeName;
    this.extractor = extractor;
    this.handle = handle;
    this.region = Adapter.toClassic(handle.region());
  }

  /**
   * Opens the entrance of the region {@code handle} is attached to.
   *
   * @throws IllegalStateException if the region is not an actor of this node, or its actor is not
   *     in place within 10 s (it is created right before this call)
   */
  public static ActorRef<Object> open(String typeName, MessageExtractor<Object, Object> extractor, RegionHandle handle) {
    RegionEntrance entrance = new RegionEntrance(typeName, extractor, handle);
    ActorCell cell = cellOf(entrance.region, typeName);
    return Adapter.toTyped(cell.addFunctionRef((sender, message) -> {
      entrance.route(message, sender);
      return BoxedUnit.UNIT;
    }, "entrance"));
  }

  /** The region's cell: an actor created by its parent becomes one once its parent has taken it in. */
  private static ActorCell cellOf(org.apache.pekko.actor.ActorRef region, String typeName) {
    long deadline = System.nanoTime() + REGION_STARTING.toNanos();
    while (true) {
      Cell cell = region instanceof LocalActorRef local ? local.underlying()
          : region instanceof RepointableActorRef repointable ? repointable.underlying() : null;
      if (cell instanceof ActorCell actorCell) {
        return actorCell;
      }
      if (cell == null) {
        throw new IllegalStateException("The region of entity type [" + typeName + "] is not an actor of this node: "
            + region);
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("The region of entity type [" + typeName + "] was not in place within "
            + REGION_STARTING.toSeconds() + " s of its creation");
      }
      Thread.onSpinWait();
      Thread.yield();
    }
  }

  private void route(Object message, org.apache.pekko.actor.ActorRef sender) {
    if (message == null) {
      throw new InvalidMessageException("Message is null: cannot send null to the region of entity type ["
          + typeName + "]");
    }
    if (message instanceof Deliver deliver && deliver.typeName().equals(typeName)) {
      handle.deliver(deliver);
    } else if (message instanceof AutoReceivedMessage || message instanceof ShardingProtocol) {
      region.tell(message, sender);
    } else {
      EnvelopeExtraction.Result result;
      try {
        result = EnvelopeExtraction.extract(typeName, extractor, message);
      } catch (Exception thrownSneakily) {
        // A checked exception thrown past the compiler's checks: not the sender's to catch. The
        // region meets it again on its own thread and reports that it failed handling the message,
        // counting it as dropped.
        region.tell(message, sender);
        return;
      }
      if (result instanceof EnvelopeExtraction.Extracted extracted) {
        handle.deliver(extracted.deliver());
      } else if (!handle.rejected(message, ((EnvelopeExtraction.Rejected) result).reason())) {
        // The region has not started yet: it reports the message when it has.
        region.tell(message, sender);
      }
    }
  }
}
